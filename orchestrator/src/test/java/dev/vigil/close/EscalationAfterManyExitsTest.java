package dev.vigil.close;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;
import dev.vigil.close.decision.CloseReport;

/**
 * An escalation that finds more than 64 children exited but not yet collected (one epoll_wait hands over 64) sends no
 * signal to any of them and reports each as exited. Seen: two SIGTERMs during a 400-child start, the rollback close
 * reported 128 of 192 children KILLED_BY_ESCALATION that had exited with status 0 (proc=Z at their diagnosis).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EscalationAfterManyExitsTest {
    private static final int CHILDREN = 130;
    private static final int SIGUSR2 = 12;

    @TempDir
    Path tmp;

    /**
     * The same under leak, where nothing is sent: before, every one of them was reported kept (SURVIVOR, "kept
     * running: 130") though each had exited during the evidence capture.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(dev.vigil.close.decision.EscalationPolicy.class)
    void childrenThatExitedBeforeTheEscalationAreReportedExitedHoweverMany(dev.vigil.close.decision.EscalationPolicy policy)
            throws Exception {
        Path fifo = tmp.resolve("go");
        // a helper, not a pool child: ProcessBuilder is fine here
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        // ignores its stop signal (USR2), exits 0 once the FIFO's writer closes it (read gets end of file)
        ChildSpec waiter = ChildSpec.exec("/bin/sh", "-c", "trap '' USR2; read x < '" + fifo + "'; exit 0")
                .withStopSignal(SIGUSR2);
        try (Orchestrator o = Orchestrator.builder().journalDir(tmp.resolve("journal")).closeSettings(CloseSettings.defaults())
                .open()) {
            // The hook runs on the close engine's thread just before the escalation: every survivor exits meanwhile,
            // and the engine collects none of them until the escalation looks.
            o.closeEngine().beforeEscalation(new CloseMachine.BeforeEscalation() {
                @Override
                public CompletableFuture<Map<ClosingChild, String>> capture(String poolId, long closeId,
                        List<ClosingChild> survivors) {
                    try {
                        new java.io.FileOutputStream(fifo.toFile()).close(); // every reader's read ends
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        for (ClosingChild c : survivors) {
                            while (!zombie(c.pid()) && System.nanoTime() < deadline) {
                                Thread.sleep(5);
                            }
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return CompletableFuture.completedFuture(Map.of());
                }
            });
            Pool pool = Pool.builder(o, "waiters").group("w", CHILDREN, waiter)
                    .closeSettings(CloseSettings.builder().window(Duration.ofMillis(300))
                            .escalation(policy).build()).start();
            for (dev.vigil.pool.PoolChild c : pool.children()) {
                dev.vigil.spawn.ProcFs.awaitIgnoring(c.pid(), SIGUSR2); // a USR2 before its trap ends the shell
            }
            CloseReport report = pool.closeWithReport();
            assertEquals(CHILDREN, report.children().size());
            List<String> killed = report.children().stream()
                    .filter(c -> c.outcome() != CloseReport.ChildOutcome.EXITED || c.exitCode() != 0)
                    .map(c -> c.index() + ":" + c.outcome() + ":" + c.exitCode() + ":" + c.signal()).toList();
            assertTrue(killed.isEmpty(), killed.size() + " of " + CHILDREN + " exited children were reported otherwise: "
                    + killed.subList(0, Math.min(5, killed.size())));
        }
    }

    private static boolean zombie(int pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (java.io.IOException gone) {
            return true;
        }
    }
}
