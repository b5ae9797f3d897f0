package dev.vigil.close;

import dev.vigil.journal.JournalException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import dev.vigil.close.decision.ChildWatch;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.close.decision.EscalationStep;
import dev.vigil.close.decision.MailboxWords;
import dev.vigil.close.decision.ProcSnapshot;
import dev.vigil.close.decision.ReapBudget;
import dev.vigil.close.decision.SurvivorDiagnosis;
import dev.vigil.close.decision.SurvivorEvidence;
import dev.vigil.journal.AdmissionFenced;
import dev.vigil.contain.ContainedProcess;
import dev.vigil.contain.ContainmentMode;
import dev.vigil.contain.PoolContainment;
import dev.vigil.journal.BudgetSpent;
import dev.vigil.journal.CloseAborted;
import dev.vigil.journal.ChildAcked;
import dev.vigil.journal.ChildOutputTail;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.CommandIssued;
import dev.vigil.journal.ContainmentEscaped;
import dev.vigil.journal.ContainmentKilled;
import dev.vigil.journal.EscalateNowRequested;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.HeartbeatSeen;
import dev.vigil.journal.MailboxReleased;
import dev.vigil.journal.ShutdownPublished;
import dev.vigil.journal.StrayFound;
import dev.vigil.journal.SurvivorDiagnosed;
import dev.vigil.spawn.internal.Linux;

/**
 * The close logic as one state machine over every close in progress: single-threaded, it never waits. Each
 * input (a close requested, a child exited, an operation settled, a tick, escalate-now, a late child joined)
 * moves the closes it concerns as far as they can go now, and emits journal events and effects (CAS of shutdown
 * words, signals, mailbox releases, the caller's future) through {@link ClosingChild} and {@link CloseTarget}.
 * The time comes from an injected clock, so tests drive it with a virtual one.
 *
 * <pre>
 *  requested -> REAPING --all reaped---------------------------> SWEEPING --container settled--> SETTLING --ops ended,
 *                  | budget spent / escalate-now: BudgetSpent, diagnose    ^                                  released--> report
 *                  v                                                        |
 *               ESCALATING: each EscalationStep, then its wait --all reaped or steps done
 * </pre>
 *
 * A reaped child's mailbox is freed at the end of the batch of inputs that reaped it, while the others still exit, once
 * the operations caught by the fence on it ended and no fork of it can hold it ({@link #endOfBatch}); SETTLING, after
 * the stray sweep, frees what the reaps could not.
 *
 * SWEEPING (pools with a container): a kill of the container awaits {@code populated 0} (bounded), journaled as
 * ContainmentKilled with what it covered; then the container is swept for strays, processes left in it whose own
 * parent is gone (a daemon, a double fork of a reaped child): StrayFound each; under TERM_THEN_KILL SIGTERM each,
 * the grace, then the container's kill. A close is clean only when its container held nothing else.
 *
 * The budget counts as progress: a reap (at its journaled time), a first ack (ChildAcked) and, for a child that
 * acked, a heartbeat advance (HeartbeatSeen, at most one per child per {@link #BEAT_PROGRESS_DIVISOR}th of the
 * window). It only ever counts what it journals, so the replay re-derives the same decision from the journal.
 */
final class CloseMachine {
    /** How long a close waits, after killing its pool's container, for the kernel to empty it. */
    static final long CONTAINER_EMPTY_BOUND_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);

    /**
     * Processes still in the container after every reap may be dying with their parent (a pipe closed, a
     * PDEATHSIG): they count as strays only when still there this long after they were first seen.
     */
    static final long STRAY_SETTLE_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(150);

    /** A beat is journaled (and counted) at most once per window / this, per child. */
    static final int BEAT_PROGRESS_DIVISOR = 20;

    /** Inputs the machine causes itself; the engine queues them behind the input being handled. */
    interface Inputs {
        void childExited(Run run, Track track, ChildExit exit);

        void settled(long closeId);

        void evidenceCaptured(long closeId);

        /** The close waits for {@code c}'s exit: the engine may watch its pidfd itself (its exit still comes as an input). */
        default void watchExit(ClosingChild c) {
        }

        /** The close no longer waits for {@code c} (it ended with {@code c} a survivor): back to the reaper. */
        default void unwatchExit(ClosingChild c) {
        }

        /**
         * Collects, now, the exits of watched children that are ready but not yet handed over (their exit stages
         * complete here; their inputs follow): called before an escalation, so a child that already exited on its own
         * is not signalled and counted as killed by it.
         */
        default void collectReadyExits() {
        }
    }

    /**
     * Captures evidence about survivors before the first escalation signal (e.g. their stacks), or under LEAK before
     * the close ends with them kept. Called on the engine's thread: start the work elsewhere and complete the returned
     * stage when done; the escalation (or the close) waits for it (at most the grace period, or the hook's bound).
     */
    public interface BeforeEscalation {
        /** Completes with a one-line summary per survivor for the report (missing entries: none). */
        CompletableFuture<? extends Map<ClosingChild, String>> capture(String poolId, long closeId,
                List<ClosingChild> survivors);

        /** How long the escalation waits for the capture, at most; the close's grace when longer. */
        default long boundNanos() {
            return 0;
        }
    }

    enum Phase { REAPING, ESCALATING, SWEEPING, SETTLING, DONE }

    /** Indexes of {@link Run#at}: when each phase of a close ended, nanoseconds from its request (ClosePhaseEvent). */
    static final class Stamp {
        static final int ENGINE_START = 0;
        static final int TOLD = 1;
        static final int PUBLISHED = 2;
        static final int LAST_REAP = 3;
        static final int LAST_EXIT = 4;
        static final int SWEPT = 5;
        static final int SETTLED = 6;
        static final int REPORTED = 7;
        static final int FINISHED = 8;
        static final int COMPLETED = 9;
        static final int COUNT = 10;

        private Stamp() {
        }
    }

    private final CloseJournal journal;
    private final Inputs inputs;
    private final LongSupplier clock;
    private final Map<Long, Run> runs = new LinkedHashMap<>();
    private volatile int running;
    private long idleSinceNanos;
    private volatile BeforeEscalation beforeEscalation;
    /** What undoes a cut mapped file and says so (null: nothing cut), before each close and after a memory fault. */
    private volatile java.util.function.Supplier<String> mappedFileRepair = () -> null;
    /** Set by {@link #escalateAll}: every close requested later escalates at once too. */
    private String escalateAllOrigin;

    CloseMachine(CloseJournal journal, Inputs inputs, LongSupplier clock) {
        this.journal = journal;
        this.inputs = inputs;
        this.clock = clock;
    }

    void beforeEscalation(BeforeEscalation hook) {
        this.beforeEscalation = hook;
    }

    /** Closes in progress (readable from any thread). */
    int running() {
        return running;
    }

    boolean idle() {
        return runs.isEmpty();
    }

    /** True while close {@code closeId} runs here. */
    boolean has(long closeId) {
        return runs.containsKey(closeId);
    }

    /** Aborts every close in progress ({@code reason}: the engine gave up), as a failure inside each would. */
    void abortAll(String reason) {
        for (Run run : new ArrayList<>(runs.values())) {
            abort(run, reason, new CloseEngineFailedException(run.poolId(), run.closeId, reason));
        }
    }

    /** When the last close ended ({@link #idle} since then, if it is), on the machine's clock; 0 before any did. */
    long idleSinceNanos() {
        return idleSinceNanos;
    }

    // ------------------------------------------------------------------ inputs

    void closeRequested(CloseTarget target, long closeId, CompletableFuture<CloseReport> result) {
        closeRequested(target, closeId, result, clock.getAsLong());
    }

    /** Restores a mapped file cut short, if one was (and says so): null when nothing was cut. */
    String repairMappedFiles() {
        return mappedFileRepair.get();
    }

    /** See {@link CloseEngine#repairMappedFilesWith}. */
    void repairMappedFilesWith(java.util.function.Supplier<String> repair) {
        mappedFileRepair = repair;
    }

    /** A close requested at {@code requestedNanos} (the caller's submit: the phases are timed from it). */
    void closeRequested(CloseTarget target, long closeId, CompletableFuture<CloseReport> result, long requestedNanos) {
        Run run = new Run(target, closeId, result, requestedNanos);
        run.at[Stamp.ENGINE_START] = clock.getAsLong() - requestedNanos;
        runs.put(closeId, run);
        running = runs.size();
        guarded(run, () -> {
            mappedFileRepair.get(); // a file cut before the close would fault its first shutdown publication
            start(run);
            if (escalateAllOrigin != null) {
                hurry(run, escalateAllOrigin, clock.getAsLong());
            }
        }, false);
    }

    void childExited(Run run, Track t, ChildExit exit) {
        if (runs.get(run.closeId) != run) {
            return;
        }
        guarded(run, () -> {
            long now = clock.getAsLong();
            spendIfDue(run, now);
            reaped(run, t, exit, now);
            advance(run, now);
        });
    }

    /** A child joined close {@code closeId} late (see {@link CloseTarget#takeLateJoiners}): take it now. */
    void childJoined(long closeId) {
        Run run = runs.get(closeId);
        if (run != null) {
            guarded(run, () -> advance(run, clock.getAsLong()));
        }
    }

    /** Broadcasts to the late joiners of {@code run}; true if any new child is now waited for. */
    private boolean takeLateJoiners(Run run, long now) {
        boolean any = false;
        for (ClosingChild c : run.target.takeLateJoiners()) {
            if (!run.members.containsKey(c)) {
                broadcast(run, c, now);
                any = true;
            }
        }
        if (any && (run.phase == Phase.SETTLING || run.phase == Phase.SWEEPING) && run.unreaped() > 0) {
            // It joined after the others were gone (the close sweeping or settling): it gets the same wait for its
            // exit, from now. Without this a joiner taken while SWEEPING was reported a SURVIVOR at once.
            run.phase = Phase.REAPING;
            run.budget.progress(now);
        }
        return any;
    }

    void settled(long closeId) {
        Run run = runs.get(closeId);
        if (run != null) {
            guarded(run, () -> {
                releaseAwaiting(run);
                advance(run, clock.getAsLong());
            });
        }
    }

    void evidenceCaptured(long closeId) {
        Run run = runs.get(closeId);
        if (run != null) {
            run.evidencePending = false;
            guarded(run, () -> {
                Map<ClosingChild, String> summaries = run.evidence == null ? null : run.evidence.getNow(null);
                if (summaries != null) {
                    for (Track t : run.tracks) {
                        String s = summaries.get(t.child);
                        if (s != null) {
                            t.stacks = s;
                        }
                    }
                }
                advance(run, clock.getAsLong());
            });
        }
    }

    /** {@link #escalateNow(long, String)} from an API caller. */
    void escalateNow(long closeId) {
        escalateNow(closeId, "caller");
    }

    /**
     * The caller's escalate-now (a second Ctrl-C): journaled (EscalateNowRequested), then the close stops waiting:
     * in its reap it spends its budget, diagnoses and SIGKILLs the survivors at once whatever its policy
     * ({@link EscalationStep#escalateNowPlan}); already escalating, its next step goes now (no rest of the grace).
     */
    void escalateNow(long closeId, String origin) {
        Run run = runs.get(closeId);
        if (run != null) {
            guarded(run, () -> hurry(run, origin, clock.getAsLong()));
        }
    }

    /**
     * Escalate-now for every close in progress, and for every close requested from now on (the run is being
     * stopped: nothing is to wait any more).
     */
    void escalateAll(String origin) {
        escalateAllOrigin = origin;
        for (Run run : new ArrayList<>(runs.values())) {
            guarded(run, () -> hurry(run, origin, clock.getAsLong()));
        }
    }

    private void hurry(Run run, String origin, long now) {
        if (run.escalateNow || run.phase == Phase.DONE) {
            return;
        }
        run.escalateNow = true;
        journal.append(new EscalateNowRequested(now, pid(), run.poolId(), run.closeId, origin));
        if (run.phase == Phase.ESCALATING) {
            run.stepDeadline = now; // the next step (SIGKILL) goes now
        }
        if (run.phase == Phase.SWEEPING && run.strayTermDeadline != 0) {
            run.strayTermDeadline = now; // the strays' grace ends now: the container's kill goes
        }
        advance(run, now);
    }

    /** Samples acks and heartbeats of every close in its reap, and lets every close move on its deadlines. */
    void tick() {
        for (Run run : new ArrayList<>(runs.values())) {
            guarded(run, () -> {
                long now = clock.getAsLong();
                spendIfDue(run, now);
                if (run.phase == Phase.REAPING) {
                    sample(run, now);
                }
                releaseAwaiting(run);
                advance(run, now);
            });
        }
    }

    // ------------------------------------------------------------------ the machine

    private void start(Run run) {
        CloseSettings s = run.settings;
        long now = clock.getAsLong();
        run.startNanos = now;
        // Fence first, then take the children: a child added concurrently is either in this list or its adder
        // sees the fence and hands it over (childJoined).
        int inFlight = run.target.fenceAdmission(run.closeId, () -> inputs.settled(run.closeId));
        List<? extends ClosingChild> children = run.target.trackedChildren();
        journal.append(new CloseStarted(now, pid(), run.poolId(), run.closeId, children.size(), s.window().toNanos(),
                s.hardCap().toNanos(), s.fixedBudget().toNanos(), s.escalation().label(), runs.size()));
        journal.append(new AdmissionFenced(now, pid(), run.poolId(), run.closeId, inFlight));
        endEscapes(run, children);
        run.budget = s.newBudget(now);
        // Every child is told in one tight loop (CAS and doorbell, nothing else: its track is made first, the
        // deliveries are journaled after), so the last child of a large pool hears of the close as soon as the first.
        List<Track> told = new ArrayList<>(children.size());
        for (ClosingChild c : children) {
            Track t = track(run, c, now);
            if (t != null) {
                told.add(t);
            }
        }
        for (Track t : told) {
            // Every exit wakes this thread, not the reaper: watched before any child is told (the syscalls to move the
            // pidfds would otherwise come between the doorbells, with the woken children taking the cores)
            inputs.watchExit(t.child);
        }
        for (Track t : told) {
            t.delivery = t.child.deliverShutdown(run.closeId);
        }
        run.stamp(Stamp.TOLD, clock);
        for (Track t : told) {
            published(run, t);
        }
        run.stamp(Stamp.PUBLISHED, clock);
        advance(run, now);
    }

    /**
     * The children that left the pool's cgroup (a root child writing its pid into another cgroup.procs: the
     * container's kill no longer reaches it or what it forks there) are found before any is told, while they still
     * run: each was stopped with what is still tied to it ({@link PoolContainment#escapes}), and is now
     * journaled (ContainmentEscaped) and SIGKILLed, the child through its pidfd, whatever the policy (outside the
     * container, nothing would end it later: not the container's kill, not {@code vigil reap}). Its reap follows as
     * for any child; the close fails. One read of cgroup.procs per close when none left.
     */
    private void endEscapes(Run run, List<? extends ClosingChild> children) {
        PoolContainment container = run.target.containment();
        if (container == null) {
            return;
        }
        Map<Integer, ClosingChild> live = new LinkedHashMap<>();
        for (ClosingChild c : children) {
            if (!c.exit().isDone()) {
                live.put(c.pid(), c);
            }
        }
        for (dev.vigil.contain.Escape e : container.escapes(live.keySet())) {
            ClosingChild c = live.get(e.pid());
            String descendants = e.descendants().stream().map(String::valueOf)
                    .collect(java.util.stream.Collectors.joining(","));
            journal.append(new ContainmentEscaped(clock.getAsLong(), pid(), run.poolId(), run.closeId, c.group(),
                    c.index(), c.pid(), e.cgroup(), descendants));
            for (int d : e.descendants()) {
                Linux.calls().kill(d, EscalationStep.SIGKILL); // stopped: it cannot have forked since
            }
            c.signal(EscalationStep.SIGKILL);
            run.escapes.add(new CloseReport.Escape(c.group(), c.index(), c.pid(), e.cgroup(), descendants));
        }
    }

    private void broadcast(Run run, ClosingChild c, long now) {
        Track t = tell(run, c, now);
        if (t != null) {
            published(run, t);
        }
    }

    /** Tracks {@code c} and publishes the shutdown to it; null when it was gone already (then reaped at once). */
    private Track tell(Run run, ClosingChild c, long now) {
        Track t = track(run, c, now);
        if (t != null) {
            inputs.watchExit(c);
            t.delivery = c.deliverShutdown(run.closeId);
        }
        return t;
    }

    /**
     * Tracks {@code c}, to be told next (the epoch of its shutdown is the close id: non-zero, unique, and it tells the
     * replay which close won the word); null when it was gone already (then reaped at once: nothing to tell it).
     */
    private Track track(Run run, ClosingChild c, long now) {
        Track t = new Track(c);
        run.members.put(c, t);
        run.tracks.add(t);
        run.unreaped++;
        t.watch = new ChildWatch(c.mailboxWords(), now);
        if (exitKnown(c)) {
            reaped(run, t, c.exit().getNow(null), now);
            return null;
        }
        return t;
    }

    /** Journals the shutdown {@link #tell} published to {@code t}'s child and waits for its exit. */
    private void published(Run run, Track t) {
        ClosingChild c = t.child;
        ShutdownDelivery d = t.delivery;
        journal.append(new ShutdownPublished(d.timeNanos(), pid(), run.poolId(), run.closeId, c.group(), c.index(),
                c.pid(), d.channel(), run.closeId, d.casWon(), d.observedWord()));
        c.exit().whenComplete((exit, error) -> {
            if (exit != null) {
                inputs.childExited(run, t, exit);
            }
        });
    }

    private void reaped(Run run, Track t, ChildExit exit, long now) {
        if (t.exit != null || exit == null) {
            return;
        }
        ClosingChild c = t.child;
        if (t.watch.ackNanos() == 0) {
            // The ack word outlives the child: one it wrote before exiting is read here if no tick saw it.
            MailboxWords w = c.mailboxWords();
            if (w != null && t.watch.observe(w, now).firstAck()) {
                journal.append(new ChildAcked(now, pid(), run.poolId(), run.closeId, c.group(), c.index(), c.pid(),
                        w.ackNanos()));
                if (run.phase == Phase.REAPING) {
                    run.budget.progress(now);
                }
            }
        }
        t.exit = exit;
        run.unreaped--;
        // An escalation journaled before this reap is its cause: the reap's time is never before it.
        long time = t.escalatedNanos != 0 ? Math.max(exit.reapedNanos(), t.escalatedNanos) : exit.reapedNanos();
        t.sinceBroadcastNanos = Math.max(0, exit.reapedNanos() - run.startNanos);
        journal.append(new ChildReaped(time, pid(), run.poolId(), run.closeId, c.group(), c.index(), c.pid(),
                exit.exitCode(), exit.signal(), t.sinceBroadcastNanos));
        // the reason is built only if a command fails with it: most reaped children have none pending
        c.failPendingCommands(() -> "child exited: pid=" + c.pid() + " group=" + c.group() + " child=" + c.index()
                + " " + describe(exit));
        if (run.phase == Phase.REAPING) {
            run.budget.progress(time);
        }
        // Its mailbox at the end of this batch of inputs ({@link #endOfBatch}), while the others are still exiting,
        // not all of them after the last reap.
        run.awaitingRelease.add(t);
        run.stamp(Stamp.LAST_EXIT, clock);
    }

    /**
     * The engine handled every input published so far: frees the mailboxes of the children reaped meanwhile whose
     * operations ended, once no descendant of theirs can hold them ({@link #descendantsGone}: one look at the
     * container for the whole batch, however many exits it held).
     */
    void endOfBatch() {
        for (Run run : runs.values().toArray(new Run[0])) {
            if (!run.awaitingRelease.isEmpty()) {
                guarded(run, () -> releaseAwaiting(run));
            }
        }
    }

    /** Frees what it can of the mailboxes reaps left (an operation on the child had not ended, or a caller was inside). */
    private void releaseAwaiting(Run run) {
        if (!run.awaitingRelease.isEmpty() && (run.phase == Phase.REAPING || run.phase == Phase.ESCALATING)
                && descendantsGone(run)) {
            run.awaitingRelease.removeIf(t -> release(run, t, false));
        }
    }

    /** Whether the child's exit is known: collected (its exit input is handled, or queued), not lost. */
    private static boolean exitKnown(ClosingChild c) {
        return c.exit().isDone() && !c.exit().isCompletedExceptionally();
    }

    /**
     * Why the child's exit status was lost (someone else reaped it: a waitpid(-1) or an ignored SIGCHLD elsewhere in
     * the JVM), or null: such a child is not waited for (no exit input will come) nor signalled (its pid may name
     * another process now); the close reports it, as a survivor of class EXIT_STATUS_LOST.
     */
    private static String lostExit(ClosingChild c) {
        if (!c.exit().isCompletedExceptionally()) {
            return null;
        }
        Throwable e = c.exit().handle((x, error) -> error).join();
        if (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return JournalException.plain(e);
    }

    static String describe(ChildExit exit) {
        return exit.signal() > 0 ? "signal=" + exit.signal() : "exitCode=" + exit.exitCode();
    }

    private void sample(Run run, long now) {
        long beatEvery = run.settings.window().toNanos() / BEAT_PROGRESS_DIVISOR;
        for (Track t : run.tracks) {
            if (t.exit != null) {
                continue;
            }
            MailboxWords w = t.child.mailboxWords();
            if (w == null) {
                continue;
            }
            ChildWatch.Seen seen = t.watch.observe(w, now);
            ClosingChild c = t.child;
            if (seen.firstAck()) {
                journal.append(new ChildAcked(now, pid(), run.poolId(), run.closeId, c.group(), c.index(), c.pid(),
                        w.ackNanos()));
                run.budget.progress(now);
                t.lastBeatCountedNanos = now;
            } else if (seen.progress() && now - t.lastBeatCountedNanos >= beatEvery) {
                journal.append(new HeartbeatSeen(now, pid(), run.poolId(), run.closeId, c.group(), c.index(), c.pid(),
                        w.heartbeat()));
                run.budget.progress(now);
                t.lastBeatCountedNanos = now;
            }
        }
    }

    /** Ends the reap when its budget ran out by {@code now}, before the input at {@code now} is applied. */
    private void spendIfDue(Run run, long now) {
        if (run.phase == Phase.REAPING && run.unreaped() > 0 && (run.escalateNow || run.budget.expired(now))) {
            spend(run, now);
        }
    }

    private void spend(Run run, long now) {
        journal.append(new BudgetSpent(now, pid(), run.poolId(), run.closeId, run.budget.kind(),
                run.escalateNow ? BudgetSpent.REASON_ESCALATE_NOW : BudgetSpent.REASON_BUDGET,
                run.budget.lastProgressNanos(), run.unreaped()));
        diagnose(run, now);
        long grace = run.settings.grace().toNanos();
        run.plan = run.escalateNow ? EscalationStep.escalateNowPlan(grace)
                : EscalationStep.plan(run.settings.escalation(), grace);
        run.step = -1;
        run.phase = Phase.ESCALATING;
        run.escalatingSince = now;
        // Under LEAK (an empty plan) too: the survivors are kept, and their stacks say what they sat in when the close
        // gave up on them. Escalate-now: kill at once, no capture.
        if (beforeEscalation != null && !run.escalateNow) {
            List<ClosingChild> survivors = new ArrayList<>();
            for (Track t : run.tracks) {
                if (t.exit == null) {
                    survivors.add(t.child);
                }
            }
            run.evidencePending = true;
            run.evidenceBoundNanos = Math.max(run.settings.grace().toNanos(), beforeEscalation.boundNanos());
            long id = run.closeId;
            run.evidence = beforeEscalation.capture(run.poolId(), id, survivors);
            run.evidence.whenComplete((x, e) -> inputs.evidenceCaptured(id));
        }
    }

    private void diagnose(Run run, long now) {
        long window = run.settings.window().toNanos();
        for (Track t : run.tracks) {
            if (t.exit != null || exitKnown(t.child)) {
                continue; // exited while we looked: its exit input reports it as reaped, not as a survivor
            }
            ClosingChild c = t.child;
            String lost = lostExit(c);
            t.diagnosis = lost != null ? SurvivorDiagnosis.exitStatusLost(c.group(), c.index(), c.pid(), lost)
                    : SurvivorDiagnosis.classify(evidence(run, t, now, window));
            journal.append(new SurvivorDiagnosed(now, pid(), run.poolId(), run.closeId, c.group(), c.index(), c.pid(),
                    t.diagnosis.survivorClass().name(), t.diagnosis.line()));
        }
    }

    /** What a survivor's diagnosis is read from: its mailbox words (an ack seen now is journaled), /proc, its last events. */
    private SurvivorEvidence evidence(Run run, Track t, long now, long window) {
        ClosingChild c = t.child;
        MailboxWords w = c.mailboxWords();
        if (w != null && t.watch.observe(w, now).firstAck()) {
            journal.append(new ChildAcked(now, pid(), run.poolId(), run.closeId, c.group(), c.index(), c.pid(),
                    w.ackNanos()));
        }
        CommandIssued open = journal.openCommand(run.poolId(), c.group(), c.index());
        return new SurvivorEvidence(c.group(), c.index(), c.pid(), c.kind(), w,
                w == null ? -1 : t.watch.heartbeatAgeNanos(now), window, ProcSnapshot.read(c.pid(), w == null ? null : c.mailboxFile()),
                journal.lastEvents(run.poolId(), c.group(), c.index()), open == null ? null
                        : new SurvivorEvidence.OpenCommand(open.kind(), open.opcode(), open.commandId(),
                                Math.max(0, now - open.timeNanos())));
    }

    private void advance(Run run, long now) {
        takeLateJoiners(run, now);
        while (true) {
            switch (run.phase) {
                case REAPING -> {
                    if (run.unreaped() == 0) {
                        run.phase = Phase.SWEEPING;
                    } else if (run.escalateNow || run.budget.expired(now)) {
                        spend(run, now);
                    } else {
                        return;
                    }
                }
                case ESCALATING -> {
                    if (run.unreaped() == 0) {
                        run.phase = Phase.SWEEPING;
                        continue;
                    }
                    if (run.evidencePending && !run.escalateNow && now - run.escalatingSince < run.evidenceBoundNanos) {
                        return;
                    }
                    if (run.step >= 0 && now - run.stepDeadline < 0) {
                        return;
                    }
                    run.step++;
                    if (run.step >= run.plan.size()) {
                        // A survivor that exited meanwhile (during its evidence capture: under leak, the only wait) is
                        // reaped, not reported kept: its exit input comes next and advances this close again.
                        inputs.collectReadyExits();
                        for (Track t : run.tracks) {
                            if (t.exit == null && exitKnown(t.child)) {
                                return;
                            }
                        }
                        run.phase = Phase.SWEEPING;
                        continue;
                    }
                    EscalationStep step = run.plan.get(run.step);
                    run.stepDeadline = now + step.waitNanos();
                    escalate(run, step);
                    return;
                }
                case SWEEPING -> {
                    if (!containerKillSettled(run, now) || !sweep(run, now) || !containerKillSettled(run, now)) {
                        return; // a tick (or a reap) looks again
                    }
                    run.stamp(Stamp.SWEPT, clock);
                    run.phase = Phase.SETTLING;
                }
                case SETTLING -> {
                    if (!settleAndRelease(run)) {
                        if (run.phase == Phase.REAPING) {
                            continue; // a late joiner: wait for it like the others
                        }
                        return;
                    }
                    run.stamp(Stamp.SETTLED, clock);
                    report(run);
                    return;
                }
                default -> {
                    return;
                }
            }
        }
    }

    private void escalate(Run run, EscalationStep step) {
        inputs.collectReadyExits();
        List<Track> targets = new ArrayList<>();
        for (Track t : run.tracks) {
            // One whose exit is known but not yet handled (its input is queued) exited on its own: no signal is its
            // cause, so none is sent or journaled (its reap follows as EXITED or SIGNALED, not KILLED_BY_ESCALATION).
            if (t.exit == null && !t.child.exit().isDone()) {
                targets.add(t);
            }
        }
        if (targets.isEmpty()) {
            return;
        }
        for (Track t : targets) {
            ClosingChild c = t.child;
            long at = clock.getAsLong();
            // Journaled before it is sent, so a reap it causes always comes after it in the journal.
            journal.append(new EscalationSent(at, pid(), run.poolId(), run.closeId, c.group(), c.index(), c.pid(),
                    step.signal(), step.target()));
            t.escalatedNanos = at;
        }
        PoolContainment container = run.target.containment();
        if (step.signal() == EscalationStep.SIGKILL && container != null && run.pendingKill == null) {
            // The whole container first (cgroup.kill in cgroup mode), while the direct children are still listed in
            // it: descendants that left the group and forks racing it die with them.
            killContainer(run, container);
        }
        for (Track t : targets) {
            if (step.throughPidfd()) {
                t.child.signal(step.signal());
            }
            t.child.signalProcessGroup(step.signal());
        }
    }

    // ------------------------------------------------------------------ the container: kills and the stray sweep

    /** Kills the whole container now; {@link #containerKillSettled} journals what the kill covered once it is empty. */
    private void killContainer(Run run, PoolContainment container) {
        Set<Integer> unreaped = new java.util.HashSet<>();
        for (Track t : run.tracks) {
            if (t.exit == null) {
                unreaped.add(t.child.pid());
            }
        }
        long at = clock.getAsLong();
        List<ContainedProcess> covered = container.killAll();
        covered.removeIf(p -> p.isZombie() && !unreaped.contains(p.pid()));
        run.pendingKill = new PendingKill(container, covered, unreaped, at);
    }

    /**
     * True when no container kill is pending: the last one was seen empty (cgroup.events {@code populated 0}) or
     * its bound ({@link #CONTAINER_EMPTY_BOUND_NANOS}) passed, and ContainmentKilled is journaled. Polled by ticks
     * and reaps, never waited on.
     */
    private boolean containerKillSettled(Run run, long now) {
        PendingKill k = run.pendingKill;
        if (k == null) {
            return true;
        }
        boolean empty = k.container.isEmpty();
        // the direct children the kill covered are dead: their reaps (inputs from the reaper) are awaited too, so a
        // loaded reaper does not turn a killed child into a SURVIVOR of the report (same bound)
        boolean reapsPending = false;
        for (Track t : run.tracks) {
            reapsPending |= t.exit == null && k.directPids.contains(t.child.pid());
        }
        if ((!empty || reapsPending) && now - k.killedNanos < CONTAINER_EMPTY_BOUND_NANOS) {
            return false;
        }
        int direct = 0;
        StringBuilder pids = new StringBuilder();
        for (ContainedProcess p : k.covered) {
            if (k.directPids.contains(p.pid())) {
                direct++;
            }
            pids.append(pids.length() == 0 ? "" : ",").append(p.pid());
        }
        long at = clock.getAsLong();
        journal.append(new ContainmentKilled(at, pid(), run.poolId(), run.closeId, k.container.mode().label(),
                k.container.describe(), direct, k.covered.size() - direct, pids.toString(), empty,
                empty ? Math.max(0, at - k.killedNanos) : -1));
        run.kills.add(new CloseReport.Kill(k.container.mode() == ContainmentMode.CGROUP ? "cgroup.kill" : "pgroup SIGKILL",
                k.container.describe(), direct, k.covered.size() - direct, empty));
        run.pendingKill = null;
        return true;
    }

    /**
     * The stray sweep, one step per call; true once it is over. Strays are live processes in the container that are
     * no direct child and no descendant of a direct child still running: their own parent is gone.
     */
    private boolean sweep(Run run, long now) {
        PoolContainment container = run.target.containment();
        if (container == null || run.swept) {
            return true;
        }
        if (run.strayTermDeadline != 0) {
            // SIGTERM sent to each stray: once they are gone or the grace is over, the container's kill ends the rest
            if (!strays(run, container).isEmpty() && now - run.strayTermDeadline < 0) {
                return false;
            }
            run.swept = true;
            run.straysEnded = true;
            if (!container.isEmpty()) {
                killContainer(run, container);
            }
            return true;
        }
        List<ContainedProcess> strays = strays(run, container);
        if (strays.isEmpty()) {
            run.swept = true;
            return true;
        }
        if (run.straysSeenNanos == 0) {
            run.straysSeenNanos = now;
        }
        if (now - run.straysSeenNanos < STRAY_SETTLE_NANOS && !run.escalateNow) {
            return false;
        }
        for (ContainedProcess s : strays) {
            journal.append(new StrayFound(clock.getAsLong(), pid(), run.poolId(), run.closeId, s.pid(), s.parentPid(),
                    s.command(), container.describe()));
            run.strays.add(s);
        }
        if (!run.escalateNow && run.settings.escalation() != EscalationPolicy.TERM_THEN_KILL) {
            run.swept = true; // LEAK: kept, as the survivors are
            return true;
        }
        if (run.escalateNow) {
            run.swept = true; // escalate-now: no grace, the container's kill at once
            run.straysEnded = true;
            killContainer(run, container);
            return true;
        }
        for (ContainedProcess s : strays) {
            Linux.calls().kill(s.pid(), EscalationStep.SIGTERM); // ESRCH when it went meanwhile
        }
        run.strayTermDeadline = now + Math.max(1, run.settings.grace().toNanos());
        return false;
    }

    /** Live processes in {@code container} that are neither a direct child nor below a direct child still running. */
    private static List<ContainedProcess> strays(Run run, PoolContainment container) {
        Set<Integer> direct = new java.util.HashSet<>();
        Set<Integer> running = new java.util.HashSet<>();
        for (Track t : run.tracks) {
            direct.add(t.child.pid());
            if (t.exit == null) {
                running.add(t.child.pid());
            }
        }
        List<ContainedProcess> all = container.processes();
        Map<Integer, ContainedProcess> byPid = new java.util.HashMap<>();
        for (ContainedProcess p : all) {
            byPid.put(p.pid(), p);
        }
        List<ContainedProcess> out = new ArrayList<>();
        for (ContainedProcess p : all) {
            if (direct.contains(p.pid()) || p.isZombie() || below(p, running, byPid)) {
                continue;
            }
            out.add(p);
        }
        return out;
    }

    /** True when an ancestor of {@code p}, followed through the container's parent pids, is in {@code running}. */
    private static boolean below(ContainedProcess p, Set<Integer> running, Map<Integer, ContainedProcess> byPid) {
        int parent = p.parentPid();
        for (int depth = 0; depth < 64 && parent > 1; depth++) {
            if (running.contains(parent)) {
                return true;
            }
            ContainedProcess up = byPid.get(parent);
            if (up == null) {
                return false;
            }
            parent = up.parentPid();
        }
        return false;
    }

    /**
     * True once every operation caught by the fence ended (survivors' aside) and every reaped mailbox is freed. Most
     * mailboxes were freed at their own reap ({@link #release}); this frees the rest and drains the survivors' rings.
     */
    private boolean settleAndRelease(Run run) {
        Set<ClosingChild> survivors = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Track t : run.tracks) {
            if (t.exit == null) {
                survivors.add(t.child);
            }
        }
        if (!run.target.settleInFlight(run.closeId, c -> c == null || !survivors.contains(c))) {
            return false;
        }
        if (takeLateJoiners(run, clock.getAsLong()) && run.phase == Phase.REAPING) {
            return false; // the caller's loop goes back to waiting for the joiner
        }
        boolean all = true;
        for (Track t : run.tracks) {
            if (t.exit != null) {
                all &= release(run, t, true);
            } else if (!t.drained) {
                t.child.drainTransitions(run.closeId); // a survivor keeps its mailbox: what its ring holds so far
                t.drained = true;
            }
        }
        run.awaitingRelease.clear();
        return all;
    }

    /**
     * True when the pool's container holds nothing but direct children still running (none: no container), so a
     * reaped child left no descendant alive: a forked one inherits the mailbox mapping, and the mailbox is freed only
     * once no process can hold it (else after the stray sweep, as SETTLING does). False too when the container cannot
     * be listed cheaply (the process-group fallback).
     */
    private static boolean descendantsGone(Run run) {
        PoolContainment container = run.target.containment();
        if (container == null) {
            return true;
        }
        List<Integer> pids = container.pidsIfCheap();
        if (pids == null) {
            return false;
        }
        Set<Integer> running = new java.util.HashSet<>();
        for (Track t : run.tracks) {
            if (t.exit == null) {
                running.add(t.child.pid());
            }
        }
        return running.containsAll(pids);
    }

    /**
     * Frees reaped {@code t}'s mailbox once the operations caught by the fence on it ended ({@code opsEnded}: known
     * already, in SETTLING) and no descendant of its child lives (the caller checked): settles what its mailbox answers, drains its transition ring (after those settles: a caller's own
     * transitions are in it), frees it and journals MailboxReleased. False while an operation on it runs or a caller
     * is inside a command on it (tried again on the next op-settled input or tick).
     */
    private boolean release(Run run, Track t, boolean opsEnded) {
        if (t.released) {
            return true;
        }
        ClosingChild c = t.child;
        if (!t.drained) {
            if (!opsEnded && !run.target.settleInFlight(run.closeId, on -> on == c)) {
                return false;
            }
            c.drainTransitions(run.closeId);
            t.drained = true;
        }
        if (!c.hasMailbox()) {
            t.released = true;
            return true;
        }
        long offset = c.mailboxOffset();
        if (!c.tryReleaseMailbox()) {
            return false; // a caller is inside a command on it
        }
        t.released = true;
        if (run.phase == Phase.REAPING || run.phase == Phase.ESCALATING) {
            run.releasedAtReap++;
        }
        journal.append(new MailboxReleased(clock.getAsLong(), pid(), run.poolId(), run.closeId, c.group(), c.index(),
                offset));
        return true;
    }

    private void report(Run run) {
        run.target.abandonInFlight(run.closeId);
        List<CloseReport.Child> children = new ArrayList<>();
        int reaped = 0;
        for (Track t : run.tracks) {
            ClosingChild c = t.child;
            String diagnosis = t.diagnosis == null ? null : t.diagnosis.survivorClass().name();
            String evidence = t.diagnosis == null ? null : t.diagnosis.line();
            CloseReport.ChildOutcome outcome = CloseReport.ChildOutcome.of(t.exit != null, t.escalatedNanos != 0,
                    t.exit == null ? 0 : t.exit.signal());
            int exitCode = t.exit == null || t.exit.signal() > 0 ? -1 : t.exit.exitCode();
            int signal = t.exit == null ? 0 : t.exit.signal();
            String tail = stderrTail(run, c, outcome, exitCode, signal);
            if (t.exit == null) {
                children.add(new CloseReport.Child(c.group(), c.index(), c.pid(), c.kind(), outcome, -1, 0, -1,
                        diagnosis, evidence, t.stacks, tail));
                continue;
            }
            reaped++;
            children.add(new CloseReport.Child(c.group(), c.index(), c.pid(), c.kind(), outcome, exitCode, signal,
                    t.sinceBroadcastNanos, diagnosis, evidence, t.stacks, tail));
        }
        children.sort(Comparator.comparing(CloseReport.Child::group).thenComparingInt(CloseReport.Child::index));
        long end = clock.getAsLong(); // taken last: everything the close did is inside its duration
        List<CloseReport.Stray> strays = new ArrayList<>();
        for (ContainedProcess s : run.strays) {
            strays.add(new CloseReport.Stray(s.pid(), s.parentPid(), s.command(), run.straysEnded));
        }
        CloseReport report = new CloseReport(run.poolId(), run.closeId,
                CloseReport.outcomeOf(children, strays, run.escapes), end - run.startNanos, children, strays, run.kills,
                run.escapes, null);
        journal.append(new CloseCompleted(end, pid(), run.poolId(), run.closeId, report.outcome().name(), reaped,
                children.size() - reaped, report.durationNanos(), report.toJson()));
        run.report = report;
        journal.hurry(); // the caller flushes the journal before it returns: the appender starts now
        run.stamp(Stamp.REPORTED, clock);
        finish(run);
        try {
            run.target.closeFinished(report);
        } finally {
            run.stamp(Stamp.FINISHED, clock);
            run.result.complete(report); // whatever the pool's bookkeeping raised: the close is journaled as completed
        }
        commitPhases(run);
    }

    /** The close's {@link ClosePhaseEvent}, when JFR runs ({@link CloseJfr}). */
    private void commitPhases(Run run) {
        run.stamp(Stamp.COMPLETED, clock);
        if (run.jfr == null) {
            return;
        }
        long lastReap = 0;
        for (Track t : run.tracks) {
            if (t.exit != null) {
                lastReap = Math.max(lastReap, t.exit.reapedNanos() - run.requestedNanos);
            }
        }
        run.at[Stamp.LAST_REAP] = lastReap;
        CloseJfr.commitPhases(run.jfr, run.poolId(), run.closeId, run.tracks.size(), run.at, run.releasedAtReap);
    }

    /**
     * The last lines of a failed child's stderr log file (journaled: ChildOutputTail), or null. One bounded read of
     * a regular file's last few KiB (ChildLog.tail), like the /proc reads of a diagnosis: it never waits on a writer.
     */
    private String stderrTail(Run run, ClosingChild c, CloseReport.ChildOutcome outcome, int exitCode, int signal) {
        java.nio.file.Path file = c.stderrLog();
        if (file == null || !CloseReport.Child.wantsStderrTail(outcome, exitCode, signal)) {
            return null;
        }
        String tail = c.stderrTail();
        if (tail != null) {
            journal.append(new ChildOutputTail(clock.getAsLong(), pid(), run.poolId(), run.closeId, c.group(), c.index(),
                    c.pid(), "stderr", file.toString(), tail));
        }
        return tail;
    }

    private void finish(Run run) {
        for (Track t : run.tracks) {
            if (t.exit == null) {
                inputs.unwatchExit(t.child);
            }
        }
        run.phase = Phase.DONE;
        runs.remove(run.closeId);
        running = runs.size();
        if (runs.isEmpty()) {
            idleSinceNanos = clock.getAsLong();
        }
    }

    /**
     * A failure inside one close fails that close's future and is journaled (CloseAborted: the replay ends the close
     * there and the audit names it, instead of a close that never ends); its unreaped children stay tracked by their
     * pool for its next close. The other closes go on.
     */
    private void guarded(Run run, Runnable body) {
        guarded(run, body, true);
    }

    /**
     * As {@link #guarded(Run, Runnable)}; with {@code againAfterRepair}, a memory fault that {@link #mappedFileRepair}
     * undid (a map file cut in the middle of the close: it restores the length and says so) runs {@code body} once
     * more, and the close goes on: each input's step reads the close's state afresh (a reap is recorded once, an
     * ack sampled again). Before, the close aborted there, its later reaps unjournaled, and only a second close ended
     * its children. A fault again, or one nothing undid, aborts it. A close's start is not run twice (it fences and
     * tells each child once): the repair runs before it instead.
     */
    private void guarded(Run run, Runnable body, boolean againAfterRepair) {
        try {
            body.run();
        } catch (RuntimeException | Error e) {
            if (run.phase == Phase.DONE) {
                // Raised after the close ended (a late memory fault lands at a later instruction than its access):
                // before, it was dropped here unrepaired and a caller whose future was not completed yet waited for
                // ever (the clean-clone CI run of main d6d5246 hung in MisbehavingChildTest's mid-close cut).
                if (JournalException.isMemoryFault(e)) {
                    mappedFileRepair.get();
                }
                if (run.report != null) {
                    run.result.complete(run.report);
                }
                return;
            }
            String repaired = JournalException.isMemoryFault(e) ? mappedFileRepair.get() : null;
            if (repaired != null && againAfterRepair) {
                guarded(run, body, false);
                return;
            }
            String reason = repaired != null ? repaired : JournalException.plain(e);
            abort(run, reason, new IllegalStateException("pool=" + run.poolId() + " closeId=" + run.closeId
                    + " close failed: " + reason, e));
        }
    }

    /**
     * Ends {@code run} as failed: CloseAborted journaled with {@code reason} (the replay ends the close there), its
     * pool told, its future failed with {@code failed} (naming the pool, the close and the reason).
     */
    private void abort(Run run, String reason, RuntimeException failed) {
        if (run.phase == Phase.DONE) {
            return;
        }
        finish(run);
        try {
            journal.append(new CloseAborted(clock.getAsLong(), pid(), run.poolId(), run.closeId, reason,
                    run.unreaped()));
        } catch (RuntimeException journalBroken) {
            // a broken journal is named by its gap (JournalWriter); the caller still gets the failure below
        }
        try {
            run.target.closeAborted();
        } catch (RuntimeException alsoBroken) {
            failed.addSuppressed(alsoBroken);
        }
        run.result.completeExceptionally(failed);
    }

    private int pid() {
        return journal.orchestratorPid();
    }

    /** One close in progress. */
    static final class Run {
        final CloseTarget target;
        final long closeId;
        final CloseSettings settings;
        final CompletableFuture<CloseReport> result;
        /** The report once CloseCompleted is journaled (what the caller gets, whatever is raised after it). */
        CloseReport report;
        final List<Track> tracks = new ArrayList<>();
        /** {@link #unreaped()}: engine thread only. */
        private int unreaped;
        final Map<ClosingChild, Track> members = new IdentityHashMap<>();
        /** Reaped children whose mailbox could not be freed at the reap yet. */
        final List<Track> awaitingRelease = new ArrayList<>();
        final long requestedNanos;
        /** When each of its phases ended ({@link Stamp}), nanoseconds from the request. */
        final long[] at = new long[Stamp.COUNT];
        int releasedAtReap;
        /** Its ClosePhaseEvent while JFR runs, else null (typed Object: see {@link CloseJfr}). */
        final Object jfr = CloseJfr.beginPhases();
        Phase phase = Phase.REAPING;
        long startNanos;
        ReapBudget budget;
        boolean escalateNow;
        boolean evidencePending;
        long evidenceBoundNanos;
        CompletableFuture<? extends Map<ClosingChild, String>> evidence;
        long escalatingSince;
        List<EscalationStep> plan = List.of();
        int step = -1;
        long stepDeadline;
        /** A container kill whose emptiness is not settled yet; null when none. */
        PendingKill pendingKill;
        final List<CloseReport.Kill> kills = new ArrayList<>();
        /** Children found outside the container at the start, killed. */
        final List<CloseReport.Escape> escapes = new ArrayList<>();
        boolean swept;
        long straysSeenNanos;
        long strayTermDeadline;
        final List<ContainedProcess> strays = new ArrayList<>();
        boolean straysEnded;

        Run(CloseTarget target, long closeId, CompletableFuture<CloseReport> result, long requestedNanos) {
            this.target = target;
            this.closeId = closeId;
            this.settings = target.closeSettings();
            this.result = result;
            this.requestedNanos = requestedNanos;
        }

        /** Phase {@code index} ({@link Stamp}) ended now. */
        void stamp(int index, LongSupplier clock) {
            at[index] = clock.getAsLong() - requestedNanos;
        }

        String poolId() {
            return target.poolId();
        }

        /**
         * Tracked children whose exit is not recorded: counted as tracks are added and exits recorded (each exit once),
         * not by a pass over the tracks, which every exit asked for (a 256-child close made 256 passes of 256).
         */
        int unreaped() {
            return unreaped;
        }
    }

    /** A kill of a pool's container: what was in it just before ({@code covered}) and which of those were direct children. */
    record PendingKill(PoolContainment container, List<ContainedProcess> covered, Set<Integer> directPids,
            long killedNanos) {
    }

    /** One child of one close. */
    static final class Track {
        final ClosingChild child;
        ChildWatch watch;
        /** The shutdown published to it, until journaled. */
        ShutdownDelivery delivery;
        ChildExit exit;
        long sinceBroadcastNanos = -1;
        long escalatedNanos;
        long lastBeatCountedNanos;
        /** Its transition ring journaled (at its release, or at the report for a survivor). */
        boolean drained;
        boolean released;
        SurvivorDiagnosis diagnosis;
        String stacks;

        Track(ClosingChild child) {
            this.child = child;
        }
    }
}
