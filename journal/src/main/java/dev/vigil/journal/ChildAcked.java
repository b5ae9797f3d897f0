package dev.vigil.journal;

/** A child acknowledged shutdown; ackNanos is its own CLOCK_MONOTONIC stamp of first seeing the word. */
public record ChildAcked(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int pid, long ackNanos) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CHILD_ACKED;
    }
}
