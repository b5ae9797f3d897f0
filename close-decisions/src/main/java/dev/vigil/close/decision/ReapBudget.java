package dev.vigil.close.decision;

/**
 * How long a close keeps waiting for its children to exit. Pure: the caller passes the time (CLOCK_MONOTONIC
 * nanos live, journaled times in replay), so the same inputs give the same decision. Not thread-safe.
 */
public interface ReapBudget {
    /** Something moved at {@code nowNanos}: a child was reaped, acknowledged shutdown, or beat. */
    void progress(long nowNanos);

    /** True once the budget is spent at {@code nowNanos}. */
    boolean expired(long nowNanos);

    /** Nanos until the budget expires if nothing moves (0 when expired). */
    long remainingNanos(long nowNanos);

    /** The last progress counted (the start when none was). */
    long lastProgressNanos();

    /** Short label for the journal ({@code no-progress} or {@code fixed}). */
    String kind();

    /**
     * The budget a close runs with, from the numbers its CloseStarted journals: a {@link FixedBudget} when
     * {@code fixedBudgetNanos} is set, else a {@link NoProgressBudget}.
     *
     * @param hardCapNanos     0 for none
     * @param fixedBudgetNanos 0 for none
     */
    static ReapBudget of(long windowNanos, long hardCapNanos, long fixedBudgetNanos, long startNanos) {
        if (fixedBudgetNanos != 0) {
            return new FixedBudget(fixedBudgetNanos, startNanos);
        }
        return new NoProgressBudget(windowNanos, hardCapNanos, startNanos);
    }
}
