package dev.vigil.journal;

/** A close of a pool began, with the budget and escalation it runs under. */
public record CloseStarted(long timeNanos, int orchestratorPid, String poolId, long closeId,
        int children, long windowNanos, long hardCapNanos, long fixedBudgetNanos, String escalation, int overlappingCloses) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CLOSE_STARTED;
    }

    /**
     * The other closes in flight when this one started: {@code overlappingCloses} is every close the engine had in
     * flight, this one included (so at least 1 in a journal of the live engine), as it was always journaled.
     */
    public int otherClosesInFlight() {
        return Math.max(0, overlappingCloses - 1);
    }
}
