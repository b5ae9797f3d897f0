package dev.vigil.replay;

import java.util.ArrayList;
import java.util.List;

import dev.vigil.journal.AdmissionFenced;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseEndedByOrchestratorDeath;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.ContainmentKilled;
import dev.vigil.journal.InFlightSettled;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.PoolFailed;
import dev.vigil.journal.StrayFound;

/**
 * One close as the journal tells it: its start, the history of every child it covered, and its
 * completion (null when the journal ends first). {@link #outcome()} is the report rebuilt from
 * the events; {@link #liveReport()} the one the orchestrator journaled.
 */
public final class RebuiltClose {
    private final CloseStarted started;
    private final long startIndex;
    private final String protocolMode;
    private final List<ChildHistory> children;
    private final List<StrayFound> strays;
    private final List<ContainmentKilled> kills;
    private final CloseCompleted completed;
    private final CloseEndedByOrchestratorDeath endedByDeath;
    private final long endIndex;
    private final AdmissionFenced fenced;
    private final List<InFlightSettled> settled;
    private final List<JournalEvent> runEvents;
    private final int runEventsDropped;
    /** The caller's escalate-now of this close (a second Ctrl-C), or null. */
    dev.vigil.journal.EscalateNowRequested escalateNow;
    /** Why the close failed inside the orchestrator and ended without its report (CloseAborted), or null. */
    dev.vigil.journal.CloseAborted aborted;
    /** Children found outside the pool's cgroup when the close began, killed by it (they fail the close). */
    List<dev.vigil.journal.ContainmentEscaped> escapes = List.of();
    /** The pid of the orchestrator still running this close when the journal was read, or -1. */
    int inProgressBy = -1;

    RebuiltClose(CloseStarted started, long startIndex, String protocolMode, List<ChildHistory> children,
            List<StrayFound> strays, List<ContainmentKilled> kills, CloseCompleted completed,
            CloseEndedByOrchestratorDeath endedByDeath, long endIndex, AdmissionFenced fenced, List<InFlightSettled> settled,
            List<JournalEvent> runEvents, int runEventsDropped) {
        this.runEvents = List.copyOf(runEvents);
        this.runEventsDropped = runEventsDropped;
        this.endedByDeath = endedByDeath;
        this.strays = List.copyOf(strays);
        this.kills = List.copyOf(kills);
        this.fenced = fenced;
        this.settled = List.copyOf(settled);
        this.started = started;
        this.startIndex = startIndex;
        this.protocolMode = protocolMode;
        this.children = List.copyOf(children);
        this.completed = completed;
        this.endIndex = endIndex;
    }

    /** The failure inside the orchestrator that ended this close without its report (CloseAborted), or null. */
    public dev.vigil.journal.CloseAborted aborted() {
        return aborted;
    }

    /** The caller's escalate-now of this close (bin/vigil: a second Ctrl-C or SIGTERM), or null when none came. */
    public dev.vigil.journal.EscalateNowRequested escalateNow() {
        return escalateNow;
    }

    public CloseStarted started() {
        return started;
    }

    public long closeId() {
        return started.closeId();
    }

    public String poolId() {
        return started.poolId();
    }

    public long startIndex() {
        return startIndex;
    }

    /** "sticky", "legacy", or "unknown" when the journal holds no PoolStarted for the pool. */
    public String protocolMode() {
        return protocolMode;
    }

    /** Every child the close covered, ordered by group and index. */
    public List<ChildHistory> children() {
        return children;
    }

    /** Processes the close found in the pool's container after their parent was reaped (they fail the close). */
    public List<StrayFound> strays() {
        return strays;
    }

    /** Children found outside the pool's cgroup when the close began (ContainmentEscaped); they fail the close. */
    public List<dev.vigil.journal.ContainmentEscaped> escapes() {
        return escapes;
    }

    /** Kills of the pool's whole container (cgroup.kill, or SIGKILL to its process groups) and what each covered. */
    public List<ContainmentKilled> kills() {
        return kills;
    }

    /** The completion, or null when the journal ends before it. */
    public CloseCompleted completed() {
        return completed;
    }

    /** Set when the close never completed because its orchestrator died (journaled by the next one's recovery). */
    public CloseEndedByOrchestratorDeath endedByDeath() {
        return endedByDeath;
    }

    /** The admission fence of this close (how many operations were in flight), or null if not journaled. */
    public AdmissionFenced fenced() {
        return fenced;
    }

    /** How each operation in flight at the fence settled (FINISHED or ABANDONED), in journal order. */
    public List<InFlightSettled> settled() {
        return settled;
    }

    /**
     * What happened to the pool's children while it ran, since its previous close: ChildExited, ChildRestarted and
     * PoolFailed (the failure that started this close, when one did), in journal order; the latest
     * {@link CloseReconstruction#RUN_EVENTS_KEPT}.
     */
    public List<JournalEvent> runEvents() {
        return runEvents;
    }

    /** Run events older than those kept in {@link #runEvents()}. */
    public int runEventsDropped() {
        return runEventsDropped;
    }

    /** The PoolFailed that started this close, or null. */
    public PoolFailed poolFailed() {
        for (JournalEvent e : runEvents) {
            if (e instanceof PoolFailed f && f.closeId() == started.closeId()) {
                return f;
            }
        }
        return null;
    }

    public boolean isComplete() {
        return completed != null;
    }

    /**
     * The pid of the orchestrator that was still running when the journal was read and had not completed this
     * close yet (the close is in progress, not cut off), or -1.
     */
    public int inProgressBy() {
        return inProgressBy;
    }

    /** Index of the CloseCompleted, or of the last event read when incomplete. */
    public long endIndex() {
        return endIndex;
    }

    /** The report rebuilt from the journal's events (children not reaped count as survivors). */
    public CloseOutcome outcome() {
        List<ChildOutcome> out = new ArrayList<>(children.size());
        boolean failed = !strays.isEmpty() || !escapes.isEmpty();
        for (ChildHistory c : children) {
            ChildOutcome o = c.outcome();
            failed |= o.failsTheClose();
            out.add(o);
        }
        long duration = completed == null ? -1 : completed.timeNanos() - started.timeNanos();
        return new CloseOutcome(started.poolId(), started.closeId(), failed ? CloseOutcome.FAILED : CloseOutcome.CLEAN,
                duration, out);
    }

    /** The live report journaled in CloseCompleted, or null when incomplete; throws if unreadable. */
    public CloseOutcome liveReport() {
        return completed == null ? null : CloseOutcome.fromJson(completed.reportJson(), completed.closeId());
    }
}
