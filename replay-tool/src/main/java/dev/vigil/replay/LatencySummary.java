package dev.vigil.replay;


import com.fasterxml.jackson.databind.node.ObjectNode;

import org.HdrHistogram.Histogram;

import dev.vigil.journal.JsonEvents;

/** Reap latency of a set of reaps, from an HdrHistogram (3 significant digits, nanoseconds). */
public record LatencySummary(long count, long minNanos, long medianNanos, long p90Nanos, long maxNanos, double meanNanos) {

    public static LatencySummary of(Histogram h) {
        if (h.getTotalCount() == 0) {
            return new LatencySummary(0, -1, -1, -1, -1, -1);
        }
        return new LatencySummary(h.getTotalCount(), h.getMinValue(), h.getValueAtPercentile(50),
                h.getValueAtPercentile(90), h.getMaxValue(), h.getMean());
    }

    /** A new histogram suited to reap latencies (auto-resizing, 3 significant digits). */
    public static Histogram newHistogram() {
        Histogram h = new Histogram(3);
        h.setAutoResize(true);
        return h;
    }

    /** {@code min median p90 max mean} in seconds, fixed widths. */
    public String columns() {
        if (count == 0) {
            return String.format(ReplayText.NUMBERS, "%8s  %8s  %8s  %8s  %8s", "-", "-", "-", "-", "-");
        }
        return String.format(ReplayText.NUMBERS, "%8.3f  %8.3f  %8.3f  %8.3f  %8.3f", minNanos / 1e9, medianNanos / 1e9,
                p90Nanos / 1e9, maxNanos / 1e9, meanNanos / 1e9);
    }

    public static String header() {
        return String.format(ReplayText.NUMBERS, "%8s  %8s  %8s  %8s  %8s", "min", "median", "p90", "max", "mean");
    }

    /** Its figures into {@code n}: the count as {@code reaps}. */
    void putInto(ObjectNode n) {
        putInto(n, "reaps");
    }

    /** Its figures into {@code n}, the count under {@code countField} ({@code kills} for children killed by escalation). */
    void putInto(ObjectNode n, String countField) {
        n.put(countField, count).put("minNanos", minNanos).put("medianNanos", medianNanos).put("p90Nanos", p90Nanos)
                .put("maxNanos", maxNanos).put("meanNanos", meanNanos);
    }

}
