package dev.vigil.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.JournalReader;
import dev.vigil.journal.MailboxRecovered;
import dev.vigil.journal.OrchestratorDeathFound;
import dev.vigil.journal.PoolKept;

/**
 * Leak means kept, as a user runs it: {@code bin/vigil run} under escalation leak ends listing each survivor (pid,
 * cgroup, command) and the command that ends it; the survivors are alive after the run exited (a plain executable
 * and its fork; an idle mailbox child ends itself once orphaned, by design), their mailboxes still allocated;
 * stdout and the journal count the same closes (no unprinted extra close); {@code bin/vigil reap} ends them later,
 * journaled, and frees their mailboxes; a second reap finds nothing. A second cycle neither closes the kept pool again
 * nor counts its survivors twice: its start of the same pool id is refused while they live.
 */
@Timeout(420)
class LeakAndReapEndToEndTest {
    @TempDir
    Path work;

    @Test
    void survivorsOfALeakRunOutliveItAndAreReapedLater() throws Exception {
        Path spec = Files.writeString(work.resolve("leak.json"), """
                {"journalDir": "leak-journal", "cycles": 2,
                 "close": {"windowMs": 300, "escalation": "leak"},
                 "pools": [{"id": "keeper", "groups": [
                     {"name": "stubborn", "kind": "exec", "command": ["/bin/sh", "-c", "trap '' TERM; sleep 600 & wait"], "children": 1},
                     {"name": "stuck", "kind": "c", "children": 1, "env": {"VIGIL_DEMO_IGNORE_SHUTDOWN": "1"}},
                     {"name": "fine", "kind": "c", "children": 1}]}]}
                """);
        List<Long> pids = new ArrayList<>();
        List<Long> plain = new ArrayList<>();
        try {
            Launchers.Result run = Launchers.vigil(work, 240, "run", spec.toString());
            assertEquals(1, run.exitCode(), "the close kept survivors, so it failed:\n" + run);
            Matcher kept = Pattern.compile("  pool=keeper pid=(\\d+) cgroup=(\\S+) command=(.*)").matcher(run.out());
            while (kept.find()) {
                pids.add(Long.parseLong(kept.group(1)));
                if (!kept.group(3).contains("vigil-demo-child")) {
                    plain.add(Long.parseLong(kept.group(1)));
                }
            }
            assertTrue(run.out().contains("kept running (escalation: leak)"), run.out());
            assertTrue(plain.size() >= 2, "the shell and its sleep at least: " + run.out());
            assertTrue(pids.size() > plain.size(), "and the stuck C child: " + run.out());
            assertTrue(run.out().contains("end them with: "), run.out());
            assertTrue(run.out().contains(" reap " + work.resolve("leak-journal")), run.out());
            // (a mailbox child that is idle ends itself once orphaned, by design; its mailbox stays allocated)
            for (long pid : plain) {
                assertTrue(alive(pid), "kept pid " + pid + " must outlive the run:\n" + run.out());
            }
            // stdout and the journal agree on the closes: no third, unprinted close at the JVM's exit
            Matcher closes = Pattern.compile("closes: (\\d+) ").matcher(run.out());
            assertTrue(closes.find(), run.out());
            assertEquals(Integer.parseInt(closes.group(1)), count(work.resolve("leak-journal"), CloseCompleted.class), run.out());
            assertEquals(1, count(work.resolve("leak-journal"), PoolKept.class));
            // cycle 2: the kept pool is not closed again (leak means no further close) and its id stays taken while
            // its survivors live, so the second start of "keeper" is refused by name, once
            assertEquals(1, Integer.parseInt(closes.group(1)), "one close, cycle 1's:\n" + run.out());
            assertEquals(1, run.out().split("start failed: poolId: duplicate open pool's id 'keeper'", -1).length - 1,
                    run.out());
            Matcher keptCount = Pattern.compile("kept running: (\\d+)").matcher(run.out());
            assertTrue(keptCount.find(), run.out());
            assertEquals(2, Integer.parseInt(keptCount.group(1)), "the stubborn and the stuck child, each once:\n" + run.out());

            Launchers.Result reap = Launchers.vigil(work, 60, "reap", "leak-journal");
            assertEquals(0, reap.exitCode(), reap.toString());
            assertTrue(reap.out().startsWith("reaped: recovered what orchestrator pid="), reap.out());
            assertFalse(reap.out().contains("0 process(es) killed"), reap.out());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (pids.stream().anyMatch(LeakAndReapEndToEndTest::alive) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            for (long pid : pids) {
                assertFalse(alive(pid), "pid " + pid + " alive after reap:\n" + reap);
            }
            assertEquals(1, count(work.resolve("leak-journal"), OrchestratorDeathFound.class));
            assertTrue(count(work.resolve("leak-journal"), MailboxRecovered.class) >= 1, "the stuck C child's mailbox freed");
            assertEquals(Integer.parseInt(closes.group(1)), count(work.resolve("leak-journal"), CloseCompleted.class),
                    "reap runs no close");

            Launchers.Result again = Launchers.vigil(work, 60, "reap", "leak-journal");
            assertEquals(0, again.exitCode(), again.toString());
            assertTrue(again.out().startsWith("nothing to reap"), again.out());

            Launchers.Result missing = Launchers.vigil(work, 60, "reap", "no-such-journal");
            assertEquals(2, missing.exitCode(), missing.toString());
            assertEquals("ERR: journal dir=" + work.resolve("no-such-journal") + " does not exist; nothing done",
                    missing.err().strip());
            // a directory that is not a journal (a typo, 'reap .') is refused and left as it was, nothing beside it
            Path notJournal = Files.createDirectories(work.resolve("plain"));
            Launchers.Result notAJournal = Launchers.vigil(work, 60, "reap", "plain");
            assertEquals(2, notAJournal.exitCode(), notAJournal.toString());
            assertEquals("ERR: dir=" + notJournal + " is not a Vigil journal (no vigil-journal.properties); nothing done",
                    notAJournal.err().strip());
            try (var inPlain = Files.list(notJournal); var beside = Files.list(work)) {
                assertEquals(List.of(), inPlain.toList(), "nothing written into the directory");
                assertEquals(List.of(), beside.filter(f -> f.getFileName().toString().startsWith("plain-")).toList(),
                        "no lock or map file beside it");
            }
        } finally {
            for (long pid : pids) {
                new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return !stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (IOException gone) {
            return false;
        }
    }

    private static long count(Path journal, Class<?> kind) {
        long[] n = {0};
        try (JournalReader r = JournalReader.open(journal)) {
            r.fromStart().readAll((i, e) -> {
                if (kind.isInstance(e)) {
                    n[0]++;
                }
                return true;
            });
        }
        return n[0];
    }
}
