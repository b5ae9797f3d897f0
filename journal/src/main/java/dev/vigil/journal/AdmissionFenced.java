package dev.vigil.journal;

/** Close began: new commands, tasks and children are refused from here on; inFlight operations were still running. */
public record AdmissionFenced(long timeNanos, int orchestratorPid, String poolId, long closeId,
        int inFlight) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.ADMISSION_FENCED;
    }
}
