package dev.vigil.close;

import java.util.List;

import dev.vigil.close.decision.CloseReport;

/** A pool as the close pipeline sees it: its admission fence, its tracked children, and the settings it closes with. */
public interface CloseTarget {
    String poolId();

    CloseSettings closeSettings();

    /**
     * Closes admission: operations that start from now fail; returns how many were in flight. Those
     * settle (journal InFlightSettled FINISHED) as they end, or {@link #abandonInFlight} gives them up.
     */
    int fenceAdmission(long closeId);

    /**
     * Lets the operations caught by the fence finish (bounded), then journals InFlightSettled ABANDONED
     * for every one still running and stops waiting for them.
     */
    void abandonInFlight(long closeId) throws InterruptedException;

    /** Children still tracked (not reaped and released by an earlier close), in report order. */
    List<? extends ClosingChild> trackedChildren();

    /** Called once the close's report is journaled: forget the children it reaped. */
    void closeFinished(CloseReport report);
}
