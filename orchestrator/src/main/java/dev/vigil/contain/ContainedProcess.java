package dev.vigil.contain;

/** A process found in a pool's container: pid, its parent's pid, its /proc state letter when listed, its command line. */
public record ContainedProcess(int pid, int parentPid, char state, String command) {
    /** Exited, waiting for its parent to collect it: not running any more. */
    public boolean isZombie() {
        return state == 'Z';
    }

    @Override
    public String toString() {
        return "pid=" + pid + " ppid=" + parentPid + " command=" + command;
    }
}
