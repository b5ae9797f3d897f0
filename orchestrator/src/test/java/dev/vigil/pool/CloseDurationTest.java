package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.JournalEvent;
import dev.vigil.spawn.Redirect;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A close's duration is taken last: the first close of a process (Jackson and the report warmed when the orchestrator
 * opened) reports a duration that covers every event it journaled, and CloseCompleted carries that same instant.
 */
@Timeout(60)
class CloseDurationTest {
    @TempDir
    Path tmp;

    @Test
    void theFirstClosesDurationCoversEveryEventOfItAndEndsAtItsCompletion() throws Exception {
        Path journalDir = tmp.resolve("journal");
        try (Orchestrator o = Orchestrator.builder().journalDir(journalDir).closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(o, "first").childOutput(Redirect.DISCARD).group("g", 2, ChildSpec.cDemo()).start();
            CloseReport r = pool.closeWithReport();
            o.journal().writer().flush();
            List<JournalEvent> events = JournalChecks.readAll(journalDir);
            CloseStarted started = events.stream().filter(CloseStarted.class::isInstance).map(CloseStarted.class::cast)
                    .findFirst().orElseThrow();
            CloseCompleted completed = events.stream().filter(CloseCompleted.class::isInstance)
                    .map(CloseCompleted.class::cast).findFirst().orElseThrow();
            assertEquals(r.durationNanos(), completed.durationNanos());
            assertEquals(completed.timeNanos() - started.timeNanos(), completed.durationNanos(),
                    "show's 'completed +x s (duration y s)' says the same x and y");
            for (JournalEvent e : events) {
                if (e.closeId() == r.closeId()) {
                    assertTrue(e.timeNanos() <= completed.timeNanos(), "inside the duration: " + e);
                }
            }
            long lastReap = 0;
            for (CloseReport.Child c : r.children()) {
                lastReap = Math.max(lastReap, c.sinceBroadcastNanos());
            }
            System.out.printf("first close: duration %.2f ms, after the last reap %.2f ms%n", r.durationNanos() / 1e6,
                    (r.durationNanos() - lastReap) / 1e6);
        }
    }
}
