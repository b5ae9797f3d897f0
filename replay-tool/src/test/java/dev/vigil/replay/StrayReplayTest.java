package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.close.CloseFailedException;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.contain.CgroupMount;
import dev.vigil.contain.ContainmentSettings;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;

/**
 * A real close that finds strays (a child exited 0 and left a TERM-ignoring daemon in its pool's cgroup): the
 * replay's {@code show} lists each stray and the container kill that ended them, {@code closes} counts them, and
 * the rebuilt outcome (FAILED) agrees with the live report.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StrayReplayTest {
    @TempDir
    Path tmp;

    @Test
    void showListsTheStraysOfAClosedPoolAndClosesCountsThem() throws Exception {
        Path mount = CgroupMount.find();
        assumeTrue(mount != null && Files.isWritable(mount), "needs a writable cgroup v2 mount");
        Path journal = tmp.resolve("journal");
        CloseReport report;
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).containment(ContainmentSettings.cgroups(null))
                .closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(o, "daemonizer").closeSettings(CloseSettings.builder().window(Duration.ofMillis(150))
                            .grace(Duration.ofMillis(100)).escalation(EscalationPolicy.TERM_THEN_KILL).build())
                    .group("starter", 1, ChildSpec.exec("/bin/sh", "-c",
                            "setsid -f sh -c \"trap '' TERM; sleep 600\"; exit 0")).start();
            pool.child("starter", 0).exit().get();
            Thread.sleep(200); // the daemon's sleep has started
            report = assertThrows(CloseFailedException.class, pool::close).report();
        }
        assertFalse(report.strays().isEmpty(), report.toJson());
        CliRun show = CliRun.of("show", journal.toString(), Long.toString(report.closeId()));
        assertTrue(show.out().contains("strays " + report.strays().size()), show::toString);
        assertTrue(show.out().contains("strays: " + report.strays().size()), show::toString);
        for (CloseReport.Stray s : report.strays()) {
            assertTrue(show.out().contains("stray pid " + s.pid() + " "), show::toString);
            // killed or kept, as the live report says (show said neither)
            assertTrue(s.killed() && show.out().lines().anyMatch(l -> l.startsWith("  stray pid " + s.pid() + " ")
                    && l.endsWith("(ended by the close)")), show::toString);
        }
        assertTrue(show.out().contains("container kill (cgroup)"), show::toString);
        assertTrue(show.out().contains("agrees with the journal"), show::toString);
        assertTrue(show.out().contains("verdict: FAILED: stray pid"), show::toString);
        CliRun closes = CliRun.of("closes", journal.toString());
        String row = closes.out().lines().filter(l -> l.contains("daemonizer")).findFirst().orElseThrow();
        assertTrue(row.trim().endsWith(Integer.toString(report.strays().size())), closes::toString);
    }
}
