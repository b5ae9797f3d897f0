package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.vigil.close.JournalScenarios;
import dev.vigil.close.decision.CloseReport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The property of DESIGN section 8 on journals of real pools: the orchestrator closes real
 * processes (clean, progressing, each survivor class, escalated, retried, legacy race, concurrent)
 * and returns its live CloseReports; the replay rebuilds every close from the journal files alone
 * and must equal them.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class OrchestratorJournalEquivalenceTest {
    @TempDir
    Path tmp;

    @Test
    void everyCloseOfRealPoolsIsRebuiltAsTheOrchestratorReportedIt() throws Exception {
        Path journal = tmp.resolve("journal");
        List<CloseReport> live = JournalScenarios.runAll(journal);
        assertFalse(live.isEmpty());
        Map<Long, RebuiltClose> rebuilt = ReplayEquivalenceTest.rebuildAll(journal);
        for (CloseReport report : live) {
            RebuiltClose rc = rebuilt.get(report.closeId());
            assertNotNull(rc, "close " + report.closeId() + " is in the journal");
            assertTrue(rc.isComplete(), "close " + report.closeId() + " completed");
            CloseOutcome liveOutcome = CloseOutcome.fromJson(report.toJson(), report.closeId());
            assertEquals(List.of(), rc.outcome().differencesFrom(liveOutcome), "close " + report.closeId()
                    + " pool " + report.poolId());
        }
        CliRun audit = CliRun.of("audit", journal.toString());
        for (String line : audit.out().lines().filter(l -> l.startsWith("VIOLATION")).toList()) {
            assertTrue(line.contains("pool legacy"), "only the legacy-mode race breaks an invariant: " + line + "\n" + audit);
        }
        assertTrue(audit.out().contains("VIOLATION LOST_UPDATE"), "the legacy race is found: " + audit);
        CloseReport legacy = live.stream().filter(r -> r.poolId().equals("legacy")).findFirst().orElseThrow();
        CliRun show = CliRun.of("show", journal.toString(), Long.toString(legacy.closeId()));
        assertTrue(show.out().contains("verdict: FAILED: SHUTDOWN overwritten by child pid "), show::toString);
        assertTrue(show.out().contains("agrees with the journal"), show::toString);
        System.out.println(audit.out());
        System.out.println(show.out());
        System.out.println(CliRun.of("closes", journal.toString()).out());
    }
}
