package dev.vigil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;
import dev.vigil.spawn.Redirect;

/**
 * The run's "broadcast -> reaped" table times only children that a broadcast reached. A child that exited during the
 * run (a crash, policy keep) is collected by the next close with 0 since its broadcast: before, it entered the table
 * as a reap latency of 0.000 s ({@code mailbox-exec /bin/true}: min, median and max 0.000).
 */
@Timeout(60)
class LatencyTableTest {
    @TempDir
    Path tmp;

    @Test
    void aChildGoneBeforeItsCloseIsCountedNotTimed() throws Exception {
        CloseReport report;
        try (Orchestrator orchestrator = Orchestrator.builder().journalDir(tmp.resolve("journal"))
                .closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(orchestrator, "p").childOutput(Redirect.DISCARD)
                    .group("crash", 1, ChildSpec.exec("/bin/sh", "-c", "exit 3"))
                    .group("sleeper", 1, ChildSpec.exec("/bin/sleep", "60")).start();
            long giveUp = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!pool.child("crash", 0).exit().isDone() && System.nanoTime() < giveUp) {
                Thread.sleep(5);
            }
            Thread.sleep(50); // the exit's own handling (ChildExited) is done before the close
            report = pool.closeWithReport();
        }
        CloseReport.Child crashed = report.children().stream().filter(c -> c.group().equals("crash")).findFirst().orElseThrow();
        CloseReport.Child slept = report.children().stream().filter(c -> c.group().equals("sleeper")).findFirst().orElseThrow();
        assertTrue(crashed.goneBeforeClose(), crashed.toString());
        assertFalse(slept.goneBeforeClose(), slept.toString());
        assertFalse(report.toJson().contains("goneBeforeClose"), "not a field of the report: " + report.toJson());

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LatencyTable.print(List.of(report), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("children reaped: 2, killed by escalation: 0, kept running: 0, exited before their close"
                + " (not timed below): 1"), out);
        assertEquals(1, LatencyTable.reapLatencies(List.of(report), c -> true).getTotalCount(), out);
        assertTrue(LatencyTable.reapLatencies(List.of(report), c -> true).getMinValue() > 0, out);
    }
}
