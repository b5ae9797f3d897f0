package dev.vigil.mailbox;

import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MailboxTransitionBatch;
import dev.vigil.journal.RingOverrun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Moves mailbox transition rings into the journal: every record once, in state-word sequence order per mailbox, packed
 * per pass into {@link MailboxTransitionBatch} events of at most {@value MailboxTransitionBatch#MAX_TRANSITIONS}
 * transitions (time = the writer's own CLOCK_MONOTONIC stamp; one event per transition cost ~650 ns of CPU each,
 * docs/JOURNAL.md "Packed transitions"); any sequence it can never see becomes a {@link RingOverrun} naming the gap,
 * journaled after the batch of the records before it.
 *
 * <p>How order and gaps are decided. A writer first wins its state-word CAS, then claims a ring ticket
 * (fetch-and-add on the ring head) and publishes the record; so tickets can be claimed out of seq order and
 * a record can be claimed but not yet published. The drainer reads tickets in order, holds records back
 * while the seq right after the last journaled one is missing, and releases them in (seq, ticket) order. A
 * missing seq is declared lost (RingOverrun) when its ring slot was overwritten (the ring lapped), or it
 * stayed missing for {@code stallNanos} (a writer died between its CAS and its record), or on
 * {@link #drainFinal}. In legacy mode two records may carry the same seq (two writers computed seq n+1 from
 * one read; one store erased the other): both are journaled, the second's {@code from} differing from the
 * first's {@code to}; that is the evidence of the lost update. A lost record whose seq was journaled anyway
 * (legacy only) is reported as RingOverrun with firstLostSeq == lastLostSeq == that seq.
 *
 * <p>Flow control (docs/MAILBOX.md, "Flow control"), the way an Aeron publication respects its subscribers:
 * after every drain the drainer publishes its consumer position (the next ticket it has not drained) in the
 * mailbox, and at {@link #register} turns the mailbox's flow-control word on; a writer whose ticket would lap that
 * position waits (bounded) instead of overwriting an undrained record. So while this drainer lives, nothing is
 * lost at any rate; a writer laps only when the drainer stays still for the mailbox's writer wait (stopped, dead,
 * wedged), and the overwritten records then show up here exactly: the seqlock read of their slot fails, and the
 * sequence numbers they carried are journaled as one RingOverrun per gap. {@link #forget} and {@link #close}
 * turn flow control off.
 *
 * <p>Promptness at little cost. A wake-up is the expensive part of draining (40-250 us of the drainer's CPU each on
 * this 2-core VM, measured: far more than the records it drains), so the drainer wakes seldom and drains much at a
 * time; the journal's appender thread pays the same per wake-up, so the drainer hands it much at a time too. The
 * parent's command path copies records out of the ring itself (the thread is running anyway, no wake-up, and a writer
 * never waits while commands keep coming): {@link #commandIssued}, right after it publishes a command, a piece while
 * the child answers; {@link #commandCompleted}, after it observes a completion, the whole ring when it is at least half
 * full. It copies the records out of the ring into batches that wait for the background pass (or are
 * journaled at once when {@value #JOURNAL_EVERY} wait), and wakes the background thread ({@link #start}) only when it
 * is in its idle park. The background thread journals what the command path drained and what it left, every
 * mailbox's batches back to back: it parks {@value #BUSY_PARK_NANOS} ns after a pass that found records (so a record
 * waits about that long at most for the journal), doubles its park after passes that found none up to the idle bound
 * ({@link dev.vigil.pool.Orchestrator#DRAIN_PERIOD}: one look a second at idle rings), and a writer of this process
 * that finds a ring full wakes it at once. {@link #drain}, {@link #drainFinal}, {@link #drainAll} and {@link #forget}
 * journal everything drained before they return.
 *
 * <p>Thread-safe; draining one mailbox from several threads serializes on its cursor, except that the background pass
 * and the command path never wait for it: each leaves a mailbox that another thread is draining to that thread. The
 * background pass hands a mailbox's batches to the journal after it lets the cursor go (encoding them takes a while),
 * under a second per-mailbox lock that every path handing that mailbox's events to the sink takes, always after the
 * cursor: the journal gets them in order.
 */
public final class RingDrainer implements AutoCloseable {
    public static final Duration DEFAULT_STALL = Duration.ofSeconds(1);
    /**
     * Park of the background thread after a pass that found records: about the longest a record of a busy ring waits
     * for the journal. Each pass is a wake-up of this thread and one of the journal's appender (~100-250 us of CPU each
     * on this VM): 50 us made ~5,000 wake-ups a second that cost 16 % of a core and drained ~10 records each; 1 ms made
     * 1,000 appender wake-ups a second at 1.6 M transitions a second, a fifth of a core (docs/BENCHMARKS.md, "Transition
     * ring flow control"). Ring space does not wait for it: the command path drains at half full, a full ring nudges.
     * Tried at load 17-27, before transitions were delta-encoded: 20 ms with JOURNAL_EVERY 32,768 cut the drainer's and
     * appender's CPU in the ring bench's rounds from ~70 to ~40 ms a second, but raised journaling's CPU per transition
     * in the bench's in-process loop from +73 / +120 ns to +123 / +200 ns (four runs alternating: four times the batches
     * per pass went through the caches), and would quadruple the crash window (docs/MAILBOX.md): not taken.
     */
    public static final long BUSY_PARK_NANOS = 5_000_000;
    /**
     * Transitions the command path's inline drains let wait for the background pass at most, per mailbox (a bound on
     * memory, ~100 KiB of packed batches): above any one mailbox's rate over a busy park (one C child answering back to
     * back made 1.7-4.4 M transitions a second on this VM), so the background pass is the journal's one hand-off per park
     * and the appender wakes once per pass. At 8 batches it was reached every ~4-5 ms at 1.7-2 M transitions a second,
     * just before the pass: two hand-offs per park, each an appender wake-up, and the encoding and the wake-up on the
     * command path.
     */
    public static final int JOURNAL_EVERY = 32 * MailboxTransitionBatch.MAX_TRANSITIONS;
    private static final int ORCHESTRATOR_PID = (int) ProcessHandle.current().pid();
    private static final Comparator<TransitionRecord> SEQ_ORDER =
            Comparator.comparingLong(TransitionRecord::seq).thenComparingLong(TransitionRecord::ticket);

    private final Consumer<? super JournalEvent> sink;
    private final long stallNanos;
    private final boolean flowControl;
    private final Map<MailboxHandle, Cursor> cursors = new ConcurrentHashMap<>();
    private volatile Thread background;
    /** How long the background thread is parked for right now (0 while it drains or after a nudge). */
    private volatile long parkedForNanos;
    private static final java.lang.invoke.VarHandle PARKED_FOR;

    static {
        try {
            PARKED_FOR = java.lang.invoke.MethodHandles.lookup().findVarHandle(RingDrainer.class, "parkedForNanos", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Parent writers of this process that found a ring full and had to wait (flow control held them back). */
    private final LongAdder ringFullWaits = new LongAdder();
    /**
     * Writers (of any process: the C and Java children's included) that a drain found held back by a full ring: the
     * tickets claimed beyond the ring when the drain began, each waiting for that drain (one that waits through several
     * drains counts at each).
     */
    private final LongAdder writersHeld = new LongAdder();
    /**
     * Inline drains by the command path: pieces while a child answers ({@link #commandIssued}), whole drains at a
     * completion (ring at least half full), and those it left because another thread held the cursor.
     */
    private final LongAdder pieces = new LongAdder();
    private final LongAdder inlineDrains = new LongAdder();
    private final LongAdder inlineBusy = new LongAdder();
    /** Background passes, and the mailboxes they left because another thread held the cursor. */
    private final LongAdder passes = new LongAdder();
    private final LongAdder passLooks = new LongAdder();
    private final LongAdder passBusy = new LongAdder();

    /**
     * How draining went so far, for benchmarks and diagnosis: {@code ringFullWaits} parent writers of this process that
     * found a ring full (each waited for this drainer, or lapped after the mailbox's writer wait), {@code writersHeld}
     * writers of any process (children included) a drain found waiting on a full ring, {@code pieces} the command
     * path's copies while a child answers ({@link #commandIssued}), {@code inlineDrains} its drains at a completion
     * (ring half full) and {@code inlineBusy} those it left to the thread holding the cursor, {@code passes}
     * background passes, {@code passLooks} the mailboxes they looked at (an idle one is looked at seldom, see
     * {@link #IDLE_LOOK_MAX_NANOS}) and {@code passBusy} those a pass left to the thread holding the cursor.
     */
    public record Counts(long ringFullWaits, long writersHeld, long pieces, long inlineDrains, long inlineBusy, long passes, long passLooks,
            long passBusy) {
    }

    public Counts counts() {
        return new Counts(ringFullWaits.sum(), writersHeld.sum(), pieces.sum(), inlineDrains.sum(), inlineBusy.sum(), passes.sum(), passLooks.sum(),
                passBusy.sum());
    }

    /** What restores a map file cut short and says so (null when nothing was cut); see {@link MailboxStore#restoreCutLength}. */
    private volatile java.util.function.Supplier<String> mappedFileRepair = () -> null;

    /** After a memory fault while draining, {@code repair} runs and draining goes on. */
    public void repairMappedFilesWith(java.util.function.Supplier<String> repair) {
        mappedFileRepair = repair;
    }

    /** A flow-controlling drainer that journals into {@code sink} (e.g. {@code journalWriter::append}). */
    public RingDrainer(Consumer<? super JournalEvent> sink) {
        this(sink, DEFAULT_STALL, true);
    }

    public RingDrainer(Consumer<? super JournalEvent> sink, Duration stall) {
        this(sink, stall, true);
    }

    /** {@code flowControl false}: writers are never held back (the lapping ring, for comparison and tests). */
    public RingDrainer(Consumer<? super JournalEvent> sink, Duration stall, boolean flowControl) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.stallNanos = stall.toNanos();
        this.flowControl = flowControl;
    }

    /**
     * Starts tracking a mailbox from its first transition (seq 1, ticket 0): publishes the consumer position,
     * turns flow control on (if this drainer does flow control) and hooks the handle's command path.
     */
    public void register(MailboxHandle handle) {
        cursorOf(handle);
    }

    /** Stops tracking a mailbox (after its final drain, before it is released); its writers are no longer held back. */
    public void forget(MailboxHandle handle) {
        Cursor cursor = cursors.remove(handle);
        if (cursor != null) {
            cursor.journalWaiting(handle); // drained by the command path, not journaled yet: nothing is dropped
            detach(handle);
        }
    }

    private void attach(MailboxHandle handle, Cursor cursor) {
        MappedMailbox mailbox = handle.mailbox();
        handle.onCommandCompleted(() -> commandCompleted(handle));
        handle.onCommandIssued(() -> commandIssued(handle));
        if (flowControl) {
            mailbox.ringConsumerPositionRelease(cursor.nextTicket);
            mailbox.onRingFull(() -> ringFull(cursor));
            mailbox.ringFlowControlRelease(true);
        }
    }

    private void detach(MailboxHandle handle) {
        handle.onCommandCompleted(null);
        handle.onCommandIssued(null);
        handle.mailbox().onRingFull(null);
        if (flowControl) {
            handle.mailbox().ringFlowControlRelease(false);
        }
    }

    /**
     * The parent's command path observed a completion on {@code handle}: drain it here when its ring is at least
     * half full, else wake the background thread if it is in its idle park (cheap when it is not: one volatile read).
     */
    public void commandCompleted(MailboxHandle handle) {
        Cursor cursor = cursors.get(handle);
        if (cursor == null || !flowControl) {
            return; // without flow control only the background cadence drains (the pre-flow-control ring, for comparison)
        }
        MappedMailbox mailbox = handle.mailbox();
        if (mailbox.ringHeadAcquire() - cursor.nextTicket >= mailbox.ringCapacity() / 2) {
            // the records wait for the background pass (or JOURNAL_EVERY)
            (cursor.drainUnlessBusy(handle, 0, false) < 0 ? inlineBusy : inlineDrains).increment();
        }
        cursor.poke();
        if (parkedForNanos > BUSY_PARK_NANOS) {
            nudge();
        }
    }

    /** Fewest records {@link #commandIssued} copies out of a ring at a time (fewer wait for the next command). */
    static final int PIECE_MIN = 16;
    /**
     * Most records {@link #commandIssued} copies at a time: about what the command path copies while a C child answers
     * (~0.5 us), so that it is back at its wait before the answer is.
     */
    static final int PIECE_MAX = 64;
    /** Records at the ring's head a piece leaves for later: the ring line the child writes next stays in its cache alone. */
    static final int PIECE_KEEP = 2;

    /**
     * The parent's command path has just published a command on {@code handle}: while the child works on it (the command
     * path would only spin until the answer), copy a piece of the ring out, {@value #PIECE_MIN}-{@value #PIECE_MAX}
     * records when that many wait. Before, the command path drained only at completion, half a ring at a time, while
     * the child waited for its next command.
     */
    public void commandIssued(MailboxHandle handle) {
        Cursor cursor = cursors.get(handle);
        if (cursor == null || !flowControl) {
            return;
        }
        long upTo = handle.mailbox().ringHeadAcquire() - PIECE_KEEP;
        long from = cursor.nextTicket;
        if (upTo - from >= PIECE_MIN) {
            (cursor.drainUnlessBusy(handle, 0, false, Math.min(upTo, from + PIECE_MAX)) < 0 ? inlineBusy : pieces).increment();
        }
    }

    private void ringFull(Cursor cursor) {
        ringFullWaits.increment();
        cursor.poke();
        nudge();
    }

    /** Wakes the background thread if it is parked (one unpark however many threads nudge at once). */
    public void nudge() {
        Thread thread = background;
        long parked = parkedForNanos;
        if (thread != null && parked != 0 && PARKED_FOR.compareAndSet(this, parked, 0L)) {
            LockSupport.unpark(thread);
        }
    }

    /** CPU time the background thread has used so far (nanos; -1 when not measurable or not started). */
    public long backgroundCpuNanos() {
        Thread thread = background;
        if (thread == null) {
            return -1;
        }
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        return threads.isThreadCpuTimeSupported() ? threads.getThreadCpuTime(thread.getId()) : -1;
    }

    /**
     * Journals what is new and complete in the ring of {@code handle} (registering it if needed); returns the number of
     * transitions and overruns journaled.
     */
    public int drain(MailboxHandle handle, long closeId) {
        return cursorOf(handle).drain(handle, closeId, false, true);
    }

    /**
     * Journals everything left: records claimed but never published and sequence numbers the state word has
     * reached but no record shows become RingOverrun events. Call once the child is gone (reaped) or at the end of a run.
     */
    public int drainFinal(MailboxHandle handle, long closeId) {
        return cursorOf(handle).drain(handle, closeId, true, true);
    }

    /** {@link #drain} over every registered mailbox. */
    public int drainAll(long closeId) {
        int events = 0;
        for (MailboxHandle handle : cursors.keySet()) {
            events += drain(handle, closeId);
        }
        return events;
    }

    /**
     * The background thread's pass: {@link #drainAll}, except that a mailbox whose cursor another thread holds right now
     * (the command path draining it inline) is left to that thread and counted as busy: neither side ever waits for the
     * other. Waiting did cost: with 16 C children on 2 cores, a holder preempted mid-drain kept the other waiting for
     * milliseconds (JFR, one run at load ~19: the background thread blocked 5.4 s in total on cursors over ~13 s of
     * drained rounds, the command threads 0.85 s).
     */
    private int backgroundPass(long closeId) {
        int events = 0;
        passes.increment();
        long now = System.nanoTime();
        int looks = 0;
        for (Map.Entry<MailboxHandle, Cursor> e : cursors.entrySet()) {
            Cursor cursor = e.getValue();
            if (now - cursor.nextVisitNanos < 0 && !cursor.poked) {
                continue; // idle lately: looked at again once its own back-off is up
            }
            looks++;
            if (cursor.poked) {
                cursor.poked = false; // before the head is read: a record the poke announced is seen now
            }
            int drained = cursor.drainUnlessBusy(e.getKey(), closeId, true);
            if (drained < 0) {
                passBusy.increment();
            }
            cursor.visited(now, drained != 0);
            events += drained < 0 ? 1 : drained;
        }
        passLooks.add(looks);
        return events;
    }

    /**
     * Longest a mailbox whose ring the background pass found empty waits for its next look, doubling from
     * {@value #BUSY_PARK_NANOS} ns per empty look (a poke by the command path or a full ring ends it). Every pass used to
     * look at every mailbox, every {@value #BUSY_PARK_NANOS} ns while any ring had records: ~0.8 us a mailbox (a head
     * load, one mailbox a page, plus the cursor's lock and map entry), so a start of 9,000 children, each with one
     * record, kept the pass at 9,000 x 200 looks a second (JFR: 41 % of the orchestrator's Java samples). Well below
     * the writers' wait ({@link MailboxDescriptor#DEFAULT_RING_WAIT_NANOS}) and the idle park.
     */
    static final long IDLE_LOOK_MAX_NANOS = 32 * BUSY_PARK_NANOS;

    /** The last seq journaled for a mailbox (0 if none). */
    public long lastSeq(MailboxHandle handle) {
        Cursor cursor = cursors.get(handle);
        if (cursor == null) {
            return 0;
        }
        cursor.lock.lock();
        try {
            return cursor.lastSeq;
        } finally {
            cursor.lock.unlock();
        }
    }

    /**
     * Lets go of every cursor lock the calling thread still holds: called where a memory fault (a map file cut short) is
     * caught, where no hold of this thread's is legitimate. The JVM throws that InternalError at an instruction after
     * the faulting access, which may be inside a finally block before its unlock: seen, the drainer thread went on
     * holding a cursor's lock and the close engine's release of that mailbox waited for it forever.
     */
    public void releaseLocksLeftByFault() {
        for (Cursor c : cursors.values()) {
            while (c.lock.isHeldByCurrentThread()) {
                c.lock.unlock();
            }
            while (c.journalOrder.isHeldByCurrentThread()) {
                c.journalOrder.unlock();
            }
        }
    }

    /**
     * Drains every registered mailbox on a daemon thread until {@link #stop()}: {@value #BUSY_PARK_NANOS} ns after
     * a pass that found records, backing off (doubling) to {@code idlePeriod} while rings are idle; a nudge
     * ({@link #commandCompleted}, a full ring) ends a park early.
     */
    public synchronized void start(Duration idlePeriod, LongSupplier closeId) {
        if (background != null) {
            throw new MailboxException("ring drainer already started");
        }
        long idleNanos = Math.max(BUSY_PARK_NANOS, idlePeriod.toNanos());
        Thread thread = new Thread(() -> {
            long failures = 0;
            long park = BUSY_PARK_NANOS;
            while (!Thread.currentThread().isInterrupted()) {
                int events = 0;
                try {
                    events = backgroundPass(closeId.getAsLong());
                } catch (RuntimeException | InternalError e) { // e.g. the journal refused an event: keep draining, say so (rarely)
                    // A memory fault (a child cut the map file short) killed this thread before: no ring drained after it.
                    if (dev.vigil.journal.JournalException.isMemoryFault(e) && mappedFileRepair.get() != null) {
                        continue;
                    }
                    if (Long.bitCount(++failures) == 1) {
                        // in words, never a class name (it printed "error=java.lang.InternalError: a fault occurred ...")
                        System.err.println("vigil ring drainer: drain failed: failures=" + failures + " error="
                                + (dev.vigil.journal.JournalException.isMemoryFault(e)
                                        ? "memory fault on the mailbox map (cut short while mapped, restored meanwhile)"
                                        : dev.vigil.journal.JournalException.plain(e)));
                    }
                }
                park = events > 0 ? BUSY_PARK_NANOS : Math.min(idleNanos, park * 2);
                parkedForNanos = park;
                LockSupport.parkNanos(park);
                parkedForNanos = 0;
            }
        }, "vigil-ring-drainer");
        thread.setDaemon(true);
        background = thread;
        thread.start();
    }

    /** {@link #stop()}, then turns flow control off in every tracked mailbox (nobody drains them now). */
    @Override
    public void close() {
        stop();
        for (MailboxHandle handle : cursors.keySet()) {
            detach(handle);
        }
    }

    /** Stops the background thread, if any (does not drain; call {@link #drainFinal} per mailbox afterwards). */
    public synchronized void stop() {
        Thread thread = background;
        background = null;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Cursor cursorOf(MailboxHandle handle) {
        Cursor cursor = cursors.get(handle);
        if (cursor != null) {
            return cursor;
        }
        return cursors.computeIfAbsent(handle, h -> {
            Cursor fresh = new Cursor();
            attach(h, fresh);
            return fresh;
        });
    }

    private final class Cursor {
        /** Held by whoever drains this mailbox; the background pass and the command path only try it. */
        final ReentrantLock lock = new ReentrantLock();
        /**
         * Held by whoever hands this mailbox's batches to the sink, taken while {@link #lock} is held (never the other way
         * round): the background pass takes it, lets {@link #lock} go and journals its batches after, so the journal
         * keeps their order while the command path may drain the ring meanwhile (see {@link #drainUnlessBusy}).
         */
        final ReentrantLock journalOrder = new ReentrantLock();
        long nextTicket;
        long lastSeq;
        long lostTickets;
        long stalledSince;
        long gapSince;
        final TreeSet<TransitionRecord> held = new TreeSet<>(SEQ_ORDER);
        /** Transitions copied out of the ring, not yet journaled: whole batches, then {@link #batch} (of batchCloseId). */
        final List<MailboxTransitionBatch> packed = new ArrayList<>();
        final MailboxTransitionBatch.Builder batch = new MailboxTransitionBatch.Builder();
        /** {@link #batch} as the ring's straight path fills it. */
        final MappedMailbox.PackedRecordSink batchSink = batch::addPacked;
        long batchCloseId;
        /** The background pass's: when to look at this ring again, and its back-off (0 while it has records). */
        long nextVisitNanos = System.nanoTime();
        long idleLookNanos;
        /** Set by the command path and a full ring: look at this ring in the next pass, whatever its back-off. */
        volatile boolean poked;

        void visited(long now, boolean found) {
            idleLookNanos = found ? 0 : Math.min(IDLE_LOOK_MAX_NANOS, Math.max(BUSY_PARK_NANOS, idleLookNanos * 2));
            nextVisitNanos = now + idleLookNanos;
        }

        void poke() {
            if (!poked) {
                poked = true;
            }
        }

        /**
         * Copies what is new and complete out of the ring (freeing its slots for the writers) and, when {@code journal}
         * or once {@value #JOURNAL_EVERY} transitions wait, journals every transition waiting. Returns the transitions
         * and overruns read, plus those journaled now that an earlier call read.
         */
        int drain(MailboxHandle handle, long closeId, boolean force, boolean journal) {
            lock.lock();
            try {
                return drainLocked(handle, closeId, force, journal, Long.MAX_VALUE);
            } finally {
                lock.unlock();
            }
        }

        /**
         * {@link #drain} (not forced) if no other thread holds this cursor now, else -1 at once (that thread drains it);
         * 0 for a cursor {@link #forget} has taken out meanwhile (its mailbox may be released).
         */
        int drainUnlessBusy(MailboxHandle handle, long closeId, boolean journal) {
            return drainUnlessBusy(handle, closeId, journal, Long.MAX_VALUE);
        }

        /** {@link #drainUnlessBusy(MailboxHandle, long, boolean)} of the tickets below {@code limit} at most. */
        int drainUnlessBusy(MailboxHandle handle, long closeId, boolean journal, long limit) {
            if (!lock.tryLock()) {
                return -1;
            }
            List<MailboxTransitionBatch> toJournal;
            int events;
            try {
                if (cursors.get(handle) != this) {
                    return 0;
                }
                int readBefore = journal ? unjournaled() : 0;
                events = drainLocked(handle, closeId, false, false, limit) + readBefore;
                if (!journal) {
                    return events;
                }
                seal(handle);
                if (packed.isEmpty()) {
                    return events;
                }
                // Journaled after the cursor is let go: handing a pass's batches to the journal encodes them (~80 ns a
                // transition, ~0.6 ms for 5 ms of one busy C child), and the command path, finding the cursor held, left
                // the ring to fill meanwhile (ring bench under load: 129 of 295 inline drains a second left so, and
                // writers waiting on a full ring). journalOrder, taken before the cursor is let go, keeps the order.
                toJournal = new ArrayList<>(packed);
                packed.clear();
                journalOrder.lock();
            } finally {
                lock.unlock();
            }
            try {
                journal(toJournal);
            } finally {
                journalOrder.unlock();
            }
            return events;
        }

        /**
         * Hands {@code batches} to the sink in order, each even after one throws (a journal that failed counts each
         * later event as not written), then throws the first failure.
         */
        private void journal(List<MailboxTransitionBatch> batches) {
            RuntimeException failure = null;
            for (MailboxTransitionBatch b : batches) {
                try {
                    sink.accept(b);
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
        }

        private int drainLocked(MailboxHandle handle, long closeId, boolean force, boolean journal, long limit) {
            int readBefore = journal ? unjournaled() : 0;
            MappedMailbox mailbox = handle.mailbox();
            long ringHead = mailbox.ringHeadAcquire();
            long head = Math.min(ringHead, Math.max(limit, nextTicket));
            if (nextTicket == head && held.isEmpty() && !force) {
                return readBefore == 0 ? 0 : journalPacked(handle); // the idle case: one load
            }
            long now = System.nanoTime();
            long drainedFrom = nextTicket;
            int events = 0;
            // No skipping ahead on a head up to two rings ahead: with flow control, writers claim tickets before they
            // wait for space, so the head runs ahead of records that are still intact (ticket t's slot is claimed by
            // t + capacity, whose writer waits while the position is at or below t: one waiting writer keeps one such
            // record intact). An overwritten slot reads as such. Beyond two rings, the tickets below head - 2 x capacity
            // are lost without a look: keeping one intact would take more writers waiting at once than the ring has
            // slots. The walk thus reads at most two rings, whatever the head says: a child that wrote 2^62 into its
            // RING_HEAD held this lock, and the command path waiting on it, in a walk of 2^62 steps (the run, and its
            // Ctrl-C, hung for good; MisbehavingChildTest). Such a head also jumped over tickets nobody claimed, whose
            // slots stay unpublished for good: in this pass they are lost at once instead of after a stall each (which
            // kept every writer of that mailbox waiting out its bound, 1 s per transition, for 2 x capacity stalls).
            long beyondTheRing = ringHead - nextTicket - mailbox.ringCapacity();
            if (beyondTheRing > 0 && beyondTheRing <= mailbox.ringCapacity()) {
                writersHeld.add(beyondTheRing); // each claimed a ticket whose slot holds an undrained record: waiting for this drain
            }
            long behind = head - nextTicket - 2L * mailbox.ringCapacity();
            boolean forged = behind > 0;
            if (forged) {
                lostTickets += behind;
                nextTicket += behind;
            }
            while (nextTicket < head) {
                if (held.isEmpty() && lostTickets == 0 && readInto(handle, closeId, mailbox)) { // in order, no allocation
                    lastSeq++;
                    gapSince = 0;
                    events++;
                    stalledSince = 0;
                    nextTicket++;
                    continue;
                }
                TransitionRecord record = mailbox.readRing(nextTicket);
                if (record.readable()) {
                    if (held.isEmpty() && lostTickets == 0 && record.seq() == lastSeq + 1) {
                        transition(handle, closeId, record); // in order: straight through
                        lastSeq = record.seq();
                        gapSince = 0;
                        events++;
                    } else {
                        held.add(record);
                    }
                } else if (record == TransitionRecord.OVERWRITTEN) {
                    lostTickets++;
                } else if (force || forged || (stalledSince != 0 && now - stalledSince > stallNanos)) {
                    lostTickets++; // claimed, never published: its writer died between CAS and record
                } else {
                    if (stalledSince == 0) {
                        stalledSince = now;
                    }
                    break;
                }
                stalledSince = 0;
                nextTicket++;
            }
            if (nextTicket != drainedFrom && flowControl) {
                mailbox.ringConsumerPositionRelease(nextTicket); // every record below is copied: writers may reuse the slots
            }
            events += release(handle, closeId, now, force);
            if (force && held.isEmpty() && nextTicket == head) {
                long stateSeq = MailboxDescriptor.seq(mailbox.stateAcquire());
                if (stateSeq > lastSeq) {
                    overrun(handle, closeId, lastSeq + 1, stateSeq);
                    lastSeq = stateSeq;
                    events++;
                } else if (lostTickets > 0) {
                    overrun(handle, closeId, lastSeq, lastSeq);
                    events++;
                }
                lostTickets = 0;
            }
            if (journal || unjournaled() >= JOURNAL_EVERY) {
                journalPacked(handle);
            }
            return events + readBefore;
        }

        void journalWaiting(MailboxHandle handle) {
            lock.lock();
            try {
                journalPacked(handle);
            } finally {
                lock.unlock();
            }
        }

        private int unjournaled() {
            return packed.size() * MailboxTransitionBatch.MAX_TRANSITIONS + batch.size();
        }

        private int release(MailboxHandle handle, long closeId, long now, boolean force) {
            int events = 0;
            while (!held.isEmpty()) {
                TransitionRecord first = held.first();
                if (first.seq() <= lastSeq + 1) {
                    if (lostTickets > 0 && first.seq() <= lastSeq) {
                        // legacy duplicate after a loss: we cannot tell which records of this seq were lost
                        overrun(handle, closeId, first.seq(), first.seq());
                        lostTickets = 0;
                        events++;
                    }
                    held.pollFirst();
                    transition(handle, closeId, first);
                    lastSeq = Math.max(lastSeq, first.seq());
                    gapSince = 0;
                    events++;
                    continue;
                }
                if (lostTickets > 0 || force || (gapSince != 0 && now - gapSince > stallNanos)) {
                    overrun(handle, closeId, lastSeq + 1, first.seq() - 1);
                    lastSeq = first.seq() - 1;
                    lostTickets = 0;
                    gapSince = 0;
                    events++;
                    continue;
                }
                if (gapSince == 0) {
                    gapSince = now;
                }
                break;
            }
            return events;
        }

        private void transition(MailboxHandle handle, long closeId, TransitionRecord record) {
            beforeAdd(handle, closeId);
            batch.add(record.seq(), record.timeNanos(), record.fromState(), record.toState(), record.writerCode(), record.writerPid());
            afterAdd(handle);
        }

        /** The record of nextTicket added straight from the ring when it is the next seq (see MappedMailbox#readRingInto). */
        private boolean readInto(MailboxHandle handle, long closeId, MappedMailbox mailbox) {
            beforeAdd(handle, closeId);
            if (!mailbox.readRingInto(nextTicket, lastSeq + 1, batchSink)) {
                return false;
            }
            afterAdd(handle);
            return true;
        }

        private void beforeAdd(MailboxHandle handle, long closeId) {
            if (batch.size() > 0 && closeId != batchCloseId) {
                seal(handle);
            }
            batchCloseId = closeId;
        }

        private void afterAdd(MailboxHandle handle) {
            if (batch.size() == MailboxTransitionBatch.MAX_TRANSITIONS) {
                seal(handle);
            }
        }

        private void seal(MailboxHandle handle) {
            if (batch.size() > 0) {
                MailboxId id = handle.id();
                packed.add(batch.build(ORCHESTRATOR_PID, id.poolId(), batchCloseId, id.group(), id.index(), WriterRole.CODE_NAMES));
            }
        }

        /** Journals every transition waiting, in order, as batches back to back (one wake-up of the appender); returns how many. */
        private int journalPacked(MailboxHandle handle) {
            seal(handle);
            int transitions = 0;
            journalOrder.lock(); // after a background pass's batches still being journaled
            try {
                for (MailboxTransitionBatch b : packed) {
                    sink.accept(b);
                    transitions += b.size();
                }
            } finally {
                journalOrder.unlock();
            }
            packed.clear();
            return transitions;
        }

        private void overrun(MailboxHandle handle, long closeId, long firstLost, long lastLost) {
            journalPacked(handle); // the records before the gap come first in the journal too
            MailboxId id = handle.id();
            journalOrder.lock();
            try {
                sink.accept(new RingOverrun(System.nanoTime(), ORCHESTRATOR_PID, id.poolId(), closeId, id.group(), id.index(), firstLost, lastLost));
            } finally {
                journalOrder.unlock();
            }
        }
    }
}
