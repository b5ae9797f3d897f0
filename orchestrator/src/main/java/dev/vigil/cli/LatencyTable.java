package dev.vigil.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

import dev.vigil.close.decision.CloseReport;

import org.HdrHistogram.Histogram;

/**
 * Reap latency (broadcast to reap) of every child of a run that exited on its own after its close's broadcast: min /
 * median / p90 / max / mean. A child that had exited before its close began is counted, not timed: it read as a
 * latency of 0 before. Children killed by escalation are counted and timed on their own line (their
 * "latency" is the budget plus the grace, not a teardown); survivors kept running are counted.
 */
final class LatencyTable {
    private LatencyTable() {
    }

    static void print(List<CloseReport> reports, PrintStream out) {
        Histogram reaped = reapLatencies(reports, c -> true);
        Histogram killed = new Histogram(3);
        int closes = 0;
        int failed = 0;
        long kept = 0;
        long goneBefore = 0;
        for (CloseReport r : reports) {
            closes++;
            failed += r.isClean() ? 0 : 1;
            for (CloseReport.Child c : r.children()) {
                if (c.goneBeforeClose()) {
                    goneBefore++;
                } else if (c.outcome() == CloseReport.ChildOutcome.SURVIVOR) {
                    kept++;
                } else if (c.outcome() == CloseReport.ChildOutcome.KILLED_BY_ESCALATION && c.sinceBroadcastNanos() >= 0) {
                    killed.recordValue(c.sinceBroadcastNanos() / 1000);
                }
            }
        }
        out.println();
        out.printf(Locale.ROOT, "closes: %d (%d failed), children reaped: %d, killed by escalation: %d, kept running: %d%s%n",
                closes, failed, reaped.getTotalCount() + goneBefore, killed.getTotalCount(), kept,
                goneBefore == 0 ? "" : ", exited before their close (not timed below): " + goneBefore);
        if (reaped.getTotalCount() == 0 && killed.getTotalCount() == 0) {
            return;
        }
        out.println("broadcast -> reaped, seconds:");
        out.println("                  min      median   p90      max      mean");
        row(out, "reap latency", reaped);
        row(out, "killed", killed);
    }

    /**
     * Broadcast-to-reap latencies in microseconds of the children of {@code reports} that exited on their own (not
     * killed, not kept) and that {@code which} selects.
     */
    static Histogram reapLatencies(List<CloseReport> reports, Predicate<CloseReport.Child> which) {
        Histogram h = new Histogram(3);
        for (CloseReport r : reports) {
            for (CloseReport.Child c : r.children()) {
                if (c.outcome() != CloseReport.ChildOutcome.SURVIVOR && c.outcome() != CloseReport.ChildOutcome.KILLED_BY_ESCALATION
                        && c.sinceBroadcastNanos() >= 0 && !c.goneBeforeClose() && which.test(c)) {
                    h.recordValue(c.sinceBroadcastNanos() / 1000);
                }
            }
        }
        return h;
    }

    private static void row(PrintStream out, String name, Histogram h) {
        if (h.getTotalCount() == 0) {
            return;
        }
        out.printf(Locale.ROOT, "  %-15s %-8.3f %-8.3f %-8.3f %-8.3f %-8.3f%n", name, h.getMinValue() / 1e6,
                h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(90) / 1e6, h.getMaxValue() / 1e6, h.getMean() / 1e6);
    }
}
