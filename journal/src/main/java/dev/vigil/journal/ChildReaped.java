package dev.vigil.journal;

/** A child's exit status was collected. exitCode is -1 when a signal ended it; sinceBroadcastNanos is -1 outside a close. */
public record ChildReaped(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int pid, int exitCode, int signal, long sinceBroadcastNanos) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CHILD_REAPED;
    }
}
