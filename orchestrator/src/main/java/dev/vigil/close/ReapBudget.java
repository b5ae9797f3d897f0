package dev.vigil.close;

/**
 * How long the reap stage keeps waiting for children. Used by one thread (the reap stage); times
 * are CLOCK_MONOTONIC nanos.
 */
public interface ReapBudget {
    /** Something moved at {@code nowNanos}: a child was reaped, acknowledged shutdown, or beat. */
    void progress(long nowNanos);

    /** True once the budget is spent at {@code nowNanos}. */
    boolean expired(long nowNanos);

    /** Nanos until the budget expires if nothing moves (0 when expired). */
    long remainingNanos(long nowNanos);

    /** Short label for the journal ({@code no-progress} or {@code fixed}). */
    String kind();
}
