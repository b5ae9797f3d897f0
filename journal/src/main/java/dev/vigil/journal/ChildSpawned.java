package dev.vigil.journal;

/** A child process exists: its pid, where it sits in the pool, and where its mailbox lives (-1 for a plain executable). */
public record ChildSpawned(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int pid, String kind, long mailboxOffset, long spawnEpoch, String command) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CHILD_SPAWNED;
    }
}
