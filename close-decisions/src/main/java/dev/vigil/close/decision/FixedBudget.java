package dev.vigil.close.decision;

/** A fixed deadline from the start, progress or not: what the upstream runner had, kept for comparison. */
public final class FixedBudget implements ReapBudget {
    private final long deadline;
    private final long startNanos;

    public FixedBudget(long budgetNanos, long startNanos) {
        if (budgetNanos <= 0) {
            throw new IllegalArgumentException("budgetNanos=" + budgetNanos + " must be > 0");
        }
        this.deadline = startNanos + budgetNanos;
        this.startNanos = startNanos;
    }

    @Override
    public void progress(long nowNanos) {
        // Deliberately ignored: that is the difference from NoProgressBudget.
    }

    @Override
    public boolean expired(long nowNanos) {
        return nowNanos - deadline >= 0;
    }

    @Override
    public long remainingNanos(long nowNanos) {
        return Math.max(0, deadline - nowNanos);
    }

    @Override
    public long lastProgressNanos() {
        return startNanos; // progress is not counted
    }

    @Override
    public String kind() {
        return "fixed";
    }
}
