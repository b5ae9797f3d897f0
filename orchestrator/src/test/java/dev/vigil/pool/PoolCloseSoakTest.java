package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import dev.vigil.close.CloseSettings;
import dev.vigil.close.JournalScenarios;
import dev.vigil.close.decision.CloseReport;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Many rounds of many pools closing at once: never a false survivor, never a leftover process. Slow: not in the default run. */
@Tag("slow")
@Timeout(600)
class PoolCloseSoakTest {
    @TempDir
    Path tmp;

    @Test
    void twentyRoundsOfEightPoolsOfFourClosingAtOnceLeaveNoSurvivor() throws Exception {
        try (Orchestrator o = Orchestrator.builder().journalDir(tmp.resolve("journal")).closeSettings(CloseSettings.defaults())
                .open()) {
            for (int round = 0; round < 20; round++) {
                List<CloseReport> reports = JournalScenarios.concurrent(o, "r" + round + "-", 8, 4);
                for (CloseReport r : reports) {
                    assertEquals(CloseReport.Outcome.CLEAN, r.outcome(), "round " + round + ": " + r.toJson());
                }
                assertTrue(ProcessTree.childrenOf(ProcessTree.selfPid()).isEmpty(), "round " + round);
            }
            List<String> violations = JournalChecks.mailboxesReleasedOnlyAfterReap(
                    JournalChecks.readAll(tmp.resolve("journal")));
            assertTrue(violations.isEmpty(), violations.toString());
        }
    }
}
