package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.close.CloseSettings;
import dev.vigil.contain.ContainmentSettings;
import dev.vigil.contain.GuardianRecord;
import dev.vigil.journal.CloseEndedByOrchestratorDeath;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MailboxRecovered;
import dev.vigil.journal.MailboxReleased;
import dev.vigil.journal.OrchestratorDeathFound;
import dev.vigil.recovery.CrashRecovery;
import dev.vigil.recovery.JournalDirInUseException;

/**
 * The orchestrator JVM SIGKILLed in the middle of a close of TERM-ignoring children that forked: its
 * guardian must leave no process of any pool alive 1 s later, and write its record beside the journal.
 * Without the guardian (the broken variant) the grandchildren outlive the orchestrator.
 */
@Timeout(600)
class OrchestratorCrashTest {
    @TempDir
    Path tmp;

    /** Starts ForkingPoolHolderMain (a real orchestrator process) on {@code journal}. */
    private Process startHolder(String containment, String guardian, MarkedProcesses marked, Path journal) throws Exception {
        String cp = Path.of(Orchestrator.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + ":"
                + Path.of(ForkingPoolHolderMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + ":"
                + Files.readString(Path.of(System.getProperty("vigil.testClasspathFile"))).trim();
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + System.getProperty("vigil.jvmOptionsFile"), "-cp", cp,
                "-Dvigil.native.dir=" + System.getProperty("vigil.native.dir"), ForkingPoolHolderMain.class.getName(),
                journal.toString(), containment, marked.variableValue(), guardian);
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    /** Reads the holder's output until {@code wanted}; fails if it ends or stays silent for 120 s first. */
    private static void awaitLine(Process holder, String wanted) throws Exception {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (java.io.IOException ignored) {
                // the holder was killed
            }
            lines.add("EOF");
        });
        reader.setDaemon(true);
        reader.start();
        StringBuilder seen = new StringBuilder();
        while (true) {
            String line = lines.poll(120, TimeUnit.SECONDS);
            assertTrue(line != null && !line.equals("EOF"), "holder ended or hung before " + wanted + ": " + seen);
            seen.append(line).append('\n');
            if (line.equals(wanted)) {
                return;
            }
        }
    }

    /**
     * The journal dir {@code name} of a holder crashed inside a close (cgroups, guardian on), its processes
     * {@code marked}, none of them alive.
     */
    private Path crashedJournal(String name, MarkedProcesses marked) throws Exception {
        Path journal = tmp.resolve(name);
        try {
            assertTrue(crashOnce("cgroup", "guardian-on", marked, journal) >= 0, "nothing alive after the crash");
        } finally {
            marked.killAll();
        }
        return journal;
    }

    /** What {@link #crashOnce} found alive 1 s after its SIGKILL (or later, if its own checks took longer). */
    private List<ProcessTree.Proc> aliveOneSecondLater = List.of();

    /** One crash: the time from the SIGKILL until the last marked process was gone, in nanos (-1: some outlived 3 s). */
    private long crashOnce(String containment, String guardian, MarkedProcesses marked, Path journal) throws Exception {
        Process holder = startHolder(containment, guardian, marked, journal);
        try {
            awaitLine(holder, "CLOSING");
            assertEquals(6, marked.awaitNamed("sleep", 6, 10_000), "every child and grandchild runs before the crash: " + marked.alive());
            awaitJournaled(journal, CloseStarted.class, 10_000); // the crash comes inside a close, however slow the machine
            Thread.sleep(100); // in the close's reap stage: the broadcast SIGTERM was ignored
            if (killGuardianFirst) {
                killGuardianAndAwaitItsSuccessor(holder);
            }
            holder.destroyForcibly();
            long killedAt = System.nanoTime();
            assertTrue(holder.waitFor(10, TimeUnit.SECONDS));
            List<ProcessTree.Proc> left = marked.awaitNone(3000);
            long gone = left.isEmpty() ? System.nanoTime() - killedAt : -1;
            // the claim itself: 1 s after the SIGKILL, no process of any pool is alive (checked in /proc)
            long oneSecond = killedAt + TimeUnit.SECONDS.toNanos(1) - System.nanoTime();
            if (oneSecond > 0) {
                TimeUnit.NANOSECONDS.sleep(oneSecond);
            }
            aliveOneSecondLater = marked.alive();
            return gone;
        } finally {
            holder.destroyForcibly();
            holder.waitFor(10, TimeUnit.SECONDS);
            // the holder's guardian writes its record beside the journal, then exits: before the temp dir goes
            ProcessTree.awaitNoneNaming(journal.toAbsolutePath().toString(), 15_000);
        }
    }

    /** Whether {@link #crashOnce} SIGKILLs the holder's guardian before the holder. */
    private boolean killGuardianFirst;

    /** SIGKILLs the holder's guardian and waits (at most 5 s) for a guardian of another pid to run in its place. */
    private static void killGuardianAndAwaitItsSuccessor(Process holder) throws InterruptedException {
        ProcessHandle first = guardianOf(holder);
        assertTrue(first != null, "the holder runs a guardian");
        first.destroyForcibly();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (ProcessHandle next = guardianOf(holder); next == null || next.pid() == first.pid(); next = guardianOf(holder)) {
            if (System.nanoTime() > deadline) {
                return; // the crash shows what its absence costs
            }
            Thread.sleep(20);
        }
        Thread.sleep(200); // the new guardian opens the holder's pidfd before it watches
    }

    private static ProcessHandle guardianOf(Process holder) {
        return holder.toHandle().children()
                .filter(h -> h.info().command().map(c -> c.endsWith("/" + dev.vigil.contain.Guardian.BINARY)).orElse(false))
                .findFirst().orElse(null);
    }

    /**
     * The guardian SIGKILLed mid-close (the OOM killer's pick, a kill meant for something else): another one starts,
     * and the orchestrator's crash that follows still ends every process of its pools. Before, nothing
     * noticed: the crash left the setsid grandchildren alive.
     */
    @Test
    void aGuardianKilledMidRunIsStartedAgainAndAnOrchestratorCrashStillEndsEveryPool() throws Exception {
        assumeTrue(PoolContainmentTest.cgroupsUsable(), "needs a writable cgroup v2 mount");
        MarkedProcesses marked = new MarkedProcesses();
        Path journal = tmp.resolve("guardian-killed");
        killGuardianFirst = true;
        try {
            long t = crashOnce("cgroup", "guardian-on", marked, journal);
            assertTrue(t >= 0, "processes outlived the crash after the guardian was killed: " + marked.alive());
        } finally {
            marked.killAll();
        }
    }

    /** Waits until the live holder's journal holds an event of {@code kind}; fails after {@code millis}. */
    private static void awaitJournaled(Path journal, Class<? extends JournalEvent> kind, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline) {
            try {
                if (Files.isDirectory(journal) && JournalChecks.readAll(journal).stream().anyMatch(kind::isInstance)) {
                    return;
                }
            } catch (dev.vigil.journal.JournalException beingWritten) {
                // a cycle file being created reads as unfinished for a moment: look again
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no " + kind.getSimpleName() + " in " + journal + " within " + millis + " ms");
    }

    /**
     * {@code runs} crashes. The guardian's own part (death seen -> container empty, from its record) must be
     * within 1 s; the whole time from our SIGKILL (including the kernel tearing the JVM down and this test's
     * /proc scans, on a loaded machine) within 2 s.
     */
    private void crashes(int runs, String containment) throws Exception {
        List<Long> times = new ArrayList<>();
        List<Long> guardianTimes = new ArrayList<>();
        for (int run = 0; run < runs; run++) {
            MarkedProcesses marked = new MarkedProcesses();
            Path journal = tmp.resolve(containment + "-" + run);
            try {
                long t = crashOnce(containment, "guardian-on", marked, journal);
                assertTrue(t >= 0, "run " + run + ": processes alive 3 s after the crash: " + marked.alive());
                assertEquals(List.of(), aliveOneSecondLater, "run " + run + ": alive 1 s after the crash");
                times.add(t);
                String prefix = containment + "-" + run + "-guardian-";
                try (var records = Files.list(tmp)) {
                    Path record = records.filter(p -> p.getFileName().toString().startsWith(prefix))
                            .findFirst().orElseThrow(() -> new AssertionError("no guardian record beside " + journal));
                    GuardianRecord r = GuardianRecord.read(record);
                    assertTrue(r.empty(), r.toString());
                    guardianTimes.add(r.emptyAfterNanos());
                    assertEquals(containment, r.mode());
                    assertTrue(r.killed().size() >= 6, "it killed the children and their forks: " + r);
                }
            } finally {
                marked.killAll();
            }
        }
        List<Long> sorted = new ArrayList<>(times);
        Collections.sort(sorted);
        String distribution = String.format(Locale.ROOT, "%s: %d crashes, time from SIGKILL to the last process gone:"
                + " min %.1f ms, median %.1f ms, max %.1f ms, all %s", containment, runs, sorted.get(0) / 1e6,
                sorted.get(sorted.size() / 2) / 1e6, sorted.get(sorted.size() - 1) / 1e6,
                times.stream().map(t -> String.format(Locale.ROOT, "%.0f", t / 1e6)).toList());
        distribution += "; guardian (death seen -> empty): " + guardianTimes.stream()
                .map(t -> String.format(Locale.ROOT, "%.1f", t / 1e6)).toList() + " ms";
        System.out.println(distribution);
        for (long t : guardianTimes) {
            assertTrue(t <= TimeUnit.SECONDS.toNanos(1), "guardian over 1 s: " + distribution);
        }
        for (long t : times) {
            assertTrue(t <= TimeUnit.SECONDS.toNanos(2), "over 2 s from the SIGKILL: " + distribution);
        }
    }

    @Test
    void aCrashedOrchestratorsGuardianKillsEveryPoolCgroupWithinOneSecond() throws Exception {
        assumeTrue(PoolContainmentTest.cgroupsUsable(), "needs a writable cgroup v2 mount");
        crashes(2, "cgroup");
    }

    @Test
    @Tag("slow")
    void aCrashedOrchestratorsGuardianKillsEveryProcessGroupInTheFallback() throws Exception {
        crashes(3, "pgroup");
    }

    @Test
    @Tag("slow")
    void twentyCrashesLeaveNothingAliveOneSecondLater() throws Exception {
        assumeTrue(PoolContainmentTest.cgroupsUsable(), "needs a writable cgroup v2 mount");
        crashes(20, "cgroup");
    }

    @Test
    void aRestartOnTheSameSpecAfterTheCrashRecoversAndStarts() throws Exception {
        assumeTrue(PoolContainmentTest.cgroupsUsable(), "needs a writable cgroup v2 mount");
        MarkedProcesses marked = new MarkedProcesses();
        Path journal = crashedJournal("restart", marked);
        // The container held the shells' forks all through the close, so no C child's mailbox was freed at its reap.
        assertEquals(0, JournalChecks.readAll(journal).stream().filter(e -> e instanceof MailboxReleased).count(),
                "mailboxes freed before the crash");
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).containment(ContainmentSettings.cgroups(null))
                .closeSettings(CloseSettings.defaults()).open()) {
            CrashRecovery.Outcome r = o.recovery().orElseThrow(() -> new AssertionError("nothing recovered"));
            assertEquals(1, r.closesEnded(), r.describe());
            assertEquals(2, r.mailboxesFreed(), r.describe());
            assertTrue(r.everythingGone(), r.describe());
            assertTrue(r.guardianRecord().contains("empty after"), r.describe());
            // the same pool id and mailboxes as the crashed run: refused before the recovery existed
            Pool again = Pool.builder(o, "forking").group("chips", 2, ChildSpec.cDemo()).start();
            assertTrue(again.closeWithReport().isClean());
            o.journal().writer().flush();
            List<JournalEvent> events = JournalChecks.readAll(journal);
            assertEquals(1, events.stream().filter(e -> e instanceof OrchestratorDeathFound).count());
            assertEquals(1, events.stream().filter(e -> e instanceof CloseEndedByOrchestratorDeath).count());
            assertEquals(2, events.stream().filter(e -> e instanceof MailboxRecovered).count());
        }
    }

    /**
     * A crash, then damage in the journal (bytes overwritten among its last events): the restart ends the
     * dead orchestrator's processes, then cannot end its closes in a journal read only up to the damage. It refuses in
     * one line naming the file and the damage and saying how to go on, and every restart says the same (before, the
     * line named the damage only, and a user restarted into it again and again).
     */
    @Test
    void aRestartOnADamagedJournalAfterACrashEndsTheDeadOnesProcessesAndSaysHowToGoOn() throws Exception {
        assumeTrue(PoolContainmentTest.cgroupsUsable(), "needs a writable cgroup v2 mount");
        MarkedProcesses marked = new MarkedProcesses();
        Path journal = crashedJournal("damaged", marked);
        Path cycle;
        try (var files = java.nio.file.Files.list(journal)) {
            cycle = files.filter(f -> f.getFileName().toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
        byte[] bytes = java.nio.file.Files.readAllBytes(cycle);
        int written = bytes.length;
        while (written > 0 && bytes[written - 1] == 0) {
            written--;
        }
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(cycle, java.nio.file.StandardOpenOption.WRITE)) {
            byte[] junk = new byte[64];
            java.util.Arrays.fill(junk, (byte) 0xff);
            ch.write(java.nio.ByteBuffer.wrap(junk), written - 200); // inside the last events, past the header and index
        }
        for (int restart = 0; restart < 2; restart++) {
            RuntimeException refused = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
                    () -> Orchestrator.builder().journalDir(journal).containment(ContainmentSettings.cgroups(null))
                            .closeSettings(CloseSettings.defaults()).open().close());
            String line = refused.getMessage();
            assertTrue(line.contains(cycle.getFileName().toString()) && line.contains("checksum")
                    && line.contains("move the journal dir aside") && !line.contains("\n"), line);
        }
        assertTrue(marked.alive().isEmpty(), "nothing of the crashed run alive: " + marked.alive());
    }

    @Test
    void aSecondOrchestratorOnALiveOnesJournalDirRefusesAtOnceNamingTheOwner() throws Exception {
        MarkedProcesses marked = new MarkedProcesses();
        Path journal = tmp.resolve("owned");
        Process holder = startHolder("pgroup", "guardian-on", marked, journal);
        try {
            awaitLine(holder, "CLOSING");
            long t0 = System.nanoTime();
            JournalDirInUseException refused = assertThrows(JournalDirInUseException.class,
                    () -> Orchestrator.builder().journalDir(journal).open());
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "refused at once");
            assertEquals(holder.pid(), refused.ownerPid(), refused.getMessage());
            assertTrue(refused.getMessage().contains("is in use by orchestrator pid=" + holder.pid()), refused.getMessage());
            assertFalse(refused.getMessage().contains("\n"));
            // the same directory through a link to it, and through a link to the folder above it: the same owner
            Path link = java.nio.file.Files.createSymbolicLink(tmp.resolve("owned-link"), journal);
            Path parentLink = java.nio.file.Files.createSymbolicLink(tmp.resolve("parent-link"), tmp);
            for (Path other : List.of(link, parentLink.resolve("owned"))) {
                JournalDirInUseException viaLink = assertThrows(JournalDirInUseException.class,
                        () -> Orchestrator.builder().journalDir(other).open(), "a second orchestrator on " + other);
                assertEquals(holder.pid(), viaLink.ownerPid(), viaLink.getMessage());
                assertEquals(holder.pid(), dev.vigil.journal.JournalOwner.livePid(other), "the replay's owner of " + other);
            }
        } finally {
            holder.destroyForcibly();
            holder.waitFor(10, TimeUnit.SECONDS);
            marked.awaitNone(3000);
            marked.killAll();
            ProcessTree.awaitNoneNaming(journal.toAbsolutePath().toString(), 15_000); // the holder's guardian writes its record, then exits
        }
    }

    @Test
    void withoutTheGuardianTheGrandchildrenOutliveACrashedOrchestrator() throws Exception {
        assumeTrue(PoolContainmentTest.cgroupsUsable(), "needs a writable cgroup v2 mount");
        MarkedProcesses marked = new MarkedProcesses();
        Path journal = tmp.resolve("unguarded");
        try {
            long t = crashOnce("cgroup", "guardian-off", marked, journal);
            assertEquals(-1, t, "the broken variant must leak: PDEATHSIG reaches only the direct children");
            assertFalse(marked.alive().isEmpty());
        } finally {
            marked.killAll();
        }
        // With no guardian nobody removed the dead orchestrator's cgroup tree (every run of this test left one behind
        // in the host's cgroup tree): the next owner of the journal dir does, with no guardian record to go on.
        java.util.regex.Matcher root = java.util.regex.Pattern.compile("\"cgroupRoot\":\"([^\"]+)\"")
                .matcher(Files.readString(journal.resolveSibling(journal.getFileName() + "-owner.json")));
        assertTrue(root.find(), "the crashed owner's record names its cgroup");
        Path container = Path.of(root.group(1));
        assertTrue(Files.isDirectory(container), "the crash left its cgroup: " + container);
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).containment(ContainmentSettings.cgroups(null))
                .closeSettings(CloseSettings.defaults()).open()) {
            CrashRecovery.Outcome r = o.recovery().orElseThrow(() -> new AssertionError("nothing recovered"));
            assertTrue(r.everythingGone(), r.describe());
        }
        assertFalse(Files.exists(container), "the recovery removed the dead orchestrator's cgroup " + container);
    }
}
