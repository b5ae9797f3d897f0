package dev.vigil.journal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.core.io.ReferenceOwner;

/**
 * A thread that populates the next chunk of a cycle file while the appender writes the current one (what Chronicle
 * Enterprise's pretoucher does), so that the appender seldom makes the kernel zero pages itself: that was ~20 % of the
 * appender thread's time per event (perf, docs/BENCHMARKS.md "Journal"), as much as the raw appender's page faults.
 *
 * <p>Only {@code madvise(MADV_POPULATE_WRITE)} runs here ({@link PageReservation#populate}), which changes no byte: a
 * chunk the appender reaches before this thread is done with it, or that this thread could not populate (a full file
 * system, a chunk outside the mapping), the appender reserves itself, synchronously, with its own error. The mapping
 * of a posted chunk is reserved (Chronicle's reference count) and released by the appender, never by this thread, and
 * only once this thread is done with it.
 */
final class PagesAhead implements AutoCloseable {
    private static final AtomicInteger THREAD_IDS = new AtomicInteger();
    private static final int POSTED = 0;
    private static final int POPULATED = 1;
    private static final int FAILED = 2;

    /** One chunk asked for: {@code [from, to)} of the file written in generation {@code generation}. */
    private static final class Chunk {
        final long generation;
        final MappedBytesStore mapping;
        final long from;
        final long to;
        volatile int state = POSTED;

        Chunk(long generation, MappedBytesStore mapping, long from, long to) {
            this.generation = generation;
            this.mapping = mapping;
            this.from = from;
            this.to = to;
        }
    }

    private final ReferenceOwner owner = ReferenceOwner.temporary("vigil-journal-pages");
    private final Thread thread;
    /** The last chunk asked for; replaced (by the appender) only once this thread is done with it. */
    private volatile Chunk posted;
    private volatile boolean closed;

    PagesAhead() {
        thread = new Thread(this::run, threadName(Thread.currentThread().getName()));
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * vigil-journal-pages-N after the appender vigil-journal-appender-N that starts it, so that a profile, a thread dump
     * or a bench with several journals open tells whose pages thread it is; a number of its own when started elsewhere.
     */
    static String threadName(String starter) {
        String appender = "vigil-journal-appender-";
        return "vigil-journal-pages-" + (starter.startsWith(appender) ? starter.substring(appender.length())
                : Integer.toString(THREAD_IDS.incrementAndGet()));
    }

    /**
     * Appender: asks for {@code [from, to)} of {@code mapping} (inside it) to be populated, unless the chunk asked for
     * before is still being populated (the appender then reserves its pages itself, and asks again at the next chunk).
     */
    void request(long generation, MappedBytesStore mapping, long from, long to) {
        Chunk last = posted;
        if (last != null) {
            if (last.state == POSTED || (last.generation == generation && last.from == from)) {
                return;
            }
            posted = null;
            last.mapping.release(owner);
        }
        try {
            if (!mapping.tryReserve(owner)) {
                return; // being released: the appender is about to leave this chunk anyway
            }
        } catch (IllegalStateException closing) {
            return;
        }
        posted = new Chunk(generation, mapping, from, to);
        LockSupport.unpark(thread);
    }

    /**
     * Appender: where the pages populated ahead end, if they cover {@code from} of the file of {@code generation};
     * else {@code from}.
     */
    long populatedFrom(long generation, long from) {
        Chunk c = posted;
        return c != null && c.state == POPULATED && c.generation == generation && c.from <= from && from < c.to ? c.to
                : from;
    }

    /** Whether the thread is done with the last chunk asked for (populated or failed), or none was asked for. */
    boolean idle() {
        Chunk c = posted;
        return c == null || c.state != POSTED;
    }

    private void run() {
        while (!closed) {
            Chunk c = posted;
            if (c != null && c.state == POSTED) {
                c.state = PageReservation.populate(c.mapping, c.from, c.to) == 0 ? POPULATED : FAILED;
            } else {
                LockSupport.park(this);
            }
        }
    }

    /** Appender: stops the thread (bounded) and releases the mapping it was given. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Chunk last = posted;
        if (last != null && !thread.isAlive()) { // a thread still in madvise keeps its mapping: a leak, not an unmap under it
            posted = null;
            last.mapping.release(owner);
        }
    }
}
