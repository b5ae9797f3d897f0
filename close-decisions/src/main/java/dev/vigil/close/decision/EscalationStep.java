package dev.vigil.close.decision;

import java.util.List;

/**
 * One step of escalating against a close's survivors: send {@code signal} through {@code target}, then wait up
 * to {@code waitNanos} for them to be reaped before the next step. {@link #plan} is the decision; the orchestrator
 * performs the steps (and journals EscalationSent before each signal).
 *
 * @param target how the signal travels, as journaled: {@code pgroup} (the child's process group) or
 *               {@code pidfd+pgroup} (its pidfd, then its group, for descendants)
 */
public record EscalationStep(int signal, String target, long waitNanos) {
    public static final int SIGTERM = 15;
    public static final int SIGKILL = 9;
    public static final String PGROUP = "pgroup";
    public static final String PIDFD_AND_PGROUP = "pidfd+pgroup";
    /** The least the last step waits for the SIGKILLed to be reaped, however short the grace. */
    public static final long MIN_KILL_WAIT_NANOS = 1_000_000_000L;

    /**
     * LEAK: no step. TERM_THEN_KILL: SIGTERM to the group and wait {@code graceNanos}; then SIGKILL through the
     * pidfd and to the group, and wait {@code max(graceNanos, 1 s)}.
     */
    public static List<EscalationStep> plan(EscalationPolicy policy, long graceNanos) {
        if (policy != EscalationPolicy.TERM_THEN_KILL) {
            return List.of();
        }
        return List.of(new EscalationStep(SIGTERM, PGROUP, graceNanos),
                new EscalationStep(SIGKILL, PIDFD_AND_PGROUP, Math.max(graceNanos, MIN_KILL_WAIT_NANOS)));
    }

    /**
     * The plan after the caller's escalate-now (a second Ctrl-C), whatever the close's policy: as {@code docker stop}
     * after its grace, SIGKILL through the pidfd and to the group at once (the shutdown was published and the
     * caller has waited long enough), then wait {@code max(graceNanos, 1 s)} for the reaps.
     */
    public static List<EscalationStep> escalateNowPlan(long graceNanos) {
        return List.of(new EscalationStep(SIGKILL, PIDFD_AND_PGROUP, Math.max(graceNanos, MIN_KILL_WAIT_NANOS)));
    }

    /** True when the signal also goes through the child's pidfd (not only to its process group). */
    public boolean throughPidfd() {
        return target.startsWith("pidfd");
    }
}
