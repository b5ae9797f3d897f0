package dev.vigil.replay;

/**
 * One broken invariant of DESIGN section 8, with the journal index and time of the event that
 * shows it, and the evidence in words. A transition packed in a {@code MailboxTransitionBatch} is cited by the batch's
 * journal index and its position in the batch (0 first; -1 for any other event), as {@code export} lists it.
 */
public record Violation(Rule rule, long index, int position, long timeNanos, String poolId, long closeId, String where,
        String evidence) {

    /** The invariants the audit checks. */
    public enum Rule {
        /** A transition's from differs from the previous to of that mailbox. */
        LOST_UPDATE,
        /** A transition's seq does not move forward. */
        SEQ_NOT_INCREASING,
        /** A seq gap that no journaled ring overrun explains. */
        SEQ_GAP,
        /** The state word changed after shutdown was published, and not by the child's exit path. */
        WRITE_AFTER_SHUTDOWN,
        /** The closer wrote the state word of a sticky-mode mailbox. */
        STATE_WRITTEN_BY_CLOSER,
        /** The shutdown request was written more than once to one child. */
        SHUTDOWN_WRITTEN_TWICE,
        /** A close ended without reaping a child or reporting it as a survivor. */
        CHILD_UNACCOUNTED,
        /** A close started and the journal ends without its completion. */
        CLOSE_NOT_COMPLETED,
        /**
         * A pool's children were spawned and never reaped, with no close of the pool and no later recovery in the
         * journal: its orchestrator died outside a close.
         */
        POOL_NOT_CLOSED,
        /** A close failed inside the orchestrator and ended without its report (CloseAborted). */
        CLOSE_ABORTED,
        /**
         * A child had left its pool's cgroup when the close began (ContainmentEscaped): the close killed it and what it
         * found below it, but what it forked outside its parentage may have outlived the close.
         */
        CONTAINMENT_ESCAPED,
        /** A mailbox was released while its child was not reaped. */
        RELEASED_BEFORE_REAP,
        /** The outcome rebuilt from the journal differs from the report the orchestrator produced live. */
        REPORT_MISMATCH,
        /**
         * A decision re-run from its journaled inputs differs from the journaled one: of a close (budget spent,
         * escalation), or of a pool's exit policy (a restart or the intensity crossed).
         */
        DECISION_MISMATCH,
    }
}
