package dev.vigil.close.decision;

/**
 * Expires only after a whole window passes with no progress, or at the optional hard cap counted
 * from the start. A slow teardown that keeps beating is waited for; a silent one is not.
 */
public final class NoProgressBudget implements ReapBudget {
    private final long windowNanos;
    private final long hardCapDeadline;
    private long lastProgressNanos;

    /** @param hardCapNanos 0 for no hard cap */
    public NoProgressBudget(long windowNanos, long hardCapNanos, long startNanos) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("windowNanos=" + windowNanos + " must be > 0");
        }
        if (hardCapNanos < 0) {
            throw new IllegalArgumentException("hardCapNanos=" + hardCapNanos + " must be >= 0");
        }
        this.windowNanos = windowNanos;
        this.hardCapDeadline = hardCapNanos == 0 ? Long.MAX_VALUE : startNanos + hardCapNanos;
        this.lastProgressNanos = startNanos;
    }

    @Override
    public void progress(long nowNanos) {
        if (nowNanos - lastProgressNanos > 0) {
            lastProgressNanos = nowNanos;
        }
    }

    @Override
    public boolean expired(long nowNanos) {
        return remainingNanos(nowNanos) == 0;
    }

    @Override
    public long remainingNanos(long nowNanos) {
        long untilWindow = lastProgressNanos + windowNanos - nowNanos;
        long untilCap = hardCapDeadline == Long.MAX_VALUE ? Long.MAX_VALUE : hardCapDeadline - nowNanos;
        return Math.max(0, Math.min(untilWindow, untilCap));
    }

    @Override
    public long lastProgressNanos() {
        return lastProgressNanos;
    }

    @Override
    public String kind() {
        return "no-progress";
    }
}
