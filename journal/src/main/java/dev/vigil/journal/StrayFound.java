package dev.vigil.journal;

/**
 * A process left in a pool's container (its cgroup, or in the fallback its process groups) that is no
 * direct child of the pool: a descendant whose own parent exited (a daemon, a double fork). Found by a
 * close after the reap; the close is not clean while one is there.
 */
public record StrayFound(long timeNanos, int orchestratorPid, String poolId, long closeId,
        int pid, int parentPid, String command, String container) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.STRAY_FOUND;
    }
}
