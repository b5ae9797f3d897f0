package dev.vigil.journal;

/** A child finished a control command or task and the parent collected its result. */
public record CommandCompleted(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, String kind, long commandId, long result, int errorCode, long elapsedNanos) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.COMMAND_COMPLETED;
    }
}
