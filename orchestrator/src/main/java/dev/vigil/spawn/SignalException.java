package dev.vigil.spawn;

/**
 * A signal was not sent: the child is already reaped (its pid may belong to someone else by now),
 * or the kernel refused. Message: {@code signal refused: pid=4711 signal=15 reason=...}.
 */
public final class SignalException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int pid;
    private final int signal;

    public SignalException(int pid, int signal, String reason) {
        super("signal refused: pid=" + pid + " signal=" + signal + " reason=" + reason);
        this.pid = pid;
        this.signal = signal;
    }

    public int pid() {
        return pid;
    }

    public int signal() {
        return signal;
    }
}
