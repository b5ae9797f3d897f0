package dev.vigil.journal;

/**
 * How this orchestrator contains its pools, journaled once when it opens: mode {@code cgroup} (root = its
 * cgroup v2 directory) or {@code pgroup} (process groups, the fallback; reason says why it was chosen).
 */
public record ContainmentChosen(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String mode, String root, String reason) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CONTAINMENT_CHOSEN;
    }
}
