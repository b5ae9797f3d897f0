package dev.vigil.journal;

import java.time.Duration;

/**
 * CLOCK_MONOTONIC in nanoseconds. On Linux HotSpot's {@link System#nanoTime()} reads
 * CLOCK_MONOTONIC, so Java and C children stamp comparable times on one host.
 */
public final class MonotonicClock {
    /**
     * The longest span Vigil adds to a monotonic time (a close window, a grace, a timeout, a backoff): a year.
     * Longer ones overflow: {@link Duration#toNanos()} fails past 292 years, and now + span past the same bound
     * less the machine's uptime; a year leaves ample room both ways.
     */
    public static final Duration MAX_SPAN = Duration.ofDays(365);

    private MonotonicClock() {
    }

    /** {@code span} itself if it is at most {@link #MAX_SPAN}, else an IllegalArgumentException naming {@code name}. */
    public static Duration checkSpan(String name, Duration span) {
        if (span != null && span.compareTo(MAX_SPAN) > 0) {
            throw new IllegalArgumentException(name + "=" + span + " must be <= " + MAX_SPAN + " (" + MAX_SPAN.toMillis()
                    + " ms)");
        }
        return span;
    }

    /** {@code span} itself if it is more than zero and at most {@link #MAX_SPAN}, else an IllegalArgumentException naming {@code name}. */
    public static Duration positiveSpan(String name, Duration span) {
        if (span == null || span.isNegative() || span.isZero()) {
            throw new IllegalArgumentException(name + "=" + span + " must be > 0");
        }
        return checkSpan(name, span);
    }

    public static long nanos() {
        return System.nanoTime();
    }
}
