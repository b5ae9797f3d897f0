package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.close.CloseFailedException;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;

/**
 * The replay run on a journal while its orchestrator writes it, mid-close (a user following a slow close): the
 * close is in progress, not cut off. Audit said {@code VIOLATION CLOSE_NOT_COMPLETED ... result: VIOLATIONS},
 * {@code closes} INCOMPLETE and {@code show} "INCOMPLETE ... FAILED: pid N not reaped" for a close that then
 * completed normally; a journal whose orchestrator is gone still gets the violation (AuditTest, fixtures).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LiveJournalTest {
    @TempDir
    Path tmp;

    @Test
    void aCloseTheLiveOrchestratorIsRunningIsInProgressForAuditClosesAndShowNotAViolation() throws Exception {
        Path journal = tmp.resolve("journal");
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).closeSettings(CloseSettings.defaults()).open()) {
            // a plain executable that ignores its stop signal: the close waits out its 60 s no-progress window
            Pool pool = Pool.builder(o, "live").closeSettings(CloseSettings.builder().window(Duration.ofSeconds(60))
                            .grace(Duration.ofMillis(100)).escalation(EscalationPolicy.TERM_THEN_KILL).build())
                    .group("stubborn", 1, ChildSpec.exec("/bin/sh", "-c", "trap '' TERM; while :; do sleep 0.1; done"))
                    .start();
            int pid = pool.child("stubborn", 0).pid();
            dev.vigil.spawn.ProcFs.awaitIgnoring(pid, 15); // a SIGTERM before the shell's trap would end it at once, and the close CLEAN
            CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
                try {
                    pool.close();
                } catch (CloseFailedException expected) {
                    // the child ends by an outside SIGKILL below
                }
            });
            CliRun closes = CliRun.of("closes", journal.toString());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!closes.out().contains("live") && System.nanoTime() < deadline) {
                Thread.sleep(50);
                closes = CliRun.of("closes", journal.toString());
            }
            assertTrue(closes.out().contains("IN_PROGRESS"), closes::toString);

            CliRun audit = CliRun.of("audit", journal.toString());
            assertEquals(AuditCommand.EXIT_IN_PROGRESS, audit.exit(), audit::toString);
            assertFalse(audit.out().contains("VIOLATION"), audit::toString);
            long self = ProcessHandle.current().pid();
            assertTrue(audit.out().contains("1 closes (0 CLEAN, 0 FAILED, 0 incomplete, 1 in progress), 0 violations"), audit::toString);
            assertTrue(audit.out().contains("result: CLEAN SO FAR (the journal is live: orchestrator pid " + self), audit::toString);

            String closeId = closes.out().lines().filter(l -> l.contains("IN_PROGRESS")).findFirst().orElseThrow().trim().split(" +")[0];
            CliRun show = CliRun.of("show", journal.toString(), closeId);
            assertEquals(0, show.exit(), show::toString);
            assertTrue(show.out().contains("verdict: IN PROGRESS (the journal is live: orchestrator pid " + self
                    + " is still running this close): 1 of 1 child(ren) not reaped yet: pid " + pid), show::toString);

            ProcessHandle.of(pid).orElseThrow().destroyForcibly(); // the close ends with the child's exit
            closing.get(30, TimeUnit.SECONDS);
        }
        CliRun after = CliRun.of("audit", journal.toString());
        assertEquals(0, after.exit(), after::toString);
        assertTrue(after.out().contains(" 1 closes (") && after.out().contains(" 0 incomplete), 0 violations"), after::toString);
    }
}
