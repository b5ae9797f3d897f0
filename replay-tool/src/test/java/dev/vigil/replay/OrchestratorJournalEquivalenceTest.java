package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.vigil.close.JournalScenarios;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.BudgetSpent;
import dev.vigil.journal.ChildAcked;
import dev.vigil.journal.ChildExited;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalReader;
import dev.vigil.journal.JournalWriter;

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
        assertFalse(audit.out().contains("DECISION_MISMATCH"), "every close's decisions re-derive identically: " + audit);
        assertTamperedAckIsFlagged(journal);
        assertTamperedExitIsFlagged(journal);
        CloseReport legacy = live.stream().filter(r -> r.poolId().equals("legacy")).findFirst().orElseThrow();
        CliRun show = CliRun.of("show", journal.toString(), Long.toString(legacy.closeId()));
        assertTrue(show.out().contains("verdict: FAILED: SHUTDOWN overwritten by child pid "), show::toString);
        assertTrue(show.out().contains("agrees with the journal"), show::toString);
        int inFlight = rebuilt.get(legacy.closeId()).started().overlappingCloses();
        assertTrue(inFlight >= 1, "the engine counts the close itself among those in flight: " + inFlight);
        assertTrue(show.out().lines().findFirst().orElseThrow().endsWith("overlapping closes " + (inFlight - 1)),
                "show counts the others: " + show);
        CloseReport restarts = live.stream().filter(r -> r.poolId().equals("restarts")).findFirst().orElseThrow();
        CliRun shown = CliRun.of("show", journal.toString(), Long.toString(restarts.closeId()));
        assertTrue(shown.out().contains("started by the pool's failure at "), shown::toString);
        assertTrue(shown.out().contains("restart intensity crossed"), shown::toString);
        assertEquals(2, shown.out().lines().filter(l -> l.contains("child flaky/0 restarted: pid ")).count(), shown::toString);
        assertEquals(3, shown.out().lines().filter(l -> l.contains("child flaky/0 pid ") && l.contains("exited (exit 3), policy restart"))
                .count(), shown::toString);
        String closes = CliRun.of("closes", journal.toString()).out();
        assertTrue(closes.contains("2 restart(s) before this close; started by the pool's failure: "), closes);
        assertTrue(closes.contains("started by the pool's failure: child exited during the run: pid="), closes);
        System.out.println(shown.out());
        System.out.println(audit.out());
        System.out.println(show.out());
        System.out.println(CliRun.of("closes", journal.toString()).out());
    }

    /**
     * The same journal with the exit that crossed pool restarts' intensity (its third within the period) moved a
     * period later: re-run there, the intensity restarts it, so the journaled decision (fail the pool) is flagged.
     */
    private void assertTamperedExitIsFlagged(Path journal) {
        List<JournalEvent> events = read(journal);
        Path tampered = tmp.resolve("tampered-exit");
        int exits = 0;
        try (JournalWriter w = JournalWriter.open(tampered)) {
            for (JournalEvent e : events) {
                if (e instanceof ChildExited x && x.poolId().equals("restarts") && ++exits == 3) {
                    assertEquals(x.maxRestarts() + 1, x.restartsInPeriod(), "the third exit crossed the intensity: " + x);
                    e = new ChildExited(x.timeNanos() + x.periodNanos(), x.orchestratorPid(), x.poolId(), x.closeId(),
                            x.group(), x.index(), x.pid(), x.exitCode(), x.signal(), x.policy(), x.maxRestarts(),
                            x.periodNanos(), x.backoffNanos(), x.maxBackoffNanos(), x.restartsInPeriod(),
                            x.restartAfterNanos());
                }
                w.append(e);
            }
        }
        assertEquals(3, exits, "pool restarts journals three exits");
        CliRun audit = CliRun.of("audit", tampered.toString());
        assertTrue(audit.out().lines().anyMatch(l -> l.contains("VIOLATION DECISION_MISMATCH") && l.contains("restarts")
                && l.contains("journaled fail the pool")), "the tampered exit time is flagged:\n" + audit);
    }

    private static List<JournalEvent> read(Path journal) {
        List<JournalEvent> events = new ArrayList<>();
        try (JournalReader r = JournalReader.open(journal)) {
            r.readAll((i, e) -> events.add(e));
        }
        return events;
    }

    /** The same journal with one ack moved past its close's budget: the decision audit must flag that close. */
    private void assertTamperedAckIsFlagged(Path journal) {
        List<JournalEvent> events = read(journal);
        Map<Long, BudgetSpent> spends = new HashMap<>();
        Map<Long, CloseStarted> starts = new HashMap<>();
        for (JournalEvent e : events) {
            if (e instanceof BudgetSpent b) {
                spends.put(b.closeId(), b);
            } else if (e instanceof CloseStarted c) {
                starts.put(c.closeId(), c);
            }
        }
        Path tampered = tmp.resolve("tampered");
        long tamperedClose = 0;
        try (JournalWriter w = JournalWriter.open(tampered)) {
            for (JournalEvent e : events) {
                if (tamperedClose == 0 && e instanceof ChildAcked a && spends.containsKey(a.closeId())) {
                    long late = spends.get(a.closeId()).timeNanos() + 2 * starts.get(a.closeId()).windowNanos();
                    e = new ChildAcked(late, a.orchestratorPid(), a.poolId(), a.closeId(), a.group(), a.index(), a.pid(),
                            a.ackNanos());
                    tamperedClose = a.closeId();
                }
                w.append(e);
            }
        }
        assertTrue(tamperedClose != 0, "a close with an ack and a spent budget exists to tamper with");
        CliRun audit = CliRun.of("audit", tampered.toString());
        String flagged = "close " + tamperedClose;
        assertTrue(audit.out().lines().anyMatch(l -> l.contains("VIOLATION DECISION_MISMATCH") && l.contains(flagged)),
                "the tampered ack time is flagged:\n" + audit);
    }
}
