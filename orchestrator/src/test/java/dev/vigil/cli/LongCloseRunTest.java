package dev.vigil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run whose close a child holds (acked, beating in its clean-up, no hard cap) waits for that close's report and says
 * every period that it still runs and how to end it; Ctrl-C twice then ends it with the report printed. Before, the
 * run gave up after 10 minutes ("close did not finish: no report within 10 minutes"), again at its end, and then
 * waited silently in the orchestrator's close for the same close. Real C demo child, real close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LongCloseRunTest {
    @TempDir
    Path tmp;

    @Test
    void aCloseHeldByABeatingCleanUpIsWaitedForSaidToRunAndEndedByTwoStops() throws Exception {
        Path spec = Files.writeString(tmp.resolve("long.json"), """
                {"journalDir": "%s", "close": {"windowMs": 300, "graceMs": 200},
                 "pools": [{"id": "slow", "groups": [{"name": "chips", "kind": "c", "children": 1,
                     "env": {"VIGIL_DEMO_TEARDOWN_MILLIS": "600000"}}]}]}
                """.formatted(tmp.resolve("journal")));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        PoolRunner runner = new PoolRunner(SpecReader.read(spec), RunHooks.NONE, out);
        runner.stillRunningNote(Duration.ofMillis(500));
        CompletableFuture<Integer> run = CompletableFuture.supplyAsync(runner::run);
        awaitOutput(bytes, "close still running after");
        assertTrue(text(bytes).contains("no hard cap (close.hardCapMs)"), text(bytes));
        assertFalse(text(bytes).contains("did not finish"), text(bytes));
        runner.requestStop(2, "SIGINT");
        runner.requestStop(2, "SIGINT");
        assertEquals(PoolRunner.INTERRUPTED, run.get(30, TimeUnit.SECONDS), text(bytes));
        assertTrue(text(bytes).contains("pool=slow close=") && text(bytes).contains("FAILED reaped=0/1 killed=1"), text(bytes));
        assertFalse(text(bytes).contains("did not finish"), text(bytes));
    }

    private static void awaitOutput(ByteArrayOutputStream bytes, String wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!text(bytes).contains(wanted) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(text(bytes).contains(wanted), "no '" + wanted + "' within 20 s:\n" + text(bytes));
    }

    private static String text(ByteArrayOutputStream bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
