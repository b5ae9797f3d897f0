package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.ChildExited;
import dev.vigil.journal.ChildRestarted;
import dev.vigil.journal.ChildSpawned;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MonotonicClock;
import dev.vigil.journal.PoolFailed;
import dev.vigil.mailbox.MailboxException;
import dev.vigil.spawn.Redirect;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pool's exit policy on real processes (C demo children that end themselves with OP_EXIT): restart with backoff
 * until the intensity limit is crossed, then the pool fails and closes; fail-pool closes the pool at once.
 */
@Timeout(120)
class ExitPolicyTest {
    private static final long MS = 1_000_000L;

    @TempDir
    Path tmp;

    @Test
    void aChildExitingThreeTimesIsRestartedWithBackoffThenThePoolFailsWhenTheIntensityLimitIsCrossed() throws Exception {
        Path journalDir = tmp.resolve("journal");
        ExitPolicy policy = ExitPolicy.restart(2, Duration.ofSeconds(60), Duration.ofMillis(100), Duration.ofSeconds(1));
        try (Orchestrator o = Orchestrator.builder().journalDir(journalDir).closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(o, "flaky").childOutput(Redirect.DISCARD).exitPolicy(policy)
                    .group("g", 1, ChildSpec.cDemo()).group("steady", 1, ChildSpec.cDemo()).start();
            int[] pids = new int[3];
            long[] exitedAt = new long[3];
            for (int round = 0; round < 3; round++) {
                PoolChild c = pool.child("g", 0);
                pids[round] = c.pid();
                MailboxException e = assertThrows(MailboxException.class,
                        () -> pool.control("g", 0, DemoHandler.OP_EXIT, 3, Duration.ofSeconds(30)));
                exitedAt[round] = MonotonicClock.nanos();
                assertTrue(e.getMessage().contains("exitCode=3"), e.getMessage());
                if (round < 2) {
                    PoolChild next = awaitReplacement(pool, c);
                    assertNotEquals(c.pid(), next.pid());
                    assertTrue(next.mailbox().awaitInit(Duration.ofSeconds(10)) == dev.vigil.mailbox.InitOutcome.READY);
                    // The restarted child works.
                    assertEquals(7, pool.control("g", 0, DemoHandler.OP_ECHO, 7, Duration.ofSeconds(10)).value());
                }
            }
            // The third exit would be the third restart within 60 s: the pool fails and closes on its own.
            long deadline = MonotonicClock.nanos() + TimeUnit.SECONDS.toNanos(20);
            while (pool.failure().isEmpty() || pool.lastReport().isEmpty()) {
                assertTrue(MonotonicClock.nanos() < deadline, "the pool failed and closed: " + pool.failure());
                Thread.sleep(5);
            }
            assertTrue(pool.failure().get().contains("restart intensity crossed"), pool.failure().get());
            assertThrows(AdmissionClosedException.class, () -> pool.control("steady", 0, DemoHandler.OP_ECHO, 1,
                    Duration.ofSeconds(5)));
            CloseReport r = pool.closeWithReport();
            assertEquals(CloseReport.Outcome.CLEAN, r.outcome(), r.toJson());
            assertEquals(CloseReport.ChildOutcome.EXITED, r.child("g", 0).outcome());
            assertEquals(3, r.child("g", 0).exitCode(), "the last child's own exit, collected by the close");
            assertEquals(pids[2], r.child("g", 0).pid());
            assertEquals(CloseReport.ChildOutcome.EXITED, r.child("steady", 0).outcome());

            o.journal().writer().flush();
            List<JournalEvent> events = JournalChecks.readAll(journalDir);
            List<ChildExited> exits = events.stream().filter(ev -> ev instanceof ChildExited x && x.group().equals("g"))
                    .map(ChildExited.class::cast).toList();
            assertEquals(3, exits.size(), "every exit journaled: " + exits);
            exits.forEach(x -> assertEquals("restart", x.policy()));
            List<ChildRestarted> restarts = events.stream().filter(ChildRestarted.class::isInstance)
                    .map(ChildRestarted.class::cast).toList();
            assertEquals(2, restarts.size(), "two restarts: " + restarts);
            assertEquals(100 * MS, restarts.get(0).backoffNanos());
            assertEquals(200 * MS, restarts.get(1).backoffNanos(), "the backoff doubles inside the period");
            for (int i = 0; i < 2; i++) {
                ChildRestarted cr = restarts.get(i);
                assertEquals(pids[i], cr.oldPid());
                assertEquals(pids[i + 1], cr.newPid());
                assertEquals(i + 1, cr.restartsInPeriod());
                ChildExited x = exits.get(i);
                ChildSpawned spawn = events.stream().filter(ev -> ev instanceof ChildSpawned s && s.pid() == cr.newPid())
                        .map(ChildSpawned.class::cast).findFirst().orElseThrow();
                assertTrue(spawn.timeNanos() - x.timeNanos() >= cr.backoffNanos() - 2 * MS,
                        "spawned only after its backoff: " + (spawn.timeNanos() - x.timeNanos()) / MS + " ms");
            }
            PoolFailed failed = events.stream().filter(PoolFailed.class::isInstance).map(PoolFailed.class::cast)
                    .findFirst().orElseThrow();
            assertTrue(failed.reason().contains("maxRestarts=2"), failed.reason());
            assertEquals(r.closeId(), failed.closeId(), "PoolFailed names the close it started");
            assertTrue(events.indexOf(failed) > events.indexOf(exits.get(2)));
            assertEquals(List.of(), JournalChecks.mailboxesReleasedOnlyAfterReap(events));
        }
    }

    @Test
    void aSentCommandWhoseChildWasRestartedFailsNamingTheExitWhenAwaited() throws Exception {
        ExitPolicy policy = ExitPolicy.restart(5, Duration.ofSeconds(60), Duration.ofMillis(10), Duration.ofMillis(10));
        try (Orchestrator o = Orchestrator.builder().journalDir(tmp.resolve("journal")).closeSettings(CloseSettings.defaults())
                .open()) {
            Pool pool = Pool.builder(o, "sent").childOutput(Redirect.DISCARD).exitPolicy(policy)
                    .group("g", 1, ChildSpec.cDemo()).start();
            PoolChild first = pool.child("g", 0);
            pool.sendControl("g", 0, DemoHandler.OP_EXIT, 4);
            PoolChild next = awaitReplacement(pool, first);
            next.mailbox().awaitInit(Duration.ofSeconds(10));
            MailboxException e = assertThrows(MailboxException.class, () -> pool.awaitControl("g", 0, Duration.ofSeconds(5)));
            assertTrue(e.getMessage().contains("exitCode=4") && e.getMessage().contains("restarted"), e.getMessage());
            assertEquals(9, pool.control("g", 0, DemoHandler.OP_ECHO, 9, Duration.ofSeconds(10)).value());
            pool.closeWithReport();
        }
    }

    @Test
    void failPoolClosesThePoolAtOnce() throws Exception {
        Path journalDir = tmp.resolve("journal");
        try (Orchestrator o = Orchestrator.builder().journalDir(journalDir).closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(o, "strict").childOutput(Redirect.DISCARD).exitPolicy(ExitPolicy.failPool())
                    .group("g", 3, ChildSpec.cDemo()).start();
            long t0 = MonotonicClock.nanos();
            assertThrows(MailboxException.class, () -> pool.control("g", 1, DemoHandler.OP_EXIT, 5, Duration.ofSeconds(30)));
            long deadline = MonotonicClock.nanos() + TimeUnit.SECONDS.toNanos(20);
            while (pool.lastReport().isEmpty()) {
                assertTrue(MonotonicClock.nanos() < deadline, "the failed pool closed on its own");
                Thread.sleep(2);
            }
            long closedAfter = MonotonicClock.nanos() - t0;
            CloseReport r = pool.lastReport().get();
            assertTrue(pool.failure().orElseThrow().contains("policy fail-pool"), pool.failure().get());
            assertEquals(5, r.child("g", 1).exitCode());
            assertEquals(CloseReport.ChildOutcome.EXITED, r.child("g", 0).outcome(), r.toJson());
            assertEquals(CloseReport.ChildOutcome.EXITED, r.child("g", 2).outcome(), r.toJson());
            // At once: the close starts on the exit itself, and the others ack their shutdown words within ms.
            assertTrue(closedAfter < TimeUnit.SECONDS.toNanos(5), "closed " + closedAfter / MS + " ms after the exit");
            assertThrows(AdmissionClosedException.class, () -> pool.addChild("g"));
            assertEquals(r, pool.closeWithReport(), "close() returns the failure's close");
            o.journal().writer().flush();
            List<JournalEvent> events = JournalChecks.readAll(journalDir);
            PoolFailed failed = events.stream().filter(PoolFailed.class::isInstance).map(PoolFailed.class::cast)
                    .findFirst().orElseThrow();
            assertEquals(r.closeId(), failed.closeId());
            long closesStarted = events.stream().filter(CloseStarted.class::isInstance).count();
            assertEquals(1, closesStarted, "one close: the failure's");
            CloseCompleted done = events.stream().filter(CloseCompleted.class::isInstance).map(CloseCompleted.class::cast)
                    .findFirst().orElseThrow();
            assertTrue(done.timeNanos() - failed.timeNanos() < TimeUnit.SECONDS.toNanos(5));
            assertFalse(events.stream().anyMatch(ChildRestarted.class::isInstance));
        }
    }

    @Test
    void keepLeavesThePoolRunning() throws Exception {
        try (Orchestrator o = Orchestrator.builder().journalDir(tmp.resolve("journal")).closeSettings(CloseSettings.defaults())
                .open()) {
            Pool pool = Pool.builder(o, "lenient").childOutput(Redirect.DISCARD).group("g", 2, ChildSpec.cDemo()).start();
            assertThrows(MailboxException.class, () -> pool.control("g", 0, DemoHandler.OP_EXIT, 2, Duration.ofSeconds(30)));
            pool.child("g", 0).exit().get(10, TimeUnit.SECONDS);
            Thread.sleep(200);
            assertTrue(pool.failure().isEmpty());
            assertFalse(pool.isClosing());
            assertEquals(3, pool.control("g", 1, DemoHandler.OP_ECHO, 3, Duration.ofSeconds(10)).value());
            CloseReport r = pool.closeWithReport();
            assertEquals(2, r.child("g", 0).exitCode());
        }
    }

    private static PoolChild awaitReplacement(Pool pool, PoolChild old) throws InterruptedException {
        long deadline = MonotonicClock.nanos() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            PoolChild now = pool.child(old.group(), old.index());
            if (now != old) {
                return now;
            }
            assertTrue(MonotonicClock.nanos() < deadline, "restarted within 20 s");
            Thread.sleep(2);
        }
    }
}
