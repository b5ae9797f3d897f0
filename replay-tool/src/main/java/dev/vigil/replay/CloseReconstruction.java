package dev.vigil.replay;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.vigil.close.decision.CloseDecisionAudit;
import dev.vigil.close.decision.RestartDecisionAudit;
import dev.vigil.journal.AdmissionFenced;
import dev.vigil.journal.ChildAcked;
import dev.vigil.journal.ChildExited;
import dev.vigil.journal.ChildOutputTail;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.ChildSpawned;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseEndedByOrchestratorDeath;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.EscalateNowRequested;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.EventType;
import dev.vigil.journal.InFlightSettled;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MailboxRecovered;
import dev.vigil.journal.MailboxReleased;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.MailboxTransitionBatch;
import dev.vigil.journal.PoolStarted;
import dev.vigil.journal.RingOverrun;
import dev.vigil.journal.ShutdownPublished;
import dev.vigil.journal.StrayFound;
import dev.vigil.journal.SurvivorDiagnosed;
import dev.vigil.journal.SurvivorStacks;

/**
 * The fold over a journal that rebuilds every close and checks the invariants of DESIGN section 8
 * as it goes. Streaming: it keeps state only for pools that still have live children or mailboxes,
 * for closes in progress, and per mailbox its last transition; transitions are kept in full only
 * for the one close named as the detail close (for show and timeline).
 *
 * <p>Rules it applies (the live CloseReport follows the same):
 * a close covers the children of its pool that were spawned and not yet reaped when it started
 * (so a retried close covers only the survivors still tracked); a covered child reaped after an
 * EscalationSent to it was KILLED_BY_ESCALATION, otherwise EXITED or SIGNALED; not reaped by the
 * CloseCompleted it is a SURVIVOR.
 */
public final class CloseReconstruction {
    public static final String WRITER_CLOSER = "CLOSER";
    public static final String WRITER_CHILD = "CHILD";
    public static final String CHANNEL_SHUTDOWN_WORD = "SHUTDOWN_WORD";

    /** The event kinds the fold reads; a reader may skip every other kind by its header. */
    public static final Set<EventType> KINDS = EnumSet.of(EventType.POOL_STARTED, EventType.CHILD_SPAWNED,
            EventType.MAILBOX_TRANSITION, EventType.MAILBOX_TRANSITION_BATCH, EventType.RING_OVERRUN, EventType.CLOSE_STARTED,
            EventType.SHUTDOWN_PUBLISHED, EventType.CHILD_ACKED, EventType.CHILD_REAPED,
            EventType.SURVIVOR_DIAGNOSED, EventType.ESCALATION_SENT, EventType.MAILBOX_RELEASED,
            EventType.ADMISSION_FENCED, EventType.IN_FLIGHT_SETTLED, EventType.CLOSE_COMPLETED,
            EventType.HEARTBEAT_SEEN, EventType.BUDGET_SPENT,
            EventType.STRAY_FOUND, EventType.CONTAINMENT_KILLED, EventType.CONTAINMENT_ESCAPED, EventType.CLOSE_ENDED_BY_ORCHESTRATOR_DEATH, EventType.CLOSE_ABORTED,
            EventType.MAILBOX_RECOVERED, EventType.ORCHESTRATOR_DEATH_FOUND, EventType.POOL_KEPT,
            EventType.ESCALATE_NOW_REQUESTED, EventType.SURVIVOR_STACKS,
            EventType.CHILD_EXITED, EventType.CHILD_RESTARTED, EventType.POOL_FAILED, EventType.CHILD_OUTPUT_TAIL,
            EventType.JOURNAL_SET_ASIDE);

    /** At most this many run events (exits, restarts, failure) are kept per pool between two closes: the latest. */
    static final int RUN_EVENTS_KEPT = 64;

    /** Receives closes as they complete and violations as they are found. */
    public interface Listener {
        default void closeStarted(CloseStarted started, long index) {
        }

        /** A close completed, or (from {@link #finish}) the journal ended before it did. */
        default void closeRebuilt(RebuiltClose close) {
        }

        default void violation(Violation violation) {
        }

        /** The journal begins fresh here: the one before it was damaged and set aside where {@code e} says. */
        default void journalSetAside(long index, dev.vigil.journal.JournalSetAside e) {
        }

        /** With a map file: a tracked mailbox the map file shows no words for, and why (one line). */
        default void mapNote(String poolId, ChildKey child, String note) {
        }
    }

    private final Listener listener;
    private final long detailCloseId;
    private final Map<String, PoolState> pools = new HashMap<>();
    private final Map<Long, CloseState> openCloses = new HashMap<>();
    /** The pools' restart decisions re-run from their journaled exits. */
    private final RestartDecisionAudit restarts = new RestartDecisionAudit();
    /** Reads the transitions of each MailboxTransitionBatch folded in, one at a time. */
    private final MailboxTransitionBatch.Reader packed = new MailboxTransitionBatch.Reader();
    private long lastIndex = -1;
    private long lastTime;

    /** @param detailCloseId the close whose transitions are kept in full, or 0 for none */
    public CloseReconstruction(Listener listener, long detailCloseId) {
        this.listener = listener;
        this.detailCloseId = detailCloseId;
    }

    /** Closes started and not yet completed. */
    public int closesInProgress() {
        return openCloses.size();
    }

    /** Pools the fold still holds state for (memory is proportional to this, not to the journal). */
    public int poolsTracked() {
        return pools.size();
    }

    /** Folds in one event; index -1 for a transition recovered from the mailbox map file. */
    public void accept(long index, JournalEvent e) {
        if (index >= 0) {
            lastIndex = index;
        }
        lastTime = e.timeNanos();
        if (e.closeId() != 0 && CloseDecisionAudit.KINDS.contains(e.type()) && e.type() != EventType.CLOSE_STARTED) {
            CloseState open = openCloses.get(e.closeId());
            if (open != null) {
                open.decisions.accept(e);
            }
        }
        if (RestartDecisionAudit.KINDS.contains(e.type())) {
            for (String d : restarts.accept(e)) {
                violation(Violation.Rule.DECISION_MISMATCH, index, e.timeNanos(), e.poolId(), e.closeId(),
                        "pool " + e.poolId() + " restarts", d);
            }
        }
        switch (e.type()) {
            // the spec's words (sticky, legacy), whatever case the orchestrator journaled (it writes STICKY)
            case POOL_STARTED -> pool(e.poolId()).mode = String.valueOf(((PoolStarted) e).protocolMode())
                    .toLowerCase(java.util.Locale.ROOT);
            case CHILD_SPAWNED -> spawned(index, (ChildSpawned) e);
            case MAILBOX_TRANSITION -> transition(index, -1, (MailboxTransition) e);
            case MAILBOX_TRANSITION_BATCH -> {
                packed.reset((MailboxTransitionBatch) e); // no list, no copy: each transition decoded as it is folded in
                for (int position = 0; packed.next(); position++) {
                    transition(index, position, packed.transition());
                    lastTime = packed.timeNanos();
                }
            }
            case RING_OVERRUN -> overrun((RingOverrun) e);
            case CLOSE_STARTED -> closeStarted(index, (CloseStarted) e);
            case SHUTDOWN_PUBLISHED -> published(index, (ShutdownPublished) e);
            case CHILD_ACKED -> acked((ChildAcked) e);
            case CHILD_REAPED -> reaped((ChildReaped) e);
            case SURVIVOR_DIAGNOSED -> diagnosed((SurvivorDiagnosed) e);
            case SURVIVOR_STACKS -> {
                SurvivorStacks st = (SurvivorStacks) e;
                ChildHistory ch = closeChild(st.closeId(), st.poolId(), st.group(), st.index(), st.pid());
                if (ch != null) {
                    ch.stacks = st;
                }
            }
            case CHILD_OUTPUT_TAIL -> {
                ChildOutputTail ot = (ChildOutputTail) e;
                ChildHistory ch = closeChild(ot.closeId(), ot.poolId(), ot.group(), ot.index(), ot.pid());
                if (ch != null) {
                    ch.stderrTail = ot;
                }
            }
            case ESCALATION_SENT -> escalated((EscalationSent) e);
            case MAILBOX_RELEASED -> released(index, (MailboxReleased) e);
            case CLOSE_COMPLETED -> closeCompleted(index, (CloseCompleted) e);
            case ADMISSION_FENCED -> {
                CloseState cs = openCloses.get(((AdmissionFenced) e).closeId());
                if (cs != null) {
                    cs.fenced = (AdmissionFenced) e;
                }
            }
            case IN_FLIGHT_SETTLED -> {
                CloseState cs = openCloses.get(((InFlightSettled) e).closeId());
                if (cs != null) {
                    cs.settled.add((InFlightSettled) e);
                }
            }
            case ESCALATE_NOW_REQUESTED -> {
                CloseState cs = openCloses.get(e.closeId());
                if (cs != null && cs.escalateNow == null) {
                    cs.escalateNow = (EscalateNowRequested) e;
                }
            }
            case STRAY_FOUND -> strayFound((StrayFound) e);
            case CONTAINMENT_ESCAPED -> {
                dev.vigil.journal.ContainmentEscaped x = (dev.vigil.journal.ContainmentEscaped) e;
                CloseState cs = openCloses.get(e.closeId());
                if (cs != null) {
                    cs.escapes.add(x);
                }
                violation(Violation.Rule.CONTAINMENT_ESCAPED, index, x.timeNanos(), x.poolId(), x.closeId(),
                        "child " + x.group() + "[" + x.index() + "]", CloseVerdict.escape(x));
            }
            case CONTAINMENT_KILLED -> {
                CloseState cs = openCloses.get(((dev.vigil.journal.ContainmentKilled) e).closeId());
                if (cs != null) {
                    cs.kills.add((dev.vigil.journal.ContainmentKilled) e);
                }
            }
            case CLOSE_ENDED_BY_ORCHESTRATOR_DEATH -> closeEndedByDeath(index, (CloseEndedByOrchestratorDeath) e);
            case CLOSE_ABORTED -> closeAborted(index, (dev.vigil.journal.CloseAborted) e);
            case MAILBOX_RECOVERED -> mailboxRecovered((MailboxRecovered) e);
            case ORCHESTRATOR_DEATH_FOUND -> deathFound((dev.vigil.journal.OrchestratorDeathFound) e);
            case POOL_KEPT -> {
                PoolState p = pool(e.poolId()); // kept on purpose (leak mode): its report names them, `vigil reap` ends them
                p.children.clear();
                forgetIfIdle(p);
            }
            case CHILD_EXITED -> exitedDuringRun((ChildExited) e);
            case CHILD_RESTARTED, POOL_FAILED -> runEvent(pool(e.poolId()), e);
            case JOURNAL_SET_ASIDE -> listener.journalSetAside(index, (dev.vigil.journal.JournalSetAside) e);
            default -> {
                // commands, admission and spawn failures do not change a close's outcome
            }
        }
    }

    /**
     * The journal ended: every close still in progress is handed over incomplete, and what can
     * only be judged at the end (unexplained seq gaps, unfinished closes) is reported.
     */
    public void finish() {
        finish(-1);
    }

    /**
     * Like {@link #finish()} for a journal still being written: a close that {@code liveOrchestratorPid} (the
     * orchestrator running when the read began, {@link dev.vigil.replay.source.EventSource#liveOrchestratorPid})
     * started and the journal does not complete yet is in progress ({@link RebuiltClose#inProgressBy()}), not a
     * {@code CLOSE_NOT_COMPLETED}. -1: no orchestrator runs, the journal is all there is.
     */
    public void finish(int liveOrchestratorPid) {
        for (CloseState cs : new ArrayList<>(openCloses.values())) {
            RebuiltClose rc = cs.rebuild(null, lastIndex);
            if (liveOrchestratorPid > 0 && cs.started.orchestratorPid() == liveOrchestratorPid) {
                rc.inProgressBy = liveOrchestratorPid;
            } else {
                violation(Violation.Rule.CLOSE_NOT_COMPLETED, cs.startIndex, cs.started.timeNanos(), cs.started.poolId(),
                        cs.started.closeId(), "close " + cs.started.closeId(),
                        "close started and the journal ends without its completion; not reaped: " + unreaped(cs));
            }
            listener.closeRebuilt(rc);
        }
        openCloses.clear();
        for (PoolState p : pools.values()) {
            for (Map.Entry<ChildKey, MailboxState> m : p.mailboxes.entrySet()) {
                reportGaps(p.poolId, m.getKey(), m.getValue());
            }
            if (p.openClose == null) { // a close still open is CLOSE_NOT_COMPLETED or in progress, above
                reportNeverClosed(p, liveOrchestratorPid);
            }
        }
    }

    /**
     * A pool whose children the journal shows spawned and never reaped, with no close of it open (those are
     * CLOSE_NOT_COMPLETED), not kept on purpose and not ended by a later orchestrator's recovery: its orchestrator
     * died outside any close, and nothing in the journal says what became of its children. Not while the
     * orchestrator that spawned them still runs (the run goes on).
     */
    private void reportNeverClosed(PoolState p, int liveOrchestratorPid) {
        List<String> unreaped = new ArrayList<>();
        TrackedChild first = null;
        for (Map.Entry<ChildKey, TrackedChild> c : p.children.entrySet()) {
            TrackedChild t = c.getValue();
            if (!t.exitedDuringRun() && t.orchestratorPid() != liveOrchestratorPid && !p.survivorsReported.contains(t)) {
                unreaped.add(c.getKey() + " pid " + t.pid());
                first = first == null || t.spawnIndex() < first.spawnIndex() ? t : first;
            }
        }
        if (first != null) {
            Collections.sort(unreaped);
            violation(Violation.Rule.POOL_NOT_CLOSED, first.spawnIndex(), first.spawnTimeNanos(), p.poolId, 0,
                    "pool " + p.poolId, "the journal ends with " + unreaped.size() + " child(ren) spawned by orchestrator pid "
                            + first.orchestratorPid() + " and never reaped, in no close and no later recovery"
                            + " (the orchestrator died outside a close; bin/vigil reap on this journal dir ends and"
                            + " journals what it left): " + String.join(", ", unreaped));
        }
    }

    /**
     * A later orchestrator's recovery: every process of the dead one is gone (its containment killed), so the
     * children it spawned are no longer the journal's open question (its open closes end by CloseEndedByOrchestratorDeath).
     */
    private void deathFound(dev.vigil.journal.OrchestratorDeathFound e) {
        for (PoolState p : new ArrayList<>(pools.values())) {
            p.children.values().removeIf(t -> t.orchestratorPid() != e.orchestratorPid());
            forgetIfIdle(p);
        }
    }

    /**
     * Post-mortem (the orchestrator died before journaling everything): reads every mailbox still
     * tracked out of the mailbox map file, keeps its final words for the closes in progress, and
     * folds in the ring records the journal does not hold yet, as if they had been drained. Call
     * before {@link #finish}. Mailboxes no longer in the file are skipped.
     */
    public void finishFromMap(MailboxMapFile map) {
        for (PoolState p : new ArrayList<>(pools.values())) {
            for (Map.Entry<ChildKey, MailboxState> e : new ArrayList<>(p.mailboxes.entrySet())) {
                MailboxState m = e.getValue();
                if (m.offset < 0) {
                    continue;
                }
                MailboxMapFile.Finding found = map.readFor(m.offset, m.pid, m.spawnEpoch);
                ChildHistory ch = p.openClose == null ? null : p.openClose.children.get(e.getKey());
                if (ch != null) {
                    ch.finalWords = found.mailbox();
                    ch.mapNote = found.note();
                }
                MailboxMapFile.Mailbox mailbox = found.mailbox();
                if (mailbox == null) {
                    listener.mapNote(p.poolId, e.getKey(), found.note());
                    continue;
                }
                for (MailboxMapFile.RingRecord r : mailbox.ring()) {
                    MailboxTransition last = m.last;
                    if (last != null && (r.seq() < last.seq() || (r.seq() == last.seq() && r.from() == last.fromState()
                            && r.to() == last.toState() && r.writer().equals(last.writer())))) {
                        continue; // already journaled
                    }
                    accept(-1, new MailboxTransition(r.timeNanos(), 0, p.poolId, 0, e.getKey().group(),
                            e.getKey().index(), r.seq(), r.from(), r.to(), r.writer(), r.writerPid()));
                }
            }
        }
    }

    private static String unreaped(CloseState cs) {
        List<String> out = new ArrayList<>();
        for (ChildHistory c : cs.children.values()) {
            if (c.reaped == null) {
                out.add(c.key() + " pid " + c.pid());
            }
        }
        return out.isEmpty() ? "none" : String.join(", ", out);
    }

    private PoolState pool(String poolId) {
        return pools.computeIfAbsent(poolId, PoolState::new);
    }

    private void spawned(long index, ChildSpawned e) {
        PoolState p = pool(e.poolId());
        ChildKey k = new ChildKey(e.group(), e.index());
        p.children.put(k, new TrackedChild(e.pid(), e.kind(), e.mailboxOffset(), e.spawnEpoch(), false, e.orchestratorPid(),
                index, e.timeNanos()));
        if (e.mailboxOffset() >= 0) {
            MailboxState fresh = new MailboxState();
            fresh.offset = e.mailboxOffset();
            fresh.pid = e.pid();
            fresh.spawnEpoch = e.spawnEpoch();
            MailboxState old = p.mailboxes.put(k, fresh);
            if (old != null) {
                reportGaps(p.poolId, k, old);
            }
        }
    }

    /**
     * A child exited while its pool ran: still covered by the pool's next close (which reports it reaped), unless a
     * restart replaces it first (its mailbox is then released outside any close, after this exit).
     */
    private void exitedDuringRun(ChildExited e) {
        PoolState p = pool(e.poolId());
        p.children.computeIfPresent(new ChildKey(e.group(), e.index()),
                (k, t) -> t.pid() == e.pid() ? new TrackedChild(t.pid(), t.kind(), t.mailboxOffset(), t.spawnEpoch(), true,
                        t.orchestratorPid(), t.spawnIndex(), t.spawnTimeNanos()) : t);
        runEvent(p, e);
    }

    /** Exits, restarts and a failure between two closes of a pool: handed to its next close. */
    private static void runEvent(PoolState p, JournalEvent e) {
        if (p.runEvents.size() >= RUN_EVENTS_KEPT) {
            p.runEvents.remove(0);
            p.runEventsDropped++;
        }
        p.runEvents.add(e);
    }

    /** One transition; {@code position} is its place in the batch at {@code index} (-1: an event of its own). */
    private void transition(long index, int position, MailboxTransition t) {
        PoolState p = pool(t.poolId());
        ChildKey k = new ChildKey(t.group(), t.index());
        MailboxState m = p.mailboxes.computeIfAbsent(k, x -> new MailboxState());
        MailboxTransition prev = m.last;
        // Built only when a violation needs it: one string per transition was a large part of a long audit's CPU.
        java.util.function.Supplier<String> where = () -> "mailbox " + t.poolId() + " " + k;
        if (prev != null) {
            // Across a seq gap the transitions in between are unknown (a RingOverrun names them, or the gap is
            // reported as unexplained): what this one read is no evidence of a lost update.
            boolean adjacent = t.seq() <= prev.seq() + 1;
            if (adjacent && t.fromState() != prev.toState()) {
                violation(Violation.Rule.LOST_UPDATE, index, position, t, where.get(), "seq " + t.seq() + " " + describe(t)
                        + " read " + MailboxStates.name(t.fromState()) + ", but the previous transition (seq "
                        + prev.seq() + " " + describe(prev) + ") had left " + MailboxStates.name(prev.toState())
                        + (t.seq() == prev.seq() ? "; both writers computed seq " + t.seq() + " from the same read" : ""));
            } else if (t.seq() <= prev.seq()) {
                violation(Violation.Rule.SEQ_NOT_INCREASING, index, position, t, where.get(), "seq " + t.seq() + " " + describe(t)
                        + " follows seq " + prev.seq());
            }
            if (t.seq() > prev.seq() + 1) {
                m.gaps.add(new long[] {prev.seq() + 1, t.seq() - 1, index, t.timeNanos(), position});
                m.dropExplainedGaps();
            }
        }
        boolean closer = WRITER_CLOSER.equals(t.writer());
        if (closer && "sticky".equalsIgnoreCase(p.mode)) {
            violation(Violation.Rule.STATE_WRITTEN_BY_CLOSER, index, position, t, where.get(), "seq " + t.seq() + " " + describe(t)
                    + " in a sticky-mode pool, where the closer never writes the state word");
        }
        // Transitions are drained from rings, so one made before the publication may be journaled after it: judge by time.
        if (m.shutdownWordAt != 0 && t.timeNanos() > m.shutdownWordAt && !WRITER_CHILD.equals(t.writer()) && !closer) {
            violation(Violation.Rule.WRITE_AFTER_SHUTDOWN, index, position, t, where.get(), "seq " + t.seq() + " " + describe(t)
                    + " after the shutdown word was published");
        }
        CloseState cs = p.openClose;
        ChildHistory ch = cs == null ? null : cs.children.get(k);
        if (m.legacyShutdownInWord && t.toState() != MailboxStates.SHUTDOWN) {
            violation(Violation.Rule.WRITE_AFTER_SHUTDOWN, index, position, t, where.get(), "SHUTDOWN overwritten by "
                    + t.writer().toLowerCase() + " pid " + t.writerPid() + " " + MailboxStates.name(t.toState())
                    + " at seq " + t.seq());
            m.legacyShutdownInWord = false;
            if (ch != null && ch.shutdownOverwrite == null) {
                ch.shutdownOverwrite = t;
            }
        }
        if (closer && t.toState() == MailboxStates.SHUTDOWN) {
            m.legacyShutdownWrites++;
            shutdownWritten(index, position, t.timeNanos(), t.poolId(), t.closeId(), where.get(), m.legacyShutdownWrites,
                    "legacy SHUTDOWN at seq " + t.seq());
            m.legacyShutdownInWord = true;
        }
        m.last = t;
        m.remember(t);
        if (ch != null) {
            ch.transition(t);
        }
    }

    private static String describe(MailboxTransition t) {
        return t.writer() + " pid " + t.writerPid() + " " + MailboxStates.name(t.fromState()) + "->"
                + MailboxStates.name(t.toState());
    }

    private void shutdownWritten(long index, int position, long time, String poolId, long closeId, String where,
            int writes, String what) {
        if (writes > 1) {
            violation(Violation.Rule.SHUTDOWN_WRITTEN_TWICE, index, position, time, poolId, closeId, where,
                    what + " is shutdown write number " + writes + " to this mailbox");
        }
    }

    private void overrun(RingOverrun e) {
        MailboxState m = pool(e.poolId()).mailboxes.get(new ChildKey(e.group(), e.index()));
        if (m != null) {
            m.overruns.add(new long[] {e.firstLostSeq(), e.lastLostSeq()});
            m.dropExplainedGaps();
        }
    }

    private void reportGaps(String poolId, ChildKey k, MailboxState m) {
        m.dropExplainedGaps();
        for (long[] g : m.gaps) {
            violation(Violation.Rule.SEQ_GAP, g[2], (int) g[4], g[3], poolId, 0, "mailbox " + poolId + " " + k,
                    "seq " + g[0] + ".." + g[1] + " missing and no ring overrun journaled for them");
        }
        m.gaps.clear();
    }

    private void closeStarted(long index, CloseStarted e) {
        PoolState p = pool(e.poolId());
        boolean detail = e.closeId() == detailCloseId;
        CloseState cs = new CloseState(e, index, p.mode);
        cs.runEvents.addAll(p.runEvents);
        cs.runEventsDropped = p.runEventsDropped;
        p.runEvents.clear();
        p.runEventsDropped = 0;
        for (Map.Entry<ChildKey, TrackedChild> c : p.children.entrySet()) {
            MailboxState m = p.mailboxes.get(c.getKey());
            cs.children.put(c.getKey(), new ChildHistory(c.getKey(), c.getValue().pid, c.getValue().kind,
                    c.getValue().mailboxOffset, c.getValue().spawnEpoch, e.timeNanos(), MailboxState.recent(m), detail));
        }
        p.openClose = cs;
        openCloses.put(e.closeId(), cs);
        listener.closeStarted(e, index);
    }

    /** The child of a close an event names; children the journal never showed spawned are added as met. */
    private ChildHistory closeChild(long closeId, String poolId, String group, int index, int pid) {
        CloseState cs = closeId != 0 ? openCloses.get(closeId) : pool(poolId).openClose;
        if (cs == null || !cs.started.poolId().equals(poolId)) {
            return null;
        }
        ChildKey k = new ChildKey(group, index);
        ChildHistory ch = cs.children.get(k);
        if (ch == null) {
            PoolState p = pool(poolId);
            TrackedChild t = p.children.get(k);
            MailboxState m = p.mailboxes.get(k);
            ch = new ChildHistory(k, t == null ? pid : t.pid, t == null ? "UNKNOWN" : t.kind,
                    t == null ? -1 : t.mailboxOffset, t == null ? 0 : t.spawnEpoch, cs.started.timeNanos(),
                    MailboxState.recent(m),
                    cs.started.closeId() == detailCloseId);
            cs.children.put(k, ch);
        }
        ch.learnPid(pid);
        return ch;
    }

    private void published(long index, ShutdownPublished e) {
        ChildHistory ch = closeChild(e.closeId(), e.poolId(), e.group(), e.index(), e.pid());
        if (ch != null && ch.published == null) {
            ch.published = e;
        }
        if (CHANNEL_SHUTDOWN_WORD.equals(e.channel()) && e.casWon()) {
            ChildKey k = new ChildKey(e.group(), e.index());
            MailboxState m = pool(e.poolId()).mailboxes.computeIfAbsent(k, x -> new MailboxState());
            m.shutdownWordWrites++;
            shutdownWritten(index, -1, e.timeNanos(), e.poolId(), e.closeId(), "mailbox " + e.poolId() + " " + k,
                    m.shutdownWordWrites, "shutdown word CAS (epoch " + e.epoch() + ")");
            if (m.shutdownWordAt == 0) {
                m.shutdownWordAt = e.timeNanos();
            }
        }
    }

    private void acked(ChildAcked e) {
        ChildHistory ch = closeChild(e.closeId(), e.poolId(), e.group(), e.index(), e.pid());
        if (ch != null && ch.acked == null) {
            ch.acked = e;
        }
    }

    private void reaped(ChildReaped e) {
        PoolState p = pool(e.poolId());
        ChildKey k = new ChildKey(e.group(), e.index());
        p.children.remove(k);
        boolean inClose = e.closeId() != 0 || (p.openClose != null && p.openClose.children.containsKey(k));
        ChildHistory ch = inClose ? closeChild(e.closeId(), e.poolId(), e.group(), e.index(), e.pid()) : null;
        if (ch != null && ch.reaped == null) {
            ch.reaped = e;
        }
        forgetIfIdle(p);
    }

    private void diagnosed(SurvivorDiagnosed e) {
        ChildHistory ch = closeChild(e.closeId(), e.poolId(), e.group(), e.index(), e.pid());
        if (ch != null) {
            ch.diagnosed = e;
        }
    }

    private void escalated(EscalationSent e) {
        ChildHistory ch = closeChild(e.closeId(), e.poolId(), e.group(), e.index(), e.pid());
        if (ch != null && ch.reaped == null) {
            ch.escalatedBeforeReap = true;
            ch.escalations.add(e);
        }
    }

    private void released(long index, MailboxReleased e) {
        PoolState p = pool(e.poolId());
        ChildKey k = new ChildKey(e.group(), e.index());
        TrackedChild live = p.children.get(k);
        if (live != null && !live.exitedDuringRun()) {
            violation(Violation.Rule.RELEASED_BEFORE_REAP, index, e.timeNanos(), e.poolId(), e.closeId(),
                    "mailbox " + e.poolId() + " " + k, "released while child pid " + live.pid + " was not reaped");
        }
        ChildHistory ch = closeChild(e.closeId(), e.poolId(), e.group(), e.index(), 0);
        if (ch != null) {
            ch.released = e;
        }
        MailboxState m = p.mailboxes.remove(k);
        if (m != null) {
            reportGaps(p.poolId, k, m);
        }
        forgetIfIdle(p);
    }

    private void strayFound(StrayFound e) {
        CloseState cs = openCloses.get(e.closeId());
        if (cs != null) {
            cs.strays.add(e);
        }
    }

    /**
     * The next orchestrator's recovery ended a close whose orchestrator died: it is rebuilt as ended by that
     * death (no completion, no CLOSE_NOT_COMPLETED violation), and the pool's unreaped children are forgotten
     * (the recovery made sure none is alive).
     */
    private void closeEndedByDeath(long index, CloseEndedByOrchestratorDeath e) {
        CloseState cs = openCloses.remove(e.closeId());
        if (cs == null) {
            return;
        }
        PoolState p = detach(cs);
        cs.endedByDeath = e;
        listener.closeRebuilt(cs.rebuild(null, index));
        p.children.clear();
        forgetIfIdle(p);
    }

    /**
     * A close that failed inside the orchestrator ends here, without a report (ABORTED), and is named as a violation:
     * the orchestrator, not a child, broke the close. Its unreaped children stay with the pool (its next close
     * takes them).
     */
    private void closeAborted(long index, dev.vigil.journal.CloseAborted e) {
        violation(Violation.Rule.CLOSE_ABORTED, index, e.timeNanos(), e.poolId(), e.closeId(), "close " + e.closeId(),
                "the close failed inside the orchestrator (pid " + e.orchestratorPid() + ") with " + e.unreaped()
                        + " child(ren) not reaped: " + e.reason());
        CloseState cs = openCloses.remove(e.closeId());
        if (cs == null) {
            return; // failed before its CloseStarted, or the journal begins inside it: named above all the same
        }
        PoolState p = detach(cs);
        RebuiltClose rc = cs.rebuild(null, index);
        rc.aborted = e;
        listener.closeRebuilt(rc);
        forgetIfIdle(p);
    }

    /** The pool of {@code cs}, which no longer has it as its open close ({@code cs} ended, with or without a report). */
    private PoolState detach(CloseState cs) {
        PoolState p = pool(cs.started.poolId());
        if (p.openClose == cs) {
            p.openClose = null;
        }
        return p;
    }

    private void mailboxRecovered(MailboxRecovered e) {
        PoolState p = pools.get(e.poolId());
        if (p != null) {
            p.mailboxes.remove(new ChildKey(e.group(), e.index()));
            forgetIfIdle(p);
        }
    }

    private void closeCompleted(long index, CloseCompleted e) {
        CloseState cs = openCloses.remove(e.closeId());
        if (cs == null) {
            return; // the journal begins inside this close: nothing to rebuild it from
        }
        PoolState p = detach(cs);
        p.survivorsReported = survivors(p, cs); // they stay tracked for the next close, named in this report
        RebuiltClose rc = cs.rebuild(e, index);
        checkAgainstLiveReport(index, rc);
        for (String d : cs.decisions.differences()) {
            violation(Violation.Rule.DECISION_MISMATCH, index, e.timeNanos(), e.poolId(), e.closeId(), "close " + e.closeId(), d);
        }
        listener.closeRebuilt(rc);
        forgetIfIdle(p);
    }

    /** The children of {@code cs} still tracked by its pool once it completed: its survivors. */
    private static Set<TrackedChild> survivors(PoolState p, CloseState cs) {
        Set<TrackedChild> out = new HashSet<>();
        for (ChildKey k : cs.children.keySet()) {
            TrackedChild t = p.children.get(k);
            if (t != null) {
                out.add(t);
            }
        }
        return out;
    }

    private void checkAgainstLiveReport(long index, RebuiltClose rc) {
        CloseCompleted e = rc.completed();
        String where = "close " + e.closeId();
        CloseOutcome live;
        try {
            live = rc.liveReport();
        } catch (ReplayInputException bad) {
            violation(Violation.Rule.REPORT_MISMATCH, index, e.timeNanos(), e.poolId(), e.closeId(), where,
                    bad.getMessage());
            return;
        }
        Set<ChildKey> reportedSurvivors = new java.util.HashSet<>();
        for (ChildOutcome c : live.children()) {
            if (ChildOutcome.SURVIVOR.equals(c.outcome())) {
                reportedSurvivors.add(c.key());
            }
        }
        for (ChildHistory c : rc.children()) {
            if (c.reaped() == null && !reportedSurvivors.contains(c.key())) {
                violation(Violation.Rule.CHILD_UNACCOUNTED, index, e.timeNanos(), e.poolId(), e.closeId(), where,
                        "child " + c.key() + " pid " + c.pid() + " was neither reaped nor reported as a survivor");
            }
        }
        for (String d : rc.outcome().differencesFrom(live)) {
            violation(Violation.Rule.REPORT_MISMATCH, index, e.timeNanos(), e.poolId(), e.closeId(), where, d);
        }
    }

    private void forgetIfIdle(PoolState p) {
        if (p.children.isEmpty() && p.mailboxes.isEmpty() && p.openClose == null && p.runEvents.isEmpty()) {
            pools.remove(p.poolId);
        }
    }

    /** A transition's violation, attributed to the close of its pool in progress when it carries none. */
    private void violation(Violation.Rule rule, long index, int position, MailboxTransition t, String where,
            String evidence) {
        CloseState open = t.closeId() != 0 ? null : pools.get(t.poolId()) == null ? null : pools.get(t.poolId()).openClose;
        violation(rule, index, position, t.timeNanos(), t.poolId(), open == null ? t.closeId() : open.started.closeId(),
                where, evidence);
    }

    private void violation(Violation.Rule rule, long index, long time, String poolId, long closeId, String where,
            String evidence) {
        violation(rule, index, -1, time, poolId, closeId, where, evidence);
    }

    private void violation(Violation.Rule rule, long index, int position, long time, String poolId, long closeId,
            String where, String evidence) {
        listener.violation(new Violation(rule, index, position, time, poolId, closeId, where, evidence));
    }

    /** Index of the last event folded in. */
    public long lastIndex() {
        return lastIndex;
    }

    /** Time of the last event folded in. */
    public long lastTimeNanos() {
        return lastTime;
    }

    private static final class PoolState {
        final String poolId;
        String mode = "unknown";
        final Map<ChildKey, TrackedChild> children = new HashMap<>();
        final Map<ChildKey, MailboxState> mailboxes = new HashMap<>();
        CloseState openClose;
        /**
         * The children its last completed close did not reap, which its report names (survivors): these very children,
         * not their group and index, which the pool's next cycle spawns again.
         */
        Set<TrackedChild> survivorsReported = Set.of();
        /** ChildExited, ChildRestarted, PoolFailed since the pool's last close started (the latest RUN_EVENTS_KEPT). */
        final List<JournalEvent> runEvents = new ArrayList<>(0);
        int runEventsDropped;

        PoolState(String poolId) {
            this.poolId = poolId;
        }
    }

    /**
     * A spawned child not yet reaped by a close; exitedDuringRun once a ChildExited said it ended during the run; the
     * orchestrator that spawned it, and its ChildSpawned's journal index and time.
     */
    private record TrackedChild(int pid, String kind, long mailboxOffset, long spawnEpoch, boolean exitedDuringRun,
            int orchestratorPid, long spawnIndex, long spawnTimeNanos) {
    }

    /** What the audit must remember of one mailbox: its last transition and its shutdown history. */
    private static final class MailboxState {
        /** How many of a mailbox's latest transitions a close that starts is built from (see {@link ChildHistory}). */
        private static final int RECENT = 8;
        long offset = -1;
        /** The child the journal shows in this mailbox: its pid and its mailbox's spawn epoch (0: not known). */
        int pid;
        long spawnEpoch;
        MailboxTransition last;
        /** The latest transitions, oldest first, at most {@link #RECENT}. */
        private final java.util.ArrayDeque<MailboxTransition> recent = new java.util.ArrayDeque<>(RECENT);
        /** When the shutdown word was published (0: not yet). */
        long shutdownWordAt;
        boolean legacyShutdownInWord;
        int shutdownWordWrites;
        int legacyShutdownWrites;
        /** {firstMissingSeq, lastMissingSeq, index, timeNanos, position} not yet explained by an overrun. */
        final List<long[]> gaps = new ArrayList<>(0);
        /** {firstLostSeq, lastLostSeq} journaled and not yet matched to a gap. */
        final List<long[]> overruns = new ArrayList<>(0);

        void remember(MailboxTransition t) {
            if (recent.size() == RECENT) {
                recent.pollFirst();
            }
            recent.addLast(t);
        }

        static Iterable<MailboxTransition> recent(MailboxState m) {
            return m == null ? List.of() : m.recent;
        }

        void dropExplainedGaps() {
            for (Iterator<long[]> it = gaps.iterator(); it.hasNext();) {
                long[] g = it.next();
                for (long[] o : overruns) {
                    if (o[0] <= g[0] && o[1] >= g[1]) {
                        it.remove();
                        break;
                    }
                }
            }
            long lastSeq = last == null ? Long.MIN_VALUE : last.seq();
            overruns.removeIf(o -> o[1] < lastSeq && gaps.isEmpty());
        }
    }

    private static final class CloseState {
        final CloseStarted started;
        final long startIndex;
        final String mode;
        final Map<ChildKey, ChildHistory> children = new TreeMap<>();
        final List<InFlightSettled> settled = new ArrayList<>();
        AdmissionFenced fenced;
        /** The close's decisions re-run from its journaled inputs. */
        final CloseDecisionAudit decisions;
        final List<StrayFound> strays = new ArrayList<>();
        final List<dev.vigil.journal.ContainmentKilled> kills = new ArrayList<>();
        final List<dev.vigil.journal.ContainmentEscaped> escapes = new ArrayList<>();
        CloseEndedByOrchestratorDeath endedByDeath;
        final List<JournalEvent> runEvents = new ArrayList<>(0);
        int runEventsDropped;
        EscalateNowRequested escalateNow;

        CloseState(CloseStarted started, long startIndex, String mode) {
            this.started = started;
            this.decisions = new CloseDecisionAudit(started);
            this.startIndex = startIndex;
            this.mode = mode;
        }

        RebuiltClose rebuild(CloseCompleted completed, long endIndex) {
            RebuiltClose rc = new RebuiltClose(started, startIndex, mode, new ArrayList<>(children.values()), strays,
                    kills, completed, endedByDeath, endIndex, fenced, settled, runEvents, runEventsDropped);
            rc.escalateNow = escalateNow;
            rc.escapes = List.copyOf(escapes);
            return rc;
        }
    }
}
