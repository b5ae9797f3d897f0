package dev.vigil.journal;

/** A command ended without a result: its child exited (or was released) first; reason names the exit. */
public record CommandFailed(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, String kind, long commandId, String reason) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.COMMAND_FAILED;
    }
}
