package dev.vigil.journal;

/** An operation that was in flight at the fence finished (FINISHED) or was given up (ABANDONED). */
public record InFlightSettled(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String operation, String group, int index, String outcome) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.IN_FLIGHT_SETTLED;
    }
}
