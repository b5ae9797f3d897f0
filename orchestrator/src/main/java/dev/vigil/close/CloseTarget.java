package dev.vigil.close;

import java.util.List;
import java.util.Set;

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
     * Settles what can be settled now from the mailboxes (a command whose result is published completes; one whose
     * child is gone fails) and answers whether every operation caught by the fence has ended, not counting those on
     * {@code survivors} (they are abandoned at the report).
     */
    boolean settleInFlight(long closeId, Set<ClosingChild> survivors);

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
}
