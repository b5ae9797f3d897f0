package dev.vigil.journal;

import net.openhft.chronicle.core.time.SystemTimeProvider;
import net.openhft.chronicle.core.time.TimeProvider;

/**
 * The clock of the journal's queue: Chronicle asks it for the time at every excerpt it writes (to know the cycle, i.e.
 * the day file), and a clock read on this VM (kvm-clock through the vDSO) was ~8 % of the appender thread's time per
 * event, as much as the raw appender pays (JournalBench, perf; docs/BENCHMARKS.md "Journal"). On the appender thread it
 * reads the system clock at the start of each batch of events and then once per {@link #CALLS_PER_READ} calls: while it
 * writes, the time it gives is at most ~64 excerpts (tens of microseconds) old, and a batch after a pause starts with a
 * fresh read, so an event is never written into a cycle more than that before its time. Any other thread gets the
 * clock it reads (the system's).
 */
final class AppenderClock implements TimeProvider {
    static final int CALLS_PER_READ = 64;
    /** The clock read: the system's, or a test's (a cycle boundary on demand). */
    private final TimeProvider source;
    private volatile Thread owner;
    private volatile long millis;
    private int calls;

    AppenderClock() {
        this(SystemTimeProvider.INSTANCE);
    }

    AppenderClock(TimeProvider source) {
        this.source = source;
        this.millis = source.currentTimeMillis();
    }

    /** The appender thread: the one whose calls are answered from the last read. */
    void ownedBy(Thread appender) {
        owner = appender;
    }

    /** Reads the clock; the appender calls it at the start of each batch. */
    void read() {
        millis = source.currentTimeMillis();
        calls = 0;
    }

    /** On the appender thread: whether its next {@code n} calls answer from the last read (none reads the clock). */
    boolean holdsFor(int n) {
        return calls + n < CALLS_PER_READ;
    }

    /** The time of the last read. */
    long lastRead() {
        return millis;
    }

    @Override
    public long currentTimeMillis() {
        if (Thread.currentThread() != owner) {
            return source.currentTimeMillis();
        }
        if (++calls >= CALLS_PER_READ) {
            read();
        }
        return millis;
    }
}
