package dev.vigil.journal;

/** A close of a pool began, with the budget and escalation it runs under. */
public record CloseStarted(long timeNanos, int orchestratorPid, String poolId, long closeId,
        int children, long windowNanos, long hardCapNanos, long fixedBudgetNanos, String escalation, int overlappingCloses) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CLOSE_STARTED;
    }
}
