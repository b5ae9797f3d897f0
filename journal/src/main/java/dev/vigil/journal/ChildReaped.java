package dev.vigil.journal;

/**
 * A child's exit status was collected. exitCode is -1 when a signal ended it; sinceBroadcastNanos is -1 outside a close,
 * and 0 when the child had exited before its close began (see {@link #goneBeforeClose}).
 */
public record ChildReaped(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int pid, int exitCode, int signal, long sinceBroadcastNanos) implements JournalEvent {
    /** Reaped by a close, but exited before it began (during the run): no broadcast reached it, it has no latency. */
    public boolean goneBeforeClose() {
        return closeId != 0 && sinceBroadcastNanos == 0;
    }

    @Override
    public EventType type() {
        return EventType.CHILD_REAPED;
    }
}
