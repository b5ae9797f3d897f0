package dev.vigil.journal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.LiteTimeoutBlockingWaitStrategy;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;

import net.openhft.chronicle.core.io.SingleThreadedChecked;
import net.openhft.chronicle.core.time.SystemTimeProvider;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * The one writer of a journal in this process. Producers on any thread {@link #append} events into
 * a Disruptor ring; a single appender thread owns the Chronicle appender (appenders are
 * single-threaded) and writes them in ring order.
 *
 * <p>Nothing is dropped silently. A full ring makes {@link #append} wait up to the publish timeout
 * and then throw {@link JournalException}. From the first event that could not be written (a write
 * failed, e.g. the disk is full, or the ring stayed full) the writer writes nothing more: the
 * journal stays a whole prefix, and {@link #gap()} names where it stops, the first event not
 * written, how many followed and why. Appends after that return at once (counted, never thrown),
 * so that a caller with safety duties keeps doing them with a broken journal.
 */
public final class JournalWriter implements AutoCloseable {
    /** Default ring size (events); a power of two. */
    public static final int DEFAULT_RING_SIZE = 1 << 16;
    /** Default bound on how long a producer waits for room in a full ring. */
    public static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(5);

    private static final AtomicInteger THREAD_IDS = new AtomicInteger();
    /**
     * After its last event the appender spins this long, then blocks until a publish wakes it ({@link AppenderWait}): an
     * idle journal costs no CPU (napping 500 us at a time cost ~3 % of a core, and made an event published into a nap
     * wait for it), a burst costs its producer one wake-up, and the spin is short because on a machine whose cores are
     * busy it is taken from the threads that make the events (it was ~240 us a burst before, with a yield phase).
     */
    private static final long APPENDER_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    /**
     * Fewer events than this found at once, the appender naps before it writes them ({@link AppenderWait} says why): an
     * event of a trickle waits one nap (50 us, ~100 us with the kernel's timer slack) more, a flush none.
     */
    private static final int APPENDER_MIN_BATCH = 64;
    /**
     * The block is bounded too (Disruptor calls its lite-lock wake-up elision unproven): a wake-up lost to it would
     * delay the next write by at most this much, never hang it; one look a second costs ~0.03 % of a core.
     */
    private static final long APPENDER_BLOCK_BOUND_MILLIS = 1000;
    /** A flush yields this many times before it naps between looks at the appender's progress. */
    private static final int FLUSH_YIELDS = 50;

    private final Path dir;
    /** Null when the journal could not even be opened (a full disk): every event is then not written. */
    private final SingleChronicleQueue queue;
    private final SingleChronicleQueue closeIndex;
    private final Disruptor<Slot> disruptor;
    private final RingBuffer<Slot> ring;
    private final AppendHandler handler;
    /** The encoded bodies of the ring's events, off heap (what does not fit a slot there stays in its Slot). */
    private final RingBodies bodies;
    private final long publishTimeoutNanos;
    /**
     * How long a producer facing a full ring parks between looks: about 4 % of the ring's worth of the appender's work
     * (~200 ns an event), 50 us to 500 us. Each wake-up then fills a batch of slots; waking every 50 us to fill a few
     * hundred cost both threads (the producer's wake-ups, its stores right behind the appender's reads): at 65,536
     * slots, 50 -> 500 us took the producer's CPU per event from 136 to 93 ns and the appender's from 317 to 274 ns
     * (JournalBench, same JVM, load 16; docs/BENCHMARKS.md).
     */
    private final long fullRingParkNanos;
    private final AppenderWait wait;
    private volatile boolean closed;
    /** The journal dir's identity (device and inode) once open; null when it could not be read. */
    private final Object dirIdentity;

    private JournalWriter(Path dir, int ringSize, Duration publishTimeout, TimeProvider time) {
        this.dir = dir;
        SingleChronicleQueue q = null;
        SingleChronicleQueue index = null;
        String cannotOpen = null;
        AppenderClock clock = new AppenderClock(time);
        try {
            q = JournalDirectory.openForAppend(dir, clock);
            index = JournalDirectory.openCloseIndexForAppend(dir);
        } catch (RuntimeException | InternalError e) {
            String full = WriteFailure.noSpace(dir, e);
            if (full == null) {
                if (q != null) {
                    q.close();
                }
                throw e instanceof JournalException je ? je
                        : new JournalException("cannot open journal dir=" + dir + ": " + JournalException.plain(e), e);
            }
            if (q != null) {
                q.close();
            }
            q = null;
            index = null;
            cannotOpen = "the journal could not be opened: " + full;
        }
        this.queue = q;
        this.closeIndex = index;
        this.dirIdentity = identity(dir);
        this.publishTimeoutNanos = publishTimeout.toNanos();
        this.fullRingParkNanos = Math.min(500_000, Math.max(50_000, ringSize * 8L));
        // -Dvigil.journal.batchNap=false: no nap, the appender takes what it finds (for comparison, per journal opened).
        int minBatch = "false".equals(System.getProperty("vigil.journal.batchNap")) ? 1 : APPENDER_MIN_BATCH;
        // -Dvigil.journal.spinMicros=N: the appender spins N us instead (for comparison, per journal opened).
        long spin = Long.getLong("vigil.journal.spinMicros", -1) < 0 ? APPENDER_SPIN_NANOS
                : TimeUnit.MICROSECONDS.toNanos(Long.getLong("vigil.journal.spinMicros"));
        this.wait = new AppenderWait(spin, minBatch,
                new LiteTimeoutBlockingWaitStrategy(APPENDER_BLOCK_BOUND_MILLIS, TimeUnit.MILLISECONDS));
        this.bodies = new RingBodies(ringSize);
        this.handler = new AppendHandler(dir, queue, closeIndex, clock, bodies);
        if (cannotOpen != null) {
            handler.failAt(0, null, cannotOpen);
        }
        this.disruptor = new Disruptor<>(Slot::new, ringSize,
                r -> {
                    Thread t = new Thread(r, "vigil-journal-appender-" + THREAD_IDS.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                },
                ProducerType.MULTI, wait);
        disruptor.handleEventsWith(handler);
        this.ring = disruptor.start();
    }

    /** Opens (creating if needed) the journal in {@code dir} with default settings. */
    public static JournalWriter open(Path dir) {
        return open(dir, DEFAULT_RING_SIZE, DEFAULT_PUBLISH_TIMEOUT);
    }

    public static JournalWriter open(Path dir, int ringSize, Duration publishTimeout) {
        return open(dir, ringSize, publishTimeout, SystemTimeProvider.INSTANCE);
    }

    /** As {@link #open(Path, int, Duration)}, with the time each event's cycle (day file) is taken from (tests). */
    static JournalWriter open(Path dir, int ringSize, Duration publishTimeout, TimeProvider time) {
        if (Integer.bitCount(ringSize) != 1) {
            throw new IllegalArgumentException("ringSize=" + ringSize + " must be a power of two");
        }
        return new JournalWriter(dir, ringSize, publishTimeout, time);
    }

    public Path dir() {
        return dir;
    }

    /**
     * Null while {@link #dir()} still names the directory this journal writes into; else why not: it was deleted, moved
     * or replaced while the journal was open. No write fails then: Chronicle Queue goes on writing into the files it has
     * mapped, gone with their directory. Before, a run whose journal dir was deleted mid-run exited 0 and printed the
     * replay commands for a path that no longer existed.
     */
    public String dirLost() {
        if (dirIdentity == null) {
            return null;
        }
        Object now = identity(dir);
        if (now == null) {
            return "journal dir=" + dir + " no longer exists: it was deleted or moved while the journal wrote into it"
                    + " (what was written after that went with it)";
        }
        return now.equals(dirIdentity) ? null : "journal dir=" + dir + " is another directory than the one the journal"
                + " wrote into: it was replaced while the journal was open (what was written went with the old one)";
    }

    private static Object identity(Path dir) {
        try {
            return java.nio.file.Files.readAttributes(dir, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        } catch (java.io.IOException e) {
            return null;
        }
    }

    /**
     * Hands {@code event} to the appender thread. Safe from any thread. Waits (spinning, then
     * parking) while the ring is full, at most the publish timeout, then throws (and the journal is
     * incomplete from this event on). Once the journal is incomplete, returns at once: the event is
     * counted in {@link #gap()}, not written. A memory fault of the caller's raised inside it (a mapped file the caller
     * touched was cut short) is thrown on once the event is written ({@link #rethrow}).
     */
    public void append(JournalEvent event) {
        if (event == null) {
            throw new NullPointerException("event");
        }
        checkOpen();
        if (handler.failedAtSequence != Long.MAX_VALUE) {
            handler.notWritten.incrementAndGet();
            return;
        }
        // Encoded here, on the caller's thread, before a slot is claimed (an encoding that throws leaves no claimed slot
        // unpublished): the appender thread then only copies bytes into the excerpt, so it carries Chronicle's own
        // cost per excerpt and little more (docs/BENCHMARKS.md, "Journal"). An event that cannot be encoded is the
        // first not written, as one the appender could not write: a gap, not a throw; a memory fault is not the
        // encoder's but the caller's (rethrow says why).
        EventEncoder encoder = null;
        Error callersFault = null;
        for (int attempt = 0; encoder == null; attempt++) {
            try {
                encoder = EventCodec.encoder();
                encoder.encode(event);
            } catch (RuntimeException | Error e) {
                encoder = null;
                if (attempt > 0 || !JournalException.isMemoryFault(e)) {
                    handler.notWritten.incrementAndGet();
                    handler.failAt(ring.getCursor() + 1, event, "the event could not be encoded: " + JournalException.plain(e));
                    rethrow(callersFault);
                    return;
                }
                callersFault = (Error) e; // the caller's (see below): encoded once more, written, and rethrown
            }
        }
        long seq;
        try {
            seq = ring.tryNext();
        } catch (InsufficientCapacityException full) {
            seq = nextWithBackpressure(event);
        }
        Slot slot = ring.get(seq);
        for (int attempt = 0;; attempt++) {
            try {
                slot.set(event, encoder, bodies.put(seq, encoder.array(), encoder.length()));
                break;
            } catch (RuntimeException | Error e) {
                if (attempt > 0 || callersFault != null || !JournalException.isMemoryFault(e)) {
                    slot.failed(event, JournalException.plain(e)); // published all the same: the appender waits for
                    break;                                          // every sequence claimed, in order
                }
                callersFault = (Error) e;
            }
        }
        ring.publish(seq);
        rethrow(callersFault);
    }

    /**
     * callersFault in {@link #append}: a memory fault raised on a producer's thread inside append is never the
     * journal's: encoding reads the event on the heap into a heap array, and the ring's bodies are plain off-heap
     * memory; only the appender thread touches the journal's mapped files. It is the fault of a mapped file the caller
     * read or wrote just before (a mailbox map cut short while mapped), which the JVM raises at a later instruction than
     * the access: inside the encoder when that is the caller's next call into the VM (the first event of a kind, a
     * sink grown). Before, it was taken for an event that could not be encoded, and the journal named itself
     * incomplete from there ("1 events not written, from MailboxReleased ... memory fault on a mapped journal file")
     * for a fault it did not cause, while the caller never learned its map was cut. Now the event is written (the JVM
     * raises such a fault once: the second encoding runs through) and the fault goes on to the caller, as if raised
     * just after the append, where the caller's repair (the close engine's, the ring drainer's, a start's) meets it.
     */
    private static void rethrow(Error callersFault) {
        if (callersFault != null) {
            throw callersFault;
        }
    }

    private long nextWithBackpressure(JournalEvent event) {
        long deadline = System.nanoTime() + publishTimeoutNanos;
        int spins = 0;
        while (true) {
            checkOpen();
            try {
                return ring.tryNext();
            } catch (InsufficientCapacityException full) {
                if (System.nanoTime() - deadline > 0) {
                    String why = "the appender wrote nothing for " + TimeUnit.NANOSECONDS.toMillis(publishTimeoutNanos)
                            + " ms (ring full)";
                    // Everything claimed so far may still be written; nothing from this event on.
                    handler.notWritten.incrementAndGet();
                    handler.failAt(ring.getCursor() + 1, event, why);
                    throw new JournalException("journal dir=" + dir + " ring full for "
                            + TimeUnit.NANOSECONDS.toMillis(publishTimeoutNanos) + " ms; event not written: " + event
                            + "; the journal is incomplete from here on");
                }
                // A full ring means the appender is behind by a whole ring: waiting a little longer
                // costs nothing, while polling its sequence slows it and takes a core from it.
                if (++spins < 10) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(fullRingParkNanos);
                }
            }
        }
    }

    /**
     * Waits until every event appended before this call is in the queue file (readable by other
     * processes), or counted in {@link #gap()} as not written, at most {@code timeout}; then throws.
     */
    public void flush(Duration timeout) {
        long target = ring.getCursor();
        if (handler.writtenSequence >= target) {
            return;
        }
        wakeAppender();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int polls = 0; handler.writtenSequence < target; polls++) {
            if (System.nanoTime() - deadline > 0) {
                throw new JournalException("journal dir=" + dir + " flush timed out after " + timeout.toMillis()
                        + " ms with " + (target - handler.writtenSequence) + " events pending");
            }
            if (polls < FLUSH_YIELDS) {
                Thread.yield(); // the appender writes an event in microseconds: give it the core first
            } else {
                LockSupport.parkNanos(20_000);
            }
        }
    }

    /**
     * Wakes the appender, so that what was appended so far is written now: a caller about to wait on it (a flush), or
     * the holder of its wake-ups ({@link #holdWakesOf}) releasing what it held. Never blocks.
     */
    public void wakeAppender() {
        wait.wake(); // blocked in its wait strategy: only its condition's signal ends that wait, not an unpark
        Thread appender = handler.thread;
        if (appender != null) {
            LockSupport.unpark(appender);
        }
    }

    /**
     * From now on the appends of {@code producer} do not wake a blocked appender; that thread wakes it itself
     * ({@link #wakeAppender}) within a bound of its own, looking at {@link #heldWakeNanos}. For a producer that appends
     * a few events at a time, often: the close engine, which journals each exit as it collects it while the children
     * exit on the same cores, woke the appender once per exit (a futex wake, a switch, the appender's spin and block),
     * and now does so once a millisecond at most. Null: every append wakes it again.
     */
    public void holdWakesOf(Thread producer) {
        wait.holdWakesOf(producer);
    }

    /**
     * On the holding thread ({@link #holdWakesOf}): nanoseconds since its oldest append that did not wake the appender,
     * or -1 when it holds none.
     */
    public long heldWakeNanos() {
        return wait.heldNanos();
    }

    /** Where the journal stops being complete, or empty while every event appended was written. */
    public java.util.Optional<JournalGap> gap() {
        return handler.gap();
    }

    public void flush() {
        flush(Duration.ofSeconds(30));
    }

    /** The time the appender last read its clock (the queue's clock, {@link AppenderClock}). */
    long clockMillis() {
        return handler.clock.lastRead();
    }

    /**
     * Tests, after a flush: whether every page the appender wrote into in its current cycle file was reserved first
     * ({@link PageReservation}), i.e. no excerpt went into a file, or a part of one, whose pages were not asked for.
     */
    boolean wroteIntoReservedPagesOnly() {
        ExcerptAppender a = handler.appender;
        return a != null && handler.pages.reservedBefore(a.currentFile(), a.wire().bytes().writePosition());
    }

    /**
     * How many batches the appender has taken from the ring, read after a {@link #flush}: events per batch tells how it
     * runs behind its producers (one or a few: right behind a producer, on the cache lines it is writing; thousands: a
     * full ring). A diagnostic (JournalBench prints it per round).
     */
    public long appenderBatches() {
        return handler.batches;
    }

    /** Index of the last excerpt this writer wrote, or -1. */
    public long lastWrittenIndex() {
        return handler.lastIndex;
    }

    /**
     * Drains the ring into the file (or into {@link #gap()}), stops the appender thread and closes
     * the queue. Does not throw for events that could not be written: see {@link #gap()}.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            flush();
        } finally {
            closed = true;
            try {
                disruptor.shutdown(10, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                disruptor.halt();
            } finally {
                if (queue != null) {
                    queue.close();
                    closeIndex.close();
                }
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new JournalException("journal dir=" + dir + " writer is closed");
        }
    }

    /** Chronicle checks on every call that a resource stays on its thread: for resources used by one thread for life. */
    static void confineToThisThread(Object chronicleResource) {
        if (chronicleResource instanceof SingleThreadedChecked checked) {
            checked.singleThreadedCheckDisabled(true);
        }
    }

    /**
     * One ring entry: the event and the length of its encoded body (checksum included), ready to be copied into an
     * excerpt: in {@link RingBodies} at the slot's sequence, or, larger than a slot there, in {@link #large}.
     */
    private static final class Slot {
        JournalEvent event;
        /** Why handing this event to the ring failed after its sequence was claimed (not written: the gap), or null. */
        String failure;
        /** The body when it did not fit its slot of {@link RingBodies}; else null. */
        byte[] large;
        int length;

        void set(JournalEvent e, EventEncoder encoder, boolean inRingBodies) {
            int n = encoder.length();
            large = inRingBodies ? null : java.util.Arrays.copyOf(encoder.array(), n);
            length = n;
            event = e;
            failure = null;
        }

        void failed(JournalEvent e, String why) {
            event = e;
            failure = why;
        }

        /** Forgets the event once written (the ring must not keep 65,536 events reachable). */
        void clear() {
            event = null;
            large = null;
            failure = null;
        }
    }

    /** Runs on the appender thread: owns both Chronicle appenders. */
    private static final class AppendHandler implements EventHandler<Slot> {
        private final Path dir;
        private final SingleChronicleQueue queue;
        private final SingleChronicleQueue closeIndex;
        private final AppenderClock clock;
        private final RingBodies bodies;
        private ExcerptAppender appender;
        private ExcerptAppender indexAppender;
        private final PageReservation pages = new PageReservation();
        /** A body too large for {@link RingBodies}, copied off heap for writeBytes (appender thread). */
        private final net.openhft.chronicle.bytes.Bytes<?> staging = net.openhft.chronicle.bytes.Bytes.allocateElasticDirect(512);
        /**
         * Where this appender's last excerpt ended: its next one starts there or a little after (Chronicle aligns
         * headers to 4 bytes; another process's excerpts, written with pages of their own reserved ahead); -1 when not
         * known (before the first excerpt, after a failure).
         */
        private long nextHeader = -1;
        /** -Dvigil.journal.writeBytes=false: every excerpt through writingDocument (for comparison, per journal opened). */
        private final boolean writeBytes = !"false".equals(System.getProperty("vigil.journal.writeBytes"));
        volatile long writtenSequence = -1;
        volatile long lastIndex = -1;
        private long lastIndexInBatch = -1;
        private int lastCycle = Integer.MIN_VALUE;
        /** Batches taken from the ring (appender thread; read by others after a flush). */
        long batches;
        /** Ring sequence of the first event not written; MAX_VALUE while the journal is complete. */
        volatile long failedAtSequence = Long.MAX_VALUE;
        final java.util.concurrent.atomic.AtomicLong notWritten = new java.util.concurrent.atomic.AtomicLong();
        private volatile String firstNotWritten;
        private volatile String reason;
        private volatile long gapFromIndex = -1;

        /** The appender thread, once started (flush wakes it from its wait strategy's nap). */
        volatile Thread thread;

        AppendHandler(Path dir, SingleChronicleQueue queue, SingleChronicleQueue closeIndex, AppenderClock clock,
                RingBodies bodies) {
            this.dir = dir;
            this.bodies = bodies;
            this.queue = queue;
            this.closeIndex = closeIndex;
            this.clock = clock;
        }

        /** Nothing from ring sequence {@code sequence} on is written; the first failure wins. */
        synchronized void failAt(long sequence, JournalEvent first, String why) {
            if (failedAtSequence != Long.MAX_VALUE) {
                return;
            }
            firstNotWritten = first == null ? "the first event" : JournalGap.describeEvent(first);
            reason = why;
            gapFromIndex = nextIndex();
            failedAtSequence = sequence;
            if (first != null) {
                logGap();
            } // a journal that could not be opened says so at its first event: an owner that gives up first says it alone
        }

        private volatile boolean logged;

        private void logGap() {
            if (!logged) {
                logged = true;
                org.slf4j.LoggerFactory.getLogger(JournalWriter.class).error("{}", gap().orElseThrow().describe());
            }
        }

        /** The index the next excerpt would get (the last one's + 1), -1 when not known. */
        private long nextIndex() {
            if (lastIndex >= 0) {
                return lastIndex + 1;
            }
            try {
                long last = queue == null ? -1 : queue.lastIndex();
                return last < 0 ? -1 : last + 1;
            } catch (RuntimeException | InternalError unknown) {
                return -1;
            }
        }

        java.util.Optional<JournalGap> gap() {
            if (failedAtSequence == Long.MAX_VALUE) {
                return java.util.Optional.empty();
            }
            return java.util.Optional.of(new JournalGap(dir.toString(), gapFromIndex, firstNotWritten, notWritten.get(),
                    reason));
        }

        @Override
        public void onEvent(Slot slot, long sequence, boolean endOfBatch) {
            JournalEvent event = slot.event;
            if (sequence >= failedAtSequence) {
                notWritten.incrementAndGet();
                logGap();
            } else if (slot.failure != null) {
                notWritten.incrementAndGet();
                failAt(sequence, event, "the event could not be handed to the appender: " + slot.failure);
            } else {
                try {
                    write(event, body(slot, sequence), slot.length);
                } catch (Throwable t) {
                    lastIndex = lastIndexInBatch;
                    notWritten.incrementAndGet();
                    failAt(sequence, event, WriteFailure.describe(dir, t));
                }
            }
            slot.clear();
            // Volatile stores cost a fence each on x86: publish progress once per batch (a batch
            // ends whenever the handler has caught up, so flush still sees every sequence).
            if (endOfBatch) {
                lastIndex = lastIndexInBatch;
                writtenSequence = sequence;
            }
        }

        /** The slot's encoded body, as the readable part of an off-heap Bytes (valid until the next call). */
        private net.openhft.chronicle.bytes.Bytes<?> body(Slot slot, long sequence) {
            if (slot.large == null) {
                return bodies.body(sequence, slot.length);
            }
            staging.clear();
            staging.write(slot.large, 0, slot.length);
            return staging;
        }

        /** Writes {@code event}, encoded as {@code body}'s readable {@code length} bytes, as one excerpt. */
        private void write(JournalEvent event, net.openhft.chronicle.bytes.Bytes<?> body, int length) {
            if (appender == null) {
                appender = queue.createAppender();
                indexAppender = closeIndex.createAppender();
                // All three stay on this thread for life; Chronicle's per-call thread check (a
                // ThreadLocal lookup) was a tenth of the appender thread's time.
                confineToThisThread(appender);
                confineToThisThread(indexAppender);
            }
            // The producer encoded it (append): one copy into the excerpt. Small writes field by field straight into
            // the memory-mapped excerpt pay Chronicle's chunk and bounds checks each, which doubled the cost of an
            // event (docs/BENCHMARKS.md).
            long index;
            if (nextHeader >= 0 && writeBytes && clock.holdsFor(1) && inAppendersCycle(clock.lastRead())
                    && pages.covers(nextHeader, length)) {
                // Its pages are reserved and it stays in the current cycle's file (writeBytes reads the clock once, and
                // gets the time checked here): Chronicle's writeBytes, which does not look for the queue's end again at
                // every excerpt as writingDocument does (a scan from the last index entry), from off heap.
                nextHeader = -1; // until it is written
                appender.writeBytes(body);
                index = appender.lastIndexAppended();
                nextHeader = appender.wire().bytes().writePosition();
            } else {
                index = writeDocument(body, length);
            }
            lastIndexInBatch = index;
            int cycle = JournalDirectory.ROLL_CYCLE.toCycle(index);
            if (cycle != lastCycle) {
                CloseIndex.appendCycle(indexAppender, cycle, index);
                lastCycle = cycle;
                confineToThisThread(appender.wire().bytes()); // the cycle file's mapping: the appender's for life
            }
            if (event instanceof CloseStarted || event instanceof CloseCompleted) {
                CloseIndex.append(indexAppender, event, index);
            }
        }

        /**
         * Writes the excerpt through writingDocument, which tells where it goes before anything of it is written: its
         * pages are reserved first, at that exact position (the first excerpt of a file, and of every chunk of pages).
         */
        private long writeDocument(net.openhft.chronicle.bytes.Bytes<?> body, int length) {
            try (DocumentContext dc = appender.writingDocument()) {
                try {
                    net.openhft.chronicle.bytes.Bytes<?> bytes = dc.wire().bytes();
                    // Pages first, with a synchronous error: a store into a page a full file system cannot give
                    // faults asynchronously, possibly after the header was completed (PageReservation).
                    long position = bytes.writePosition();
                    pages.ensure(appender.currentFile(), bytes.bytesStore(), position, length);
                    bytes.write(body, body.readPosition(), length);
                    nextHeader = position + length;
                    return dc.index();
                } catch (Throwable t) {
                    // Never complete an excerpt whose body may be half there (a fault in a new page).
                    nextHeader = -1;
                    dc.rollbackOnClose();
                    throw t;
                }
            }
        }

        /**
         * Whether a write at {@code millis} goes into the cycle (day file) the appender is in. Asking the queue
         * (queue.cycle(), a division) at every excerpt as well as writeBytes does was ~3 % of the appender thread's
         * time (JFR, JournalBench).
         */
        private boolean inAppendersCycle(long millis) {
            int cycle = appender.cycle();
            if (cycle != cycleOfBounds) {
                long length = JournalDirectory.ROLL_CYCLE.lengthInMillis();
                cycleStartMillis = queue.epoch() + cycle * length;
                cycleEndMillis = cycleStartMillis + length;
                cycleOfBounds = cycle;
            }
            return millis >= cycleStartMillis && millis < cycleEndMillis;
        }

        private int cycleOfBounds = Integer.MIN_VALUE;
        private long cycleStartMillis;
        private long cycleEndMillis;

        @Override
        public void onStart() {
            thread = Thread.currentThread();
            clock.ownedBy(thread);
        }

        @Override
        public void onBatchStart(long batchSize, long queueDepth) {
            batches++;
            clock.read(); // a batch after a pause writes with the time of now, not of the last batch
        }

        @Override
        public void onShutdown() {
            pages.close();
            staging.releaseLast();
            bodies.close();
            if (appender != null) {
                appender.close();
                indexAppender.close();
            }
        }
    }
}
