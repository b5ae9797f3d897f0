package dev.vigil.journal;

/**
 * A child that exited during the run was started again: the new pid, after backoffNanos, the restart's number
 * within the intensity period (restarts counted over the last periodNanos, at most maxRestarts).
 */
public record ChildRestarted(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int oldPid, int newPid, long backoffNanos, int restartsInPeriod, int maxRestarts,
        long periodNanos) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CHILD_RESTARTED;
    }
}
