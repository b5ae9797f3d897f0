package dev.vigil.pool;

import java.util.ArrayDeque;

/**
 * The restart decision of an {@link ExitPolicy#restart} pool, OTP's supervisor intensity: pure code, the time passed
 * in. A pool may restart its children at most {@code maxRestarts} times within any {@code period}; the exit that
 * would need one more fails the pool. Each restart waits {@code backoff * 2^(n-1)} (at most {@code maxBackoff}), n
 * being the restart's number within the period.
 */
final class RestartIntensity {
    /** Restart after {@code backoffNanos}, the {@code restartsInPeriod}th within the period; or fail the pool. */
    record Decision(boolean restart, long backoffNanos, int restartsInPeriod) {
    }

    private final ExitPolicy policy;
    private final ArrayDeque<Long> restarts = new ArrayDeque<>();

    RestartIntensity(ExitPolicy policy) {
        this.policy = policy;
    }

    /** Decides about an exit at {@code nowNanos}; a restart is counted from then. */
    synchronized Decision onExit(long nowNanos) {
        long period = policy.period().toNanos();
        while (!restarts.isEmpty() && nowNanos - restarts.peekFirst() >= period) {
            restarts.pollFirst();
        }
        if (restarts.size() >= policy.maxRestarts()) {
            return new Decision(false, 0, restarts.size() + 1);
        }
        restarts.addLast(nowNanos);
        int n = restarts.size();
        long backoff = policy.backoff().toNanos();
        long max = policy.maxBackoff().toNanos();
        for (int i = 1; i < n && backoff < max; i++) {
            backoff = Math.min(max, backoff * 2);
        }
        return new Decision(true, Math.min(backoff, max), n);
    }
}
