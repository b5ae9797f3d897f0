package dev.vigil.spawn;

/**
 * How a child ended, collected by the reaper.
 *
 * @param exitCode    the exit code, or -1 when a signal ended the child
 * @param signal      the signal that ended the child, or 0 when it exited
 * @param reapedNanos CLOCK_MONOTONIC ({@code MonotonicClock.nanos()}) right after the status was collected
 */
public record ExitStatus(int exitCode, int signal, long reapedNanos) {
    public static ExitStatus exited(int exitCode, long reapedNanos) {
        return new ExitStatus(exitCode, 0, reapedNanos);
    }

    public static ExitStatus killed(int signal, long reapedNanos) {
        return new ExitStatus(-1, signal, reapedNanos);
    }

    public boolean killedBySignal() {
        return signal != 0;
    }

    /** {@code exit=42} or {@code signal=9}. */
    public String describe() {
        return killedBySignal() ? "signal=" + signal : "exit=" + exitCode;
    }
}
