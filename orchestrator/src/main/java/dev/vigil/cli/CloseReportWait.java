package dev.vigil.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;

/**
 * Waits for a close's report, however long the close takes, as {@code vigil run} and {@code vigil session} do: a close
 * ends by its window, its hard cap or a second stop request (Ctrl-C twice), and nothing else may end it (the
 * orchestrator's close would wait for it anyway). Every {@code every} without a report it says so, and how to end it.
 */
final class CloseReportWait {
    private CloseReportWait() {
    }

    /**
     * The report of {@code close}; each period without it, one line {@code <prefix>pool=P close still running after N s:
     * <the way out>} on {@code out}.
     */
    static CloseReport await(String poolId, CompletableFuture<CloseReport> close, CloseSettings settings, Duration every,
            PrintStream out, String prefix) throws ExecutionException, InterruptedException {
        long started = System.nanoTime();
        while (true) {
            try {
                return close.get(every.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException stillRunning) {
                out.printf(Locale.ROOT, "%spool=%s close still running after %.0f s: %s%n", prefix, poolId,
                        (System.nanoTime() - started) / 1e9, settings.hardCap().isZero()
                                ? "no hard cap (close.hardCapMs), and a child that acked and keeps beating in its clean-up"
                                        + " is progress; Ctrl-C twice kills what is left"
                                : "Ctrl-C twice kills what is left");
                out.flush();
            }
        }
    }
}
