package dev.vigil.journal;

/** A mailbox's transition ring was overwritten before it was drained: transitions firstLostSeq..lastLostSeq are unknown. */
public record RingOverrun(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, long firstLostSeq, long lastLostSeq) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.RING_OVERRUN;
    }
}
