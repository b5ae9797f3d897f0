package dev.vigil.journal;

/**
 * A direct child was found outside its pool's cgroup when a close began: it wrote its pid into another cgroup's
 * {@code cgroup.procs} (root, or a delegated tree), so the pool's cgroup.kill no longer covers it or what it forks.
 * The close stopped it and {@code descendants} (the pids still below it by parentage), then SIGKILLed them all (the
 * child through its pidfd). A process it forked that left its parentage (a double fork, {@code setsid -f}) cannot be
 * told apart from the other processes of {@code cgroup} and is not killed. The close fails.
 */
public record ContainmentEscaped(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int pid, String cgroup, String descendants) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CONTAINMENT_ESCAPED;
    }
}
