package dev.vigil.spawn.internal;

/** Decodes a wait(2) status word (the WIFEXITED / WEXITSTATUS / WTERMSIG macros of glibc). */
public final class WaitStatus {
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
}
