package dev.vigil.journal;

/**
 * A close stopped waiting for its children: its reap budget ran out at timeNanos ({@code reason} {@code budget}),
 * or its caller asked to escalate now ({@code escalate-now}). lastProgressNanos is the last progress the budget
 * counted; survivors how many children were still alive.
 */
public record BudgetSpent(long timeNanos, int orchestratorPid, String poolId, long closeId, String budget,
        String reason, long lastProgressNanos, int survivors) implements JournalEvent {
    public static final String REASON_BUDGET = "budget";
    public static final String REASON_ESCALATE_NOW = "escalate-now";

    @Override
    public EventType type() {
        return EventType.BUDGET_SPENT;
    }
}
