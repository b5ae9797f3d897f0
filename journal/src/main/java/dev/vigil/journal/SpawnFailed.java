package dev.vigil.journal;

/** Starting a child failed; errno and the command say why. Nothing of it was left behind. */
public record SpawnFailed(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, String command, int errno, String message) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.SPAWN_FAILED;
    }
}
