package dev.vigil.journal;

/** A pool's children were all spawned and ready; the pool accepts work from here on. */
public record PoolStarted(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String host, String protocolMode, int groups, int children) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.POOL_STARTED;
    }
}
