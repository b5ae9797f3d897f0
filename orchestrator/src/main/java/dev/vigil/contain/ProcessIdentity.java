package dev.vigil.contain;

/**
 * One process for good: its pid and its start time (clock ticks since boot, /proc/PID/stat field 22).
 * A pid alone may name another process after a reuse; the pair cannot.
 */
public record ProcessIdentity(int pid, long startTicks) {
    /** The process with this pid now; startTicks -1 when there is none. */
    public static ProcessIdentity of(int pid) {
        return new ProcessIdentity(pid, ProcFiles.startTicks(pid));
    }

    /** This JVM. */
    public static ProcessIdentity self() {
        return of((int) ProcessHandle.current().pid());
    }

    /** True while this very process (same pid, same start time) exists and is not a zombie. */
    public boolean isAlive() {
        if (startTicks < 0 || ProcFiles.startTicks(pid) != startTicks) {
            return false;
        }
        return ProcFiles.state(pid) != 'Z';
    }
}
