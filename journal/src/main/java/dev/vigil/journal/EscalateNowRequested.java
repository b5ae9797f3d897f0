package dev.vigil.journal;

/**
 * The caller of a close asked it to escalate now (bin/vigil: a second Ctrl-C or SIGTERM): the close stops waiting
 * for its children and kills its survivors at once, whatever its budget and policy. origin says who asked
 * ({@code SIGINT}, {@code SIGTERM}, or an API caller's word). Journaled before the close acts on it, so the replay
 * and the decision audit see the input the decision came from.
 */
public record EscalateNowRequested(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String origin) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.ESCALATE_NOW_REQUESTED;
    }
}
