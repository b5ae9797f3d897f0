package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.close.CloseSettings;
import dev.vigil.journal.ChildSpawned;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MailboxStateCodes;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.MailboxTransitionBatch;
import dev.vigil.spawn.Redirect;

/**
 * A start of children that boot a runtime (JAVA, PYTHON) lets at most {@link Pool.Builder#bootingAtOnce} of them boot
 * at once, and bounds each one's readiness from its own spawn. Before, every batch of 64 was spawned at once: 250 JVMs
 * booted together on 2 cores, a later batch's spawns waited behind them (8 s for 64), a stop took effect 2-9 s late,
 * and the start's single deadline could not hold a pool of slow starters that were each healthy.
 */
@Timeout(300)
class BootingStartTest {
    @TempDir
    Path tmp;

    /** A Python handler whose module takes 1.2 s to import: a child ready about 1.2 s after its spawn. */
    private Path slowImportModule() throws Exception {
        Path dir = tmp.resolve("modules");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("slow_boot.py"), """
                import time
                import vigil_child

                time.sleep(1.2)

                class Handler(vigil_child.Handler):
                    def on_control(self, opcode, argument, cancellation):
                        return argument
                """);
        return dir;
    }

    /**
     * Per child, the journal's time of its ChildSpawned and of its INIT_READY transition; checks that no more than
     * {@code most} were booting (spawned, not yet ready) when any of them was spawned, and returns the largest count.
     */
    private static int mostBootingAtOnce(List<JournalEvent> events, String pool) {
        Map<Integer, Long> spawned = new HashMap<>();
        Map<Integer, Long> ready = new HashMap<>();
        for (JournalEvent e : events) {
            if (e instanceof ChildSpawned s && s.poolId().equals(pool)) {
                spawned.put(s.index(), s.timeNanos());
            }
            for (MailboxTransition t : MailboxTransitionBatch.expand(e)) {
                if (t.poolId().equals(pool) && t.toState() == MailboxStateCodes.INIT_READY) {
                    ready.putIfAbsent(t.index(), t.timeNanos());
                }
            }
        }
        assertEquals(spawned.keySet(), ready.keySet(), "every child spawned and ready");
        int most = 0;
        for (long at : spawned.values()) {
            int booting = 0;
            for (int i : spawned.keySet()) {
                booting += spawned.get(i) <= at && ready.get(i) > at ? 1 : 0;
            }
            most = Math.max(most, booting); // the one spawned at that moment among them
        }
        return most;
    }

    @Test
    void aStartBootsOneAtATimeWhenToldAndBoundsEachChildFromItsOwnSpawn() throws Exception {
        Path modules = slowImportModule();
        Path journal = tmp.resolve("journal");
        long t0 = System.nanoTime();
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).closeSettings(CloseSettings.defaults()).open()) {
            // 4 children of 1.2 s each, one at a time: 4.8 s in all, more than the 4 s bound of each
            Pool pool = Pool.builder(o, "slow-boot").childOutput(Redirect.INHERIT).bootingAtOnce(1)
                    .startTimeout(Duration.ofSeconds(4))
                    .group("py", 4, ChildSpec.python("slow_boot:Handler").withClassPath(modules))
                    .start();
            assertEquals(7, pool.control("py", 3, 1, 7, Duration.ofSeconds(10)).value());
            assertTrue(pool.closeWithReport().isClean());
            o.journal().writer().flush();
            List<JournalEvent> events = JournalChecks.readAll(journal);
            assertEquals(1, mostBootingAtOnce(events, "slow-boot"), () -> "booting at once, bound 1: " + events.stream()
                    .filter(e -> e instanceof ChildSpawned || !MailboxTransitionBatch.expand(e).isEmpty()).map(e -> e instanceof ChildSpawned s
                            ? "spawned " + s.index() + " at " + s.timeNanos() / 1000000 : MailboxTransitionBatch.expand(e).stream()
                            .map(t -> t.index() + ":" + t.fromState() + "->" + t.toState() + " at " + t.timeNanos() / 1000000).toList().toString())
                    .toList());
        }
        assertTrue(System.nanoTime() - t0 > Duration.ofMillis(4800).toNanos(), "one after another: 4 x 1.2 s at least");
    }

    /**
     * Hundreds of real JVMs (the Java child runtime as documented, no options): the start lets 8 per CPU boot at once,
     * every child is ready and answers, the close is clean and leaves no process and no cgroup.
     */
    @Test
    @Tag("slow")
    void twoHundredJavaChildrenBootAFewAtATimeAndCloseClean() throws Exception {
        Path journal = tmp.resolve("journal-java");
        int n = 200;
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).closeSettings(CloseSettings.defaults()).open()) {
            long t0 = System.nanoTime();
            Pool pool = Pool.builder(o, "jvms").childOutput(Redirect.DISCARD).startTimeout(Duration.ofSeconds(60))
                    .group("j", n, ChildSpec.java("dev.vigil.child.demo.DemoHandler")).start();
            System.out.printf("%d Java children ready in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);
            List<Integer> pids = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                assertEquals(i, pool.control("j", i, 1, i, Duration.ofSeconds(30)).value());
                pids.add(pool.child("j", i).pid());
            }
            assertTrue(pool.closeWithReport().isClean());
            o.journal().writer().flush();
            int most = mostBootingAtOnce(JournalChecks.readAll(journal), "jvms");
            assertTrue(most <= Pool.BOOTING_AT_ONCE, most + " booting at once, bound " + Pool.BOOTING_AT_ONCE);
            for (int pid : pids) {
                assertTrue(ProcessHandle.of(pid).isEmpty(), "pid " + pid + " outlived the close");
            }
        }
    }
}
