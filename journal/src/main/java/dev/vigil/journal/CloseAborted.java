package dev.vigil.journal;

/**
 * A close failed inside the orchestrator (an error in the close engine itself, not a child's behaviour) and ended
 * without its report: reason names the failure; unreaped is how many of its children were not reaped by then. Those
 * stay with their pool, tracked, and the next close of the pool (at the latest the orchestrator's own close) takes
 * them. The replay ends the close here (ABORTED) and the audit names it, so a close is never left looking as if it
 * were still running, nor as one the journal merely stops inside.
 */
public record CloseAborted(long timeNanos, int orchestratorPid, String poolId, long closeId, String reason,
        int unreaped) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CLOSE_ABORTED;
    }
}
