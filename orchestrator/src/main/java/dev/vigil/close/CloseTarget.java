package dev.vigil.close;

import java.util.List;
import java.util.function.Predicate;

import dev.vigil.close.decision.CloseReport;
import dev.vigil.contain.PoolContainment;

/**
 * A pool as the close engine sees it: its admission fence, its tracked children, and the settings it closes with.
 * Called from the engine's thread; nothing here may block.
 */
public interface CloseTarget {
    String poolId();

    CloseSettings closeSettings();

    /**
     * Closes admission: operations that start from now fail; returns how many were in flight. Whenever one of
     * those ends, {@code onSettled} runs (on the thread that ended it).
     */
    int fenceAdmission(long closeId, Runnable onSettled);

    /** Children still tracked (not reaped and released by an earlier close), in report order. */
    List<? extends ClosingChild> trackedChildren();

    /**
     * Children registered after this close took {@link #trackedChildren()} (an addChild that passed the fence just
     * before it closed): each is returned once. A joiner is queued before its operation ends, so once
     * {@link #settleInFlight} says every operation ended, every joiner is here.
     */
    List<? extends ClosingChild> takeLateJoiners();

    /**
     * Among the operations caught by the fence whose child {@code on} accepts (null for an operation on no child, a
     * spawn), settles what can be settled now from the mailboxes (a command whose result is published completes; one
     * whose child is gone fails) and answers whether every one of them has ended. The close asks it per child at the
     * child's reap, and for all but the survivors' (abandoned at the report) before it reports.
     */
    boolean settleInFlight(long closeId, Predicate<ClosingChild> on);

    /** Journals InFlightSettled ABANDONED for every operation caught by the fence that is still running. */
    void abandonInFlight(long closeId);

    /**
     * What holds every process of the pool (its cgroup, or its process groups); null when nothing does
     * (then only the direct children are escalated and no stray is looked for).
     */
    default PoolContainment containment() {
        return null;
    }

    /** Called once the close's report is journaled: forget the children it reaped. */
    void closeFinished(CloseReport report);

    /**
     * Called once a close that failed inside the engine is journaled (CloseAborted): forget the children it reaped and
     * released, as {@link #closeFinished} does; the others stay for the next close. Before, all stayed: the next close
     * reaped those again and journaled a second MailboxReleased of each of their mailboxes.
     */
    default void closeAborted() {
    }
}
