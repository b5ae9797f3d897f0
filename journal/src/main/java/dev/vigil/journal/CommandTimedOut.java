package dev.vigil.journal;

/** The parent stopped waiting for a command; the state word it last saw is recorded (a late completion stays consistent). */
public record CommandTimedOut(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, String kind, long commandId, long timeoutNanos, int lastState) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.COMMAND_TIMED_OUT;
    }
}
