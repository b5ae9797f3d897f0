package dev.vigil.journal;

/** A close ended; the full CloseReport is carried as JSON. */
public record CloseCompleted(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String outcome, int reaped, int survivors, long durationNanos, String reportJson) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CLOSE_COMPLETED;
    }
}
