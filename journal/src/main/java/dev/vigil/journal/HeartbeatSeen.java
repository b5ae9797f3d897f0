package dev.vigil.journal;

/**
 * The close saw the heartbeat word of a child that had acknowledged shutdown advance, and counted it as
 * progress of its reap budget (an input of the budget decision; at most one per child per twentieth of the
 * no-progress window, so a beating child does not flood the journal).
 */
public record HeartbeatSeen(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int pid, long heartbeat) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.HEARTBEAT_SEEN;
    }
}
