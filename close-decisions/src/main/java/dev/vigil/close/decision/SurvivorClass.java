package dev.vigil.close.decision;

/** Why a child outlived the reap budget; {@link SurvivorDiagnosis#classify} tries them in this order, first match wins. */
public enum SurvivorClass {
    /** /proc state T: stopped or traced; it cannot run its loop at all. */
    STOPPED,
    /** The shutdown request is not visible in its mailbox (legacy: the state word was overwritten; sticky: a bug of ours). */
    NOT_DELIVERED,
    /** Delivered but never acknowledged: the child is somewhere its loop does not reach (inside a handler). */
    NOT_OBSERVED,
    /** Acknowledged, but no heartbeat for a whole window, or /proc state D. */
    WEDGED,
    /** Acknowledged and still beating: slow, not stuck. */
    FINALIZING
}
