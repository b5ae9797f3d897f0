package dev.vigil.spawn.internal;

/**
 * Decodes a wait(2) status word (the WIFEXITED / WEXITSTATUS / WTERMSIG macros of glibc), and the siginfo_t waitid(2)
 * fills for a child: si_code at byte 8, then, after the union's 8-byte alignment on every 64-bit ABI, si_pid at 16 and
 * si_status at 24.
 */
public final class WaitStatus {
    /** sizeof(siginfo_t) = 128 bytes, as ints. */
    public static final int SIGINFO_INTS = 32;
    private static final int SI_CODE = 2;
    private static final int SI_PID = 4;
    private static final int SI_STATUS = 6;
    /** si_code of an exited child (CLD_EXITED); CLD_KILLED (2) and CLD_DUMPED (3) mean a signal ended it. */
    private static final int CLD_EXITED = 1;

    private WaitStatus() {
    }

    public static boolean exited(int status) {
        return (status & 0x7f) == 0;
    }

    public static int exitCode(int status) {
        return (status >> 8) & 0xff;
    }

    public static boolean signalled(int status) {
        int low = status & 0x7f;
        return low != 0 && low != 0x7f;
    }

    public static int termSignal(int status) {
        return status & 0x7f;
    }

    /** Whether waitid's {@code info} names a child (zero pid: WNOHANG and none has exited yet). */
    public static boolean infoNamesChild(int[] info) {
        return info[SI_PID] != 0;
    }

    /** Whether the child in waitid's {@code info} exited (else a signal ended it). */
    public static boolean infoExited(int[] info) {
        return info[SI_CODE] == CLD_EXITED;
    }

    /** The exit code, or the signal that ended the child, from waitid's {@code info}. */
    public static int infoStatus(int[] info) {
        return info[SI_STATUS];
    }
}
