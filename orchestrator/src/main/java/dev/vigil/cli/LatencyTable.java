package dev.vigil.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

import dev.vigil.close.decision.CloseReport;

import org.HdrHistogram.Histogram;

/** Reap latency (broadcast to reap) of every reaped child of a run: min / median / p90 / max / mean. */
final class LatencyTable {
    private LatencyTable() {
    }

    static void print(List<CloseReport> reports, PrintStream out) {
        Histogram h = new Histogram(3);
        int closes = 0;
        int failed = 0;
        for (CloseReport r : reports) {
            closes++;
            failed += r.isClean() ? 0 : 1;
            for (CloseReport.Child c : r.children()) {
                if (c.sinceBroadcastNanos() >= 0) {
                    h.recordValue(c.sinceBroadcastNanos() / 1000);
                }
            }
        }
        out.println();
        out.printf(Locale.ROOT, "closes: %d (%d failed), children reaped: %d%n", closes, failed, h.getTotalCount());
        if (h.getTotalCount() == 0) {
            return;
        }
        out.println("reap latency (broadcast -> reaped), seconds:");
        out.println("  min      median   p90      max      mean");
        out.printf(Locale.ROOT, "  %-8.3f %-8.3f %-8.3f %-8.3f %-8.3f%n", h.getMinValue() / 1e6, h.getValueAtPercentile(50) / 1e6,
                h.getValueAtPercentile(90) / 1e6, h.getMaxValue() / 1e6, h.getMean() / 1e6);
    }
}
