package dev.vigil.journal;

/**
 * CLOCK_MONOTONIC in nanoseconds. On Linux HotSpot's {@link System#nanoTime()} reads
 * CLOCK_MONOTONIC, so Java and C children stamp comparable times on one host.
 */
public final class MonotonicClock {
    private MonotonicClock() {
    }

    public static long nanos() {
        return System.nanoTime();
    }
}
