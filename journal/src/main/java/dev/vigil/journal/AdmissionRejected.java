package dev.vigil.journal;

/** An operation that started after the fence was refused. */
public record AdmissionRejected(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String operation, String group, int index) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.ADMISSION_REJECTED;
    }
}
