package dev.vigil.journal;

/** A pool stopped admitting work because a child exited during the run (policy fail-pool, or too many restarts). */
public record PoolFailed(long timeNanos, int orchestratorPid, String poolId, long closeId, String reason)
        implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.POOL_FAILED;
    }
}
