package dev.vigil.close.decision;

import java.util.ArrayDeque;

import dev.vigil.journal.ChildExited;

/**
 * The restart decision of a pool whose exit policy is {@code restart}, OTP's supervisor intensity: pure code, the time
 * passed in, run live by the pool and again by the replay's decision audit ({@link RestartDecisionAudit}) from the
 * journaled exits. A pool may restart its children at most {@code maxRestarts} times within any {@code period}; the
 * exit that would need one more fails the pool. Each restart waits {@code backoff * 2^(n-1)} (at most
 * {@code maxBackoff}), n being the restart's number within the period.
 */
public final class RestartIntensity {
    /**
     * Restart after {@code backoffNanos}, the {@code restartsInPeriod}th restart within the period; or (restart false)
     * fail the pool, {@code restartsInPeriod} being the restart it would have been.
     */
    public record Decision(boolean restart, long backoffNanos, int restartsInPeriod) {
    }

    private final int maxRestarts;
    private final long periodNanos;
    private final long backoffNanos;
    private final long maxBackoffNanos;
    private final ArrayDeque<Long> restarts = new ArrayDeque<>();

    public RestartIntensity(int maxRestarts, long periodNanos, long backoffNanos, long maxBackoffNanos) {
        this.maxRestarts = maxRestarts;
        this.periodNanos = periodNanos;
        this.backoffNanos = backoffNanos;
        this.maxBackoffNanos = maxBackoffNanos;
    }

    /** True when this intensity runs with exactly these settings. */
    public boolean hasSettings(int maxRestarts, long periodNanos, long backoffNanos, long maxBackoffNanos) {
        return this.maxRestarts == maxRestarts && this.periodNanos == periodNanos && this.backoffNanos == backoffNanos
                && this.maxBackoffNanos == maxBackoffNanos;
    }

    /**
     * The ChildExited of an exit under the {@code restart} policy decided at {@code timeNanos}: this intensity's
     * settings and {@code decision} ({@link #onExit}), or null when nothing was decided (the pool had failed or was
     * closing). {@link #journaled} reads the decision back.
     */
    public ChildExited exitEvent(long timeNanos, int orchestratorPid, String poolId, String group, int index, int pid,
            int exitCode, int signal, String policy, Decision decision) {
        return new ChildExited(timeNanos, orchestratorPid, poolId, 0, group, index, pid, exitCode, signal, policy,
                maxRestarts, periodNanos, backoffNanos, maxBackoffNanos, decision == null ? 0 : decision.restartsInPeriod(),
                decision != null && decision.restart() ? decision.backoffNanos() : -1);
    }

    /** The decision {@code e} journals ({@link #exitEvent}); null when it journals none (or another policy's exit). */
    public static Decision journaled(ChildExited e) {
        if (e.restartsInPeriod() <= 0) {
            return null;
        }
        return new Decision(e.restartAfterNanos() >= 0, Math.max(0, e.restartAfterNanos()), e.restartsInPeriod());
    }

    /** Decides about an exit at {@code nowNanos} (exits in time order); a restart is counted from then. */
    public synchronized Decision onExit(long nowNanos) {
        while (!restarts.isEmpty() && nowNanos - restarts.peekFirst() >= periodNanos) {
            restarts.pollFirst();
        }
        if (restarts.size() >= maxRestarts) {
            return new Decision(false, 0, restarts.size() + 1);
        }
        restarts.addLast(nowNanos);
        int n = restarts.size();
        long backoff = backoffNanos;
        for (int i = 1; i < n && backoff < maxBackoffNanos; i++) {
            backoff = Math.min(maxBackoffNanos, backoff * 2);
        }
        return new Decision(true, Math.min(backoff, maxBackoffNanos), n);
    }
}
