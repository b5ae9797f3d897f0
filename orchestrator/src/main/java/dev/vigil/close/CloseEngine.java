package dev.vigil.close;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.LiteTimeoutBlockingWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;

import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.JournalException;
import dev.vigil.journal.MonotonicClock;
import dev.vigil.mailbox.internal.Futex;
import dev.vigil.spawn.ExitWatch;
import dev.vigil.spawn.NativePartUnavailableException;
import dev.vigil.spawn.Reaper;

/**
 * Runs every close of an orchestrator: LMAX's business-logic processor. Inputs (close requested, child exited,
 * operation settled, late child joined, escalate-now, evidence captured) go into one Disruptor ring from any
 * thread; ONE thread consumes it and drives the {@link CloseMachine}, which never blocks, so any number of closes
 * proceed at once and none holds another back. The same thread ticks the machine every {@link #TICK_NANOS} while
 * closes run (the ring's wait times out), to sample acks and heartbeats (shared-memory words with no
 * notification) and to meet deadlines.
 *
 * <pre>
 *  Pool.close()  ----- requested ----+
 *  reaper (pidfd) ---- child exited -+--> ring --> [close engine thread: CloseMachine] --> journal events
 *  admission gate ---- op settled ---+          ^ tick every 20 ms while closes run        shutdown CAS, signals,
 *  caller ------------ escalate-now -+                                                     releases, futures
 * </pre>
 *
 * With a {@link Reaper}, the engine waits for the exits of the children it closes itself: their pidfds are in its
 * own epoll set ({@link ExitWatch}, moved there out of the reaper's as each child is told), which it waits on when the
 * ring is empty, beside an eventfd the ring's publishers write to. An exit is collected on this thread, no reaper thread
 * woken and no hand-off through the ring; it still reaches the machine as the input "child exited" (the onExit stage
 * queues it behind the current one). Without one (tests), exits come from the reaper thread through the ring.
 *
 * Threads: exactly one (daemon {@code vigil-close-engine-N}), whatever the number of pools and closes.
 *
 * <p>Faults. The thread's loop is the engine's own ({@link #run}), not Disruptor's BatchEventProcessor, whose
 * catch-all hands any Throwable to an exception handler that either ends the thread (the default: every close then
 * waited forever) or skips the input at the next sequence, handled or not, published or not. Here a Throwable raised
 * anywhere on the thread (in a step, in the ring's wait, between two inputs: the JVM raises the memory fault of a cut
 * mapped file at a later instruction) is caught by the loop: a memory fault's file is restored, and the input being
 * handled is tried again (each input's step reads the close's state afresh, a request already taken is not taken
 * twice), at most {@link #TRIES_PER_INPUT} times; then it is dropped, failing the close it requested. After
 * {@link #FAULTS_BEFORE_GIVING_UP} faults in a row the engine gives up: its closes are aborted (CloseAborted), every
 * close pending on it fails at once naming its pool ({@link CloseEngineFailedException}: the pool then kills and reaps
 * its children itself), and later requests fail at once too. A caller waits in slices and checks the thread is alive
 * ({@link #checkAlive}), so no close waits on a thread that is gone.
 */
public final class CloseEngine implements AutoCloseable {
    /** How often acks and heartbeats are sampled, and deadlines checked, while closes run. */
    public static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /**
     * How long the engine holds the journal's wake-ups (with its own exit watch): its appends do not wake the appender
     * thread, it wakes it at most this long after the first it held (at the end of a batch of inputs, or from its wait,
     * which is bounded by it), and at once when a close completes or none runs. It journals each exit as it collects it,
     * a few events at a time, while the children exit on the same cores; woken by each of those bursts, the appender
     * took ~0.9 ms of CPU per 16-child close (5-40 wake-ups, each a futex wake, two switches, its 20 us spin). Held, in
     * three runs alternating with the code before (C x16, 22:57-23:03 UTC 2026-12-03, load 7-12): the appender's CPU per
     * close 0.34 / 0.25 / 0.31 ms against 0.84 / 0.80 / 0.95, the orchestrator's 5.1 / 3.8 / 5.0 ms against 7.3 / 5.2 /
     * 6.5, the whole close 2.14 / 1.35 / 1.65x the reference against 2.28 / 1.99 / 2.16x.
     */
    static final long HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * How long after the last close ended the engine runs its idle work: not in the batch that completed the close,
     * while its caller wakes up and returns (on these cores: a caller woken onto the engine's core runs only once the
     * engine sleeps). One paired run (C x1 idle, 80 closes each way, alternating, load 11-16): close minus slowest reap
     * 1.91 ms median with the removes in the completing batch, 1.20 ms with this delay. Counted from the close's end, not
     * from the wait's timeout: a close whose last exit or tick is handled in a timeout ended there, and the work ran right
     * after it (~25 us after the caller's future completed, the engine asleep ~180 us after it, the caller awake ~190 us
     * after it); counted from the end (C x1 idle, 80 closes each way alternating, load 12): idle work 1.1 ms after,
     * engine asleep 28 us after, caller awake 53 us after; close minus slowest reap 1.67 -> 0.99 ms, whole close 5.5 ->
     * 3.3 ms.
     */
    static final int IDLE_WORK_DELAY_MILLIS = 1;
    private static final long IDLE_WORK_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(IDLE_WORK_DELAY_MILLIS);
    private static final int RING_SIZE = 1024;
    /** Tries of one input whose handling faults; then it is dropped (a request fails its close). */
    static final int TRIES_PER_INPUT = 3;
    /** Faults in a row, with no turn of the loop completed between them, after which the engine gives up. */
    static final int FAULTS_BEFORE_GIVING_UP = 40;
    private static final long PID_BITS = ProcessHandle.current().pid() << 32;
    private static final AtomicLong CLOSE_COUNTER = new AtomicLong();
    private static final AtomicInteger ENGINE_IDS = new AtomicInteger();

    private enum Kind { REQUESTED, EXITED, JOINED, SETTLED, ESCALATE_NOW, ESCALATE_ALL, EVIDENCE }

    /** A ring entry: one input. */
    private static final class Slot {
        Kind kind;
        CloseTarget target;
        long closeId;
        long requestedNanos;
        CompletableFuture<CloseReport> result;
        CloseMachine.Run run;
        CloseMachine.Track track;
        ChildExit exit;
        String origin;
        void clear() {
            target = null;
            result = null;
            run = null;
            track = null;
            exit = null;
            origin = null;
        }
    }

    private final CloseMachine machine;
    private final CloseJournal journal;
    /** The exits this thread waits for itself; null without a reaper to hand them over through. */
    private final ExitWatch exits;
    private final RingBuffer<Slot> ring;
    private final SequenceBarrier barrier;
    /** The last input handled (the ring's gating sequence: publishers wait on it when the ring is full). */
    private final Sequence consumed = new Sequence(RingBuffer.INITIAL_CURSOR_VALUE);
    private final Processor processor = new Processor();
    /** Closes submitted and not completed: failed at once if the engine gives up. */
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    /** Engine thread only: the next input to handle, how often it faulted, faults in a row, look again after one. */
    private long next;
    private int triesOfNext;
    private int faultsInARow;
    private boolean lookAgain;
    private Throwable lastFault;
    /** Why the engine gave up (its thread ended while not closed); null while it runs. */
    private volatile String failure;
    private volatile boolean halted;
    /** Test hook: runs on the engine thread at the top of each turn of its loop (between inputs). */
    private volatile Runnable betweenInputs;
    /** Inputs the engine thread causes itself (an exit completed inline by a signal): handled after the current one. */
    private final ArrayDeque<Runnable> local = new ArrayDeque<>();
    /** Work no close waits for (the map removes of released mailboxes): run on this thread once no close runs. */
    private final Runnable whenIdle;
    /** A close was requested since {@link #whenIdle} last ran. Engine thread only. */
    private boolean idleWorkDue;
    private volatile Thread thread;
    private volatile boolean closed;
    private long lastTick;

    /** An engine told of exits by the reaper thread only (through its ring). */
    public CloseEngine(CloseJournal journal) {
        this(journal, null, () -> { });
    }

    /**
     * An engine that waits for the exits of the children it closes itself, collecting them through {@code reaper}, and
     * runs {@code whenIdle} on its thread {@link #IDLE_WORK_DELAY_MILLIS} after the inputs that left no close running
     * (work no close waits for: it must not block, and comes after the close's caller has returned).
     */
    public CloseEngine(CloseJournal journal, Reaper reaper, Runnable whenIdle) {
        this.whenIdle = whenIdle;
        // Jackson's set-up for the close report (hundreds of ms on a cold JVM) on a thread of its own: warm
        // before the first close, and not on the way to the first child spawned.
        // The doorbell's futex binding likewise: the first close's first ring would otherwise hold its broadcast back.
        Thread warmUp = new Thread(() -> {
            CloseReport.warmUp();
            CloseJfr.on(); // JFR's own class, not its events (those load only while a recording runs)
            try {
                Futex.warmUp();
            } catch (RuntimeException | LinkageError e) {
                // no futex here (another architecture, no libc binding): the first ring says so where it happens
            }
        }, "vigil-report-warm-up");
        warmUp.setDaemon(true);
        warmUp.start();
        this.journal = journal;
        this.machine = new CloseMachine(journal, new RingInputs(), MonotonicClock::nanos);
        ExitWatch watch = null;
        if (reaper != null) {
            try {
                watch = ExitWatch.open(reaper);
            } catch (NativePartUnavailableException | LinkageError e) {
                // no epoll here: the reaper tells of every exit
            }
        }
        this.exits = watch;
        int id = ENGINE_IDS.incrementAndGet();
        this.ring = RingBuffer.createMultiProducer(Slot::new, RING_SIZE, exits == null
                ? new LiteTimeoutBlockingWaitStrategy(TICK_NANOS, TimeUnit.NANOSECONDS) : new ExitAwareWait());
        this.barrier = ring.newBarrier();
        ring.addGatingSequences(consumed);
        this.next = consumed.get() + 1;
        Thread t = new Thread(this::run, "vigil-close-engine-" + id);
        t.setDaemon(true);
        this.thread = t;
        t.start();
    }

    /** A close submitted and not completed yet. */
    private record Pending(String poolId, CompletableFuture<CloseReport> result) {
    }

    /** A close id unique across processes sharing a journal: (orchestrator pid << 32) | per-process counter. */
    public static long nextCloseId() {
        return PID_BITS | CLOSE_COUNTER.incrementAndGet();
    }

    /** Closes in progress. */
    public int runningCloses() {
        return machine.running();
    }

    /** The closes submitted and not completed yet, each as {@code pool=<id> close=<id>}, in no order. */
    public java.util.List<String> closesInProgress() {
        java.util.List<String> closes = new java.util.ArrayList<>();
        pending.forEach((closeId, p) -> closes.add("pool=" + p.poolId() + " close=" + closeId));
        return closes;
    }

    /**
     * What restores a mapped file a child cut short (the mailbox map) and says so in one line, null when nothing was
     * cut: called before each close, and when a close faults on mapped memory (its CloseAborted then names the file).
     */
    public void repairMappedFilesWith(java.util.function.Supplier<String> repair) {
        machine.repairMappedFilesWith(repair);
    }

    /** The hook that captures evidence about survivors before the first escalation signal; null for none. */
    public void beforeEscalation(CloseMachine.BeforeEscalation hook) {
        machine.beforeEscalation(hook);
    }

    /**
     * Starts closing {@code target} under {@code closeId}; never waits. The future completes with the report once
     * it is journaled (on the engine thread: callers should wait on it, not chain work onto it); exceptionally only
     * if the engine itself failed on this close.
     */
    public CompletableFuture<CloseReport> submit(CloseTarget target, long closeId) {
        if (closed) {
            throw new IllegalStateException("close engine is shut down; pool=" + target.poolId() + " closeId=" + closeId);
        }
        CompletableFuture<CloseReport> result = new CompletableFuture<>();
        long requested = MonotonicClock.nanos();
        pending.put(closeId, new Pending(target.poolId(), result));
        result.whenComplete((r, e) -> pending.remove(closeId));
        publish(Kind.REQUESTED, closeId, s -> {
            s.target = target;
            s.result = result;
            s.requestedNanos = requested;
        });
        if (failure != null) {
            failPending(); // it gave up meanwhile: this close too fails at once
        }
        return result;
    }

    /**
     * Null while the engine's thread runs; else why it ended, and every close pending on it has failed
     * ({@link CloseEngineFailedException}). A caller waiting for a close calls it now and then: a thread that ended
     * without failing its closes (it cannot, short of the JVM's own failure) is noticed here, and they fail now.
     */
    public String checkAlive() {
        Thread t = thread;
        if (failure == null && !halted && !t.isAlive()) {
            // its actions happen-before isAlive() answered false: the machine is this thread's to abort now
            gaveUp("its thread ended without a word");
        }
        return failure;
    }

    /** Test hook: {@code r} runs on the engine thread at the top of each turn of its loop, between inputs. */
    void betweenInputs(Runnable r) {
        betweenInputs = r;
    }

    /**
     * Stop waiting for close {@code closeId}'s children: journal EscalateNowRequested, diagnose now and SIGKILL the
     * survivors whatever the policy; a close already escalating sends its next signal now. {@code origin} is
     * journaled (who asked: {@code SIGINT}, {@code SIGTERM}, ...).
     */
    public void escalateNow(long closeId, String origin) {
        publish(Kind.ESCALATE_NOW, closeId, s -> s.origin = origin);
    }

    /**
     * Escalate-now (as {@link #escalateNow}) for every close in progress and every close requested after this
     * call: bin/vigil's second Ctrl-C or SIGTERM, as {@code docker stop} kills after its grace.
     */
    public void escalateAll(String origin) {
        if (closed) {
            return;
        }
        publish(Kind.ESCALATE_ALL, 0, s -> s.origin = origin);
    }

    /** A child was queued as a late joiner of close {@code closeId} ({@link CloseTarget#takeLateJoiners}): wake it. */
    public void childJoined(long closeId) {
        publish(Kind.JOINED, closeId, s -> { });
    }

    private void publish(Kind kind, long closeId, java.util.function.Consumer<Slot> fill) {
        if (failure != null) {
            return; // nobody consumes the ring any more: a full ring would hold the publisher (the reaper) forever
        }
        long seq = ring.next();
        try {
            Slot s = ring.get(seq);
            s.kind = kind;
            s.closeId = closeId;
            fill.accept(s);
        } finally {
            ring.publish(seq);
        }
    }

    /** True when this thread watches exits and one is ready now (a poll that does not wait). Engine thread only. */
    private boolean exitsReady() {
        return exits != null && exits.watching() && exits.await(0) > 0;
    }

    private final class RingInputs implements CloseMachine.Inputs {
        @Override
        public void childExited(CloseMachine.Run run, CloseMachine.Track track, ChildExit exit) {
            if (Thread.currentThread() == thread) {
                local.add(() -> machine.childExited(run, track, exit));
                return;
            }
            publish(Kind.EXITED, run.closeId, s -> {
                s.run = run;
                s.track = track;
                s.exit = exit;
            });
        }

        @Override
        public void settled(long closeId) {
            if (Thread.currentThread() == thread) {
                local.add(() -> machine.settled(closeId));
                return;
            }
            publish(Kind.SETTLED, closeId, s -> { });
        }

        @Override
        public void watchExit(ClosingChild c) {
            if (exits != null && c.process() != null) {
                exits.watch(c.process());
            }
        }

        @Override
        public void unwatchExit(ClosingChild c) {
            if (exits != null && c.process() != null) {
                exits.unwatch(c.process());
            }
        }

        @Override
        public void collectReadyExits() {
            // One epoll_wait hands over at most 64 ready children: before, only those were collected, and an escalate-now
            // during the rollback of a 192-child start reported 128 children that had exited with status 0 (proc=Z at
            // their diagnosis) as KILLED_BY_ESCALATION. Twice nothing but a wake-up or EINTR ends it too.
            for (int idle = 0; exits != null && exits.watching() && idle < 2; ) {
                int ready = exits.await(0);
                if (ready < 0) {
                    return; // nothing ready
                }
                idle = ready == 0 ? idle + 1 : 0;
                exits.reapReady();
            }
        }

        @Override
        public void evidenceCaptured(long closeId) {
            if (Thread.currentThread() == thread) {
                local.add(() -> machine.evidenceCaptured(closeId));
                return;
            }
            publish(Kind.EVIDENCE, closeId, s -> { });
        }
    }

    /**
     * The engine thread: turns of its loop until the engine is closed, each Throwable raised on it handled by
     * {@link #survive}, none ending the thread but a storm of them ({@link #FAULTS_BEFORE_GIVING_UP}).
     */
    private void run() {
        String gaveUp = null;
        try {
            processor.onStart();
            while (true) {
                try {
                    if (!turn()) {
                        return;
                    }
                    faultsInARow = 0;
                } catch (Throwable t) { // anything at all, between inputs too: see the class comment
                    if (!survive(t)) {
                        gaveUp = FAULTS_BEFORE_GIVING_UP + " faults in a row, the last: " + JournalException.plain(t);
                        return;
                    }
                }
            }
        } catch (Throwable t) { // raised while handling one: the thread ends, its closes fail below
            gaveUp = "a fault while handling a fault: " + JournalException.plain(t);
        } finally {
            if (!halted) {
                gaveUp(gaveUp == null ? "its thread ended" : gaveUp);
            }
        }
    }

    /**
     * One turn: waits for inputs (bounded while closes run: the wait times out for the tick) and handles them. The
     * sequence moves past an input only once its handling returned; an input whose handling faulted is handled again.
     * False once the engine is halted.
     */
    private boolean turn() throws AlertException {
        Runnable hook = betweenInputs;
        if (hook != null) {
            hook.run();
        }
        if (lookAgain) {
            lookAgain = false;
            processor.onTimeout(next - 1); // after a fault: exits collected, tick, held journal wake-ups released
        }
        long available;
        try {
            available = barrier.waitFor(next);
        } catch (TimeoutException e) {
            processor.onTimeout(next - 1);
            return true;
        } catch (AlertException e) {
            return !halted;
        } catch (InterruptedException e) {
            return true; // nobody interrupts this thread; the wait goes on
        }
        while (next <= available) {
            Slot s = ring.get(next);
            if (++triesOfNext > TRIES_PER_INPUT) {
                drop(s);
            } else {
                processor.onEvent(s, next, next == available);
            }
            s.clear();
            triesOfNext = 0;
            consumed.set(next);
            next++;
        }
        return true;
    }

    /**
     * After {@code t} was raised on the engine thread: restores a cut mapped file (a memory fault), and the next turn
     * looks again (the input it was handling, if any, is handled again). False when the engine gives up.
     */
    private boolean survive(Throwable t) {
        lastFault = t;
        faultsInARow++;
        lookAgain = true;
        if (JournalException.isMemoryFault(t)) {
            try {
                machine.repairMappedFiles();
            } catch (RuntimeException | Error again) {
                // the next turn faults again if it is still cut; a storm of those ends the engine
            }
        } else if (faultsInARow == 1) {
            System.err.println("vigil: close engine " + Thread.currentThread().getName() + " went on after: "
                    + JournalException.plain(t));
        }
        if (faultsInARow >= FAULTS_BEFORE_GIVING_UP) {
            return false;
        }
        if (faultsInARow > 1) {
            LockSupport.parkNanos(Math.min(faultsInARow, 10) * TimeUnit.MILLISECONDS.toNanos(1)); // no busy storm
        }
        return true;
    }

    /** An input that faulted {@link #TRIES_PER_INPUT} times: a request not taken yet fails its close; others go. */
    private void drop(Slot s) {
        if (s.kind == Kind.REQUESTED && s.result != null && !s.result.isDone() && !machine.has(s.closeId)) {
            s.result.completeExceptionally(new CloseEngineFailedException(s.target.poolId(), s.closeId,
                    "the close engine faulted " + TRIES_PER_INPUT + " times on its request, the last: "
                            + JournalException.plain(lastFault)));
        }
    }

    /**
     * The engine ends ({@code why}): its closes are aborted (journaled), every close pending fails at once, exits
     * watched here go back to the reaper. On the engine thread as it ends, or on a caller's once it is gone.
     */
    private synchronized void gaveUp(String why) {
        if (failure != null) {
            return;
        }
        String name = thread.getName();
        failure = name + " ended: " + why;
        System.err.println("vigil: close engine " + failure);
        try {
            machine.abortAll("close engine " + failure);
        } catch (RuntimeException | Error e) {
            // the journal may be what broke: the closes still fail below
        }
        failPending();
        try {
            journal.hurry();
        } catch (RuntimeException | Error e) {
            // named by its gap, as ever
        }
        if (exits != null) {
            try {
                exits.close(); // the reaper collects those exits from now
            } catch (RuntimeException | Error e) {
                // its descriptors stay open; the reaper's own scan still collects every child
            }
        }
    }

    /** Fails every close pending on this engine (it gave up). */
    private void failPending() {
        for (Map.Entry<Long, Pending> e : pending.entrySet()) {
            Pending p = e.getValue();
            p.result().completeExceptionally(new CloseEngineFailedException(p.poolId(), e.getKey(), "close engine "
                    + failure));
        }
    }

    private final class Processor {
        void onStart() {
            if (exits != null) {
                journal.holdWakes(); // released within HOLD_NANOS: the wait below is bounded by it
            }
        }

        void onEvent(Slot s, long sequence, boolean endOfBatch) {
            switch (s.kind) {
                case REQUESTED -> {
                    idleWorkDue = true;
                    if (!s.result.isDone() && !machine.has(s.closeId)) { // not taken already (a try before faulted)
                        machine.closeRequested(s.target, s.closeId, s.result, s.requestedNanos);
                    }
                }
                case EXITED -> machine.childExited(s.run, s.track, s.exit);
                case JOINED -> machine.childJoined(s.closeId);
                case SETTLED -> machine.settled(s.closeId);
                case ESCALATE_NOW -> machine.escalateNow(s.closeId, s.origin);
                case ESCALATE_ALL -> machine.escalateAll(s.origin);
                case EVIDENCE -> machine.evidenceCaptured(s.closeId);
                default -> throw new IllegalStateException("unknown close input kind=" + s.kind);
            }
            runLocal();
            if (endOfBatch) {
                if (exitsReady()) {
                    collectExits(); // a busy ring does not hold back the exits watched here
                }
                machine.endOfBatch();
                tickIfDue();
                releaseHeldIfDue();
            }
        }

        /** Collects the exits the watch found ready; their inputs (queued by their onExit stages) are handled now. */
        private void collectExits() {
            exits.reapReady();
            runLocal();
        }

        /** The inputs this thread caused itself while handling the last ones, in order. */
        private void runLocal() {
            Runnable r;
            while ((r = local.poll()) != null) {
                r.run();
            }
        }

        void onTimeout(long sequence) {
            if (exits != null) {
                collectExits(); // what the wait found ready: handled as one batch
                machine.endOfBatch();
            }
            tickIfDue();
            releaseHeldIfDue();
            runIfIdle();
        }

        /**
         * From the wait's timeout once no close ran for {@link #IDLE_WORK_DELAY_MILLIS} (the wait is bounded by it while
         * the work is due): never in the timeout whose exits or tick ended the last close.
         */
        private void runIfIdle() {
            if (machine.idle() && idleWorkDue && MonotonicClock.nanos() - machine.idleSinceNanos() >= IDLE_WORK_DELAY_NANOS) {
                idleWorkDue = false;
                try {
                    whenIdle.run();
                } catch (RuntimeException | InternalError e) { // InternalError: a memory fault in a cut mapped file
                    // left for later: the store removes what is pending before its next allocation, and fails there
                }
            }
        }

        private void tickIfDue() {
            if (machine.idle()) {
                return;
            }
            long now = MonotonicClock.nanos();
            if (now - lastTick >= TICK_NANOS) {
                lastTick = now;
                machine.tick();
                runLocal();
            }
        }
    }

    /** Wakes the journal's appender for what this thread held, once it held it {@link #HOLD_NANOS} or no close runs. */
    private void releaseHeldIfDue() {
        long held = journal.heldNanos();
        if (held >= HOLD_NANOS || (held >= 0 && machine.idle())) {
            journal.hurry();
        }
    }

    /**
     * The engine thread's wait when the ring is empty: on its {@link ExitWatch} (the ring's publishers write its eventfd
     * while it sleeps), at most until the next tick while closes run, without a bound while none does. A watched child
     * ready to be collected, like the tick, ends the wait as a timeout: {@link Processor#onTimeout} collects it on this
     * thread. (Publishing exits into its own ring from here could block on a full ring: it never does.)
     */
    private final class ExitAwareWait implements WaitStrategy {
        private volatile boolean sleeping;

        @Override
        public long waitFor(long sequence, Sequence cursor, Sequence dependentSequence, SequenceBarrier barrier)
                throws AlertException, TimeoutException {
            if (cursor.get() < sequence) {
                sleeping = true; // before the cursor is read again: a publisher after that read sees it and wakes us
                try {
                    while (cursor.get() < sequence) {
                        barrier.checkAlert();
                        int ready = exits.await(timeoutMillis());
                        if (ready != 0) {
                            throw TimeoutException.INSTANCE; // exits to collect, or the tick is due
                        }
                    }
                } finally {
                    sleeping = false;
                }
            }
            long available;
            while ((available = dependentSequence.get()) < sequence) {
                barrier.checkAlert();
                Thread.onSpinWait();
            }
            return available;
        }

        /** Until the next tick while closes run, without a bound while none does; within what is left of a hold. */
        private int timeoutMillis() {
            int timeout = !machine.idle() ? (int) TimeUnit.NANOSECONDS.toMillis(TICK_NANOS)
                    : idleWorkDue ? IDLE_WORK_DELAY_MILLIS : -1;
            long held = journal.heldNanos();
            if (held >= 0) {
                long left = HOLD_NANOS - held;
                if (left <= 0 || machine.idle()) {
                    journal.hurry();
                } else {
                    int millis = (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999));
                    timeout = timeout < 0 ? millis : Math.min(timeout, millis);
                }
            }
            return timeout;
        }

        @Override
        public void signalAllWhenBlocking() {
            if (sleeping) {
                exits.wake();
            }
        }
    }

    /** Stops the engine thread after the inputs already published are handled (bounded); closes no pool. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // the inputs already published are handled first (bounded), then the thread is told to stop
        long deadline = MonotonicClock.nanos() + TimeUnit.SECONDS.toNanos(30);
        while (failure == null && thread.isAlive() && consumed.get() < ring.getCursor()
                && MonotonicClock.nanos() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        halted = true;
        barrier.alert();
        journal.hurry(); // anything the engine thread still held
        if (exits == null) {
            return;
        }
        // The thread may still be on its way out of the watch's epoll_wait (halt() does not wait for it): its descriptors
        // are closed only once it is gone, never under it (a number reused meanwhile would be waited on instead).
        Thread t = thread;
        try {
            if (t != null) {
                t.join(TimeUnit.SECONDS.toMillis(5));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t == null || !t.isAlive()) {
            exits.close(); // what it still watched goes back to the reaper
        }
    }
}
