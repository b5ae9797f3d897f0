package dev.vigil.journal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;

import net.openhft.chronicle.core.io.SingleThreadedChecked;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * The one writer of a journal in this process. Producers on any thread {@link #append} events into
 * a Disruptor ring; a single appender thread owns the Chronicle appender (appenders are
 * single-threaded) and writes them in ring order.
 *
 * <p>Nothing is dropped silently: a full ring makes {@link #append} wait up to the publish timeout
 * and then throw {@link JournalException}; a failed write is remembered and rethrown to the next
 * caller of {@link #append}, {@link #flush} or {@link #close}.
 */
public final class JournalWriter implements AutoCloseable {
    /** Default ring size (events); a power of two. */
    public static final int DEFAULT_RING_SIZE = 1 << 16;
    /** Default bound on how long a producer waits for room in a full ring. */
    public static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(5);

    private static final AtomicInteger THREAD_IDS = new AtomicInteger();

    private final Path dir;
    private final SingleChronicleQueue queue;
    private final SingleChronicleQueue closeIndex;
    private final Disruptor<Slot> disruptor;
    private final RingBuffer<Slot> ring;
    private final AppendHandler handler;
    private final long publishTimeoutNanos;
    private volatile boolean closed;

    private JournalWriter(Path dir, int ringSize, Duration publishTimeout) {
        this.dir = dir;
        this.queue = JournalDirectory.openForAppend(dir);
        this.closeIndex = JournalDirectory.openCloseIndexForAppend(dir);
        this.publishTimeoutNanos = publishTimeout.toNanos();
        this.handler = new AppendHandler(queue, closeIndex);
        this.disruptor = new Disruptor<>(Slot::new, ringSize,
                r -> {
                    Thread t = new Thread(r, "vigil-journal-appender-" + THREAD_IDS.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                },
                ProducerType.MULTI, new SleepingWaitStrategy(200, TimeUnit.MICROSECONDS.toNanos(500)));
        disruptor.handleEventsWith(handler);
        this.ring = disruptor.start();
    }

    /** Opens (creating if needed) the journal in {@code dir} with default settings. */
    public static JournalWriter open(Path dir) {
        return open(dir, DEFAULT_RING_SIZE, DEFAULT_PUBLISH_TIMEOUT);
    }

    public static JournalWriter open(Path dir, int ringSize, Duration publishTimeout) {
        if (Integer.bitCount(ringSize) != 1) {
            throw new IllegalArgumentException("ringSize=" + ringSize + " must be a power of two");
        }
        return new JournalWriter(dir, ringSize, publishTimeout);
    }

    public Path dir() {
        return dir;
    }

    /**
     * Hands {@code event} to the appender thread. Safe from any thread. Waits (spinning, then
     * parking) while the ring is full, at most the publish timeout, then throws.
     */
    public void append(JournalEvent event) {
        if (event == null) {
            throw new NullPointerException("event");
        }
        checkUsable();
        long seq;
        try {
            seq = ring.tryNext();
        } catch (InsufficientCapacityException full) {
            seq = nextWithBackpressure(event);
        }
        ring.get(seq).event = event;
        ring.publish(seq);
    }

    private long nextWithBackpressure(JournalEvent event) {
        long deadline = System.nanoTime() + publishTimeoutNanos;
        int spins = 0;
        while (true) {
            checkUsable();
            try {
                return ring.tryNext();
            } catch (InsufficientCapacityException full) {
                if (System.nanoTime() - deadline > 0) {
                    throw new JournalException("journal dir=" + dir + " ring full for "
                            + TimeUnit.NANOSECONDS.toMillis(publishTimeoutNanos) + " ms; event not written: " + event);
                }
                // A full ring means the appender is behind by a whole ring: waiting a little longer
                // costs nothing, while polling its sequence slows it and takes a core from it.
                if (++spins < 10) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(50_000);
                }
            }
        }
    }

    /** Waits until every event appended before this call is in the queue file, at most {@code timeout}. */
    public void flush(Duration timeout) {
        long target = ring.getCursor();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (handler.writtenSequence < target) {
            if (handler.failure != null) {
                break;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new JournalException("journal dir=" + dir + " flush timed out after " + timeout.toMillis()
                        + " ms with " + (target - handler.writtenSequence) + " events pending");
            }
            LockSupport.parkNanos(20_000);
        }
        rethrowFailure();
    }

    public void flush() {
        flush(Duration.ofSeconds(30));
    }

    /** Index of the last excerpt this writer wrote, or -1. */
    public long lastWrittenIndex() {
        return handler.lastIndex;
    }

    /** Drains the ring into the file, stops the appender thread and closes the queue. */
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
                queue.close();
                closeIndex.close();
            }
        }
    }

    private void checkUsable() {
        if (closed) {
            throw new JournalException("journal dir=" + dir + " writer is closed");
        }
        rethrowFailure();
    }

    private void rethrowFailure() {
        Throwable f = handler.failure;
        if (f != null) {
            throw new JournalException("journal dir=" + dir + " append failed: " + f, f);
        }
    }

    /** One ring entry: a reference to the event to write. */
    private static final class Slot {
        JournalEvent event;
    }

    /** Runs on the appender thread: owns both Chronicle appenders. */
    private static final class AppendHandler implements EventHandler<Slot> {
        private final SingleChronicleQueue queue;
        private final SingleChronicleQueue closeIndex;
        private ExcerptAppender appender;
        private ExcerptAppender indexAppender;
        private final EventEncoder encoder = new EventEncoder();
        volatile long writtenSequence = -1;
        volatile long lastIndex = -1;
        private long lastIndexInBatch = -1;
        volatile Throwable failure;

        AppendHandler(SingleChronicleQueue queue, SingleChronicleQueue closeIndex) {
            this.queue = queue;
            this.closeIndex = closeIndex;
        }

        @Override
        public void onEvent(Slot slot, long sequence, boolean endOfBatch) {
            JournalEvent event = slot.event;
            slot.event = null;
            if (failure == null) {
                try {
                    write(event);
                } catch (Throwable t) {
                    failure = t;
                }
            }
            // Volatile stores cost a fence each on x86: publish progress once per batch (a batch
            // ends whenever the handler has caught up, so flush still sees every sequence).
            if (endOfBatch) {
                lastIndex = lastIndexInBatch;
                writtenSequence = sequence;
            }
        }

        private void write(JournalEvent event) {
            if (appender == null) {
                appender = queue.createAppender();
                indexAppender = closeIndex.createAppender();
                // All three stay on this thread for life; Chronicle's per-call thread check (a
                // ThreadLocal lookup) was a tenth of the appender thread's time.
                confineToThisThread(appender);
                confineToThisThread(indexAppender);
            }
            // Encode into a small hot buffer, then copy once: each small write straight into the
            // memory-mapped excerpt pays Chronicle's chunk and bounds checks, which doubled the
            // cost of an event (see docs/BENCHMARKS.md).
            encoder.encode(event);
            long index;
            try (DocumentContext dc = appender.writingDocument()) {
                encoder.writeTo(dc.wire().bytes());
                index = dc.index();
            }
            lastIndexInBatch = index;
            if (event instanceof CloseStarted || event instanceof CloseCompleted) {
                CloseIndex.append(indexAppender, event, index);
            }
        }

        private static void confineToThisThread(Object chronicleResource) {
            if (chronicleResource instanceof SingleThreadedChecked checked) {
                checked.singleThreadedCheckDisabled(true);
            }
        }

        @Override
        public void onShutdown() {
            if (appender != null) {
                appender.close();
                indexAppender.close();
            }
        }
    }
}
