package dev.vigil.journal;

/**
 * A whole container was killed (mode {@code cgroup}: cgroup.kill; {@code pgroup}: SIGKILL to each
 * process group) and awaited: what the kill covered ({@code directChildren} of the pool and
 * {@code descendants}, their pids), whether the container was empty afterwards and how long that took.
 */
public record ContainmentKilled(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String mode, String container, int directChildren, int descendants, String pids,
        boolean empty, long emptyAfterNanos) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CONTAINMENT_KILLED;
    }
}
