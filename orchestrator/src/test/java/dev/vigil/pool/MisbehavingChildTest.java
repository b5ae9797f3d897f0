package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.RingOverrun;
import dev.vigil.mailbox.MailboxDescriptor;

/**
 * A child that writes garbage into its own mailbox record (docs/MAILBOX.md lets it map the record read-write) hurts
 * itself, never the orchestrator: every command to the others, and the close, stay bounded.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MisbehavingChildTest {
    /** A 0.7 s window, then SIGTERM, SIGKILL after 0.3 s: the C child of the detached and garbled tests. */
    private static final CloseSettings WINDOW_THEN_TERM = CloseSettings.builder().window(Duration.ofMillis(700))
            .escalation(dev.vigil.close.decision.EscalationPolicy.TERM_THEN_KILL).grace(Duration.ofMillis(300)).build();

    @TempDir
    Path tmp;

    /**
     * RING_HEAD forged to 2^62 (what a child's stray store, or a hostile one, can do: the word is the child's to
     * fetch-and-add). The ring drainer walked from its position to that head one ticket at a time, holding the
     * mailbox's cursor lock: the next command waited on that lock forever, and so did the close and Ctrl-C.
     */
    @Test
    void aChildThatForgesItsRingHeadNeitherHangsItsCommandsNorItsClose() throws Exception {
        Path journal = tmp.resolve("journal");
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(o, "vandal").group("c", 2, ChildSpec.cDemo())
                    .closeSettings(CloseSettings.builder().window(Duration.ofSeconds(2)).build()).start();
            assertEquals(1, pool.control("c", 0, 1, 1, Duration.ofSeconds(5)).value());
            PoolChild vandal = pool.child("c", 0);
            try (FileChannel ch = FileChannel.open(vandal.mailbox().mapFile(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                MappedByteBuffer words = ch.map(FileChannel.MapMode.READ_WRITE, vandal.mailboxOffset(),
                        MailboxDescriptor.RING_HEAD_OFFSET + Long.BYTES);
                words.order(ByteOrder.nativeOrder()).putLong(MailboxDescriptor.RING_HEAD_OFFSET, 1L << 62);
                words.force();
            }
            CloseReport report = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                for (int i = 2; i < 5; i++) {
                    assertEquals(i, pool.control("c", 0, 1, i, Duration.ofSeconds(5)).value());
                    assertEquals(i, pool.control("c", 1, 1, i, Duration.ofSeconds(5)).value());
                }
                return pool.closeWithReport();
            }, "a forged ring head held the command path or the close");
            assertTrue(report.survivors().isEmpty(), report.toJson());
        }
        List<JournalEvent> events = JournalChecks.readAll(journal);
        assertTrue(events.stream().anyMatch(e -> e instanceof RingOverrun r && r.group().equals("c") && r.index() == 0),
                "the vandal's lost ring records are journaled as an overrun");
        assertTrue(JournalChecks.mailboxesReleasedOnlyAfterReap(events).isEmpty());
    }
    /**
     * The map file cut to 0 bytes while mapped (what a child that opens it with O_TRUNC, Python's {@code open(path,
     * "w")}, does to every pool): each access to it is a SIGBUS. Before, the close aborted on the orchestrator's
     * InternalError ("memory fault on a mapped journal file"), the orchestrator's shutdown close too, and no reap was
     * journaled. Now its length is restored before the close (the cut words read as 0), which reaps both children.
     */
    @Test
    void aMailboxFileCutShortWhileMappedStillLetsThePoolCloseAndReapEveryChild() throws Exception {
        Path journal = tmp.resolve("journal");
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(o, "cut").group("c", 2, ChildSpec.cDemo())
                    .closeSettings(CloseSettings.builder().window(Duration.ofSeconds(2)).build()).start();
            assertEquals(1, pool.control("c", 0, 1, 1, Duration.ofSeconds(5)).value());
            Path mapFile = pool.child("c", 0).mailbox().mapFile();
            try (FileChannel ch = FileChannel.open(mapFile, StandardOpenOption.WRITE)) {
                ch.truncate(0);
            }
            CloseReport report = assertTimeoutPreemptively(Duration.ofSeconds(30), pool::closeWithReport,
                    "the close of a pool whose mailbox file was cut did not end");
            assertEquals(2, report.children().size(), report.toJson());
            assertTrue(report.survivors().isEmpty(), report.toJson());
        }
        List<JournalEvent> events = JournalChecks.readAll(journal);
        assertEquals(2, events.stream().filter(e -> e instanceof dev.vigil.journal.ChildReaped).count(), "reaps journaled");
        assertTrue(events.stream().noneMatch(e -> e instanceof dev.vigil.journal.CloseAborted), events.toString());
    }
    /**
     * The map file cut to 0 bytes during a pool's start, while it waits for its children's INIT_READY (children that
     * never report it, so the wait is still on). Before, the memory fault left the start past its rollback: the run
     * said "memory fault on a mapped journal file" (the wrong file), and the spawned children were never closed in the
     * journal (audit POOL_NOT_CLOSED); or the start waited out its whole timeout. Now the start fails at once in one
     * line naming the map file, its length restored, and its rollback close reaps every child, journaled.
     */
    @Test
    void aMailboxFileCutDuringAStartFailsThatStartInOneLineAndRollsItBack() throws Exception {
        Path journal = tmp.resolve("journal");
        MarkedProcesses marked = new MarkedProcesses();
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).closeSettings(CloseSettings.defaults()).open()) {
            Pool.Builder b = Pool.builder(o, "cut-at-start").startTimeout(Duration.ofSeconds(25))
                    .group("waiting", 3, ChildSpec.mailboxExec("sleep", "600")
                            .withEnv(MarkedProcesses.VARIABLE, marked.variableValue()))
                    .closeSettings(CloseSettings.builder().window(Duration.ofMillis(500)).grace(Duration.ofMillis(200))
                            .build());
            java.util.concurrent.CompletableFuture<Pool> starting = java.util.concurrent.CompletableFuture.supplyAsync(b::start);
            assertEquals(3, marked.awaitNamed("sleep", 3, 10_000), marked.alive().toString());
            Thread.sleep(100); // the start polls their INIT_READY
            long t0 = System.nanoTime();
            try (FileChannel ch = FileChannel.open(o.mailboxes().mapFile(), StandardOpenOption.WRITE)) {
                ch.truncate(0);
            }
            java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> starting.get(20, TimeUnit.SECONDS));
            long tookMillis = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(failed.getCause() instanceof PoolStartException, () -> stackOf(failed.getCause()));
            String message = failed.getCause().getMessage();
            // one line says it all (the rollback's report follows it, as after any failed start); which thread met the
            // fault first (this start, or the ring drainer, which restores the length too) decides its wording
            String first = message.lines().findFirst().orElseThrow();
            assertTrue(first.startsWith("pool=cut-at-start start failed: ") && first.contains("mailbox file="
                    + o.mailboxes().mapFile()) && first.contains("cut") && first.contains(" rollback=closeId:"), message);
            assertTrue(tookMillis < 10_000, "the start failed " + tookMillis + " ms after the cut: " + message);
            assertTrue(marked.awaitNone(2_000).isEmpty(), marked.alive().toString());
        } finally {
            marked.killAll();
        }
        List<JournalEvent> events = JournalChecks.readAll(journal);
        assertEquals(3, events.stream().filter(e -> e instanceof dev.vigil.journal.ChildReaped).count(), events.toString());
        assertTrue(events.stream().anyMatch(e -> e instanceof dev.vigil.journal.CloseCompleted), events.toString());
    }

    /**
     * The map file cut to 0 bytes in the middle of a close (its children acked and are in their 1.5 s clean-up): the
     * close's next look at a mailbox word is a memory fault. Before, that close aborted (CloseAborted, the caller got
     * "close failed: mailbox file=... was cut"), its reaps after the fault were never journaled and only a second close
     * ended the children. Now the length is restored and the same close goes on: it reaps (or escalates) every child,
     * reports each, and the cut is named on stderr.
     *
     * <p>Two CI hangs came from here. A late fault after the close ended (47f7148). And a fault raised as the reap's
     * waitpid returned (HotSpot raises a memory fault at the thread's next return from native code): the status it
     * consumed was gone, the retry's ECHILD read as a lost child, and the close waited for an exit that could never
     * come. The reap now peeks first (SpawnerTest#aFaultRaisedAsTheReapReturnsDoesNotLoseTheStatus), and a lost child
     * ends its close at the budget (CloseMachineTest#aChildWhoseExitStatusWasLost...).
     * A hang here fails the test after 90 s (on a thread of its own: a close once started ignores interrupts).
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 90, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void aMailboxFileCutInTheMiddleOfACloseDoesNotAbortThatClose() throws Exception {
        Path journal = tmp.resolve("journal");
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(o, "cut").group("c", 2, ChildSpec.cDemo().withEnv("VIGIL_DEMO_TEARDOWN_MILLIS", "1500"))
                    .closeSettings(CloseSettings.builder().window(Duration.ofSeconds(1)).grace(Duration.ofMillis(300))
                            .build()).start();
            Path mapFile = pool.child("c", 0).mailbox().mapFile();
            java.util.concurrent.CompletableFuture<CloseReport> closing =
                    java.util.concurrent.CompletableFuture.supplyAsync(pool::closeWithReport);
            // the close's broadcast is out and both children acked: they are in their 1.5 s clean-up (a fixed 400 ms sleep
            // from the close's submission let a starved close start after the cut: a second close came)
            long ackBound = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while ((pool.child("c", 0).mailbox().ackNanos() == 0 || pool.child("c", 1).mailbox().ackNanos() == 0)
                    && System.nanoTime() < ackBound) {
                Thread.sleep(5);
            }
            assertTrue(pool.child("c", 0).mailbox().ackNanos() != 0 && pool.child("c", 1).mailbox().ackNanos() != 0,
                    "both children acked the close's shutdown within 20 s");
            // and the close has sampled the acks (every 20 ms): a cut before that reads the ack words as 0, and the close
            // rightly takes the children for never told (NOT_DELIVERED survivors at its window; a clean-clone CI run cut
            // at the acks themselves)
            Thread.sleep(300);
            assertTrue(!closing.isDone(), "the close ended before the cut");
            try (FileChannel ch = FileChannel.open(mapFile, StandardOpenOption.WRITE)) {
                ch.truncate(0);
            }
            CloseReport report = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> closing.get(),
                    "the close of a pool whose mailbox file was cut did not end");
            assertEquals(2, report.children().size(), report.toJson());
            assertTrue(report.survivors().isEmpty(), report.toJson());
        }
        List<JournalEvent> events = JournalChecks.readAll(journal);
        assertTrue(events.stream().noneMatch(e -> e instanceof dev.vigil.journal.CloseAborted), events.toString());
        assertEquals(1, events.stream().filter(e -> e instanceof dev.vigil.journal.CloseStarted).count(), "one close " + events);
        assertEquals(2, events.stream().filter(e -> e instanceof dev.vigil.journal.ChildReaped).count(), "reaps journaled");
    }

    /** The whole stack: where a raw error escaped is what a failure here must show. */
    private static String stackOf(Throwable t) {
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }

    /**
     * A C child (libvigil-child.a) that unmaps its mailbox inside a control handler and then waits, and one that execs
     * {@code sleep 600} in its place (same pid, every mapping gone). Neither can see its shutdown word. The close ends
     * within its window and grace, and names what happened: class DETACHED, {@code mailbox=unmapped} and the program
     * that runs now. Before, both read STUCK_IN_HANDLER ("a handler that neither returns nor polls cancellation").
     */
    @Test
    void aChildThatUnmapsItsMailboxOrExecsAnotherProgramIsClosedInItsBudgetAndNamedDetached() throws Exception {
        Path binary = detachingChild();
        Path journal = tmp.resolve("journal");
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(o, "detached").group("c", 2, ChildSpec.c(binary)).closeSettings(WINDOW_THEN_TERM).start();
            assertEquals(5, pool.control("c", 0, 1, 5, Duration.ofSeconds(5)).value());
            Path mapFile = pool.child("c", 0).mailbox().mapFile();
            int unmapper = pool.child("c", 0).pid();
            int execer = pool.child("c", 1).pid();
            pool.sendControl("c", 0, 10, 0);
            pool.sendControl("c", 1, 11, 0);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((maps(unmapper, mapFile) || !java.nio.file.Files.readSymbolicLink(Path.of("/proc/" + execer + "/exe"))
                    .getFileName().toString().equals("sleep")) && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            long t0 = System.nanoTime();
            CloseReport report = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> org.junit.jupiter.api.Assertions
                    .assertThrows(dev.vigil.close.CloseFailedException.class, pool::closeWithReport).report());
            long tookMillis = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(List.of(unmapper + " DETACHED", execer + " DETACHED"), report.failureClasses(), report.describeFailures());
            String failures = report.describeFailures();
            assertTrue(failures.contains("pid=" + unmapper + " group=c child=0 class=DETACHED") && failures.contains(
                    "mailbox=unmapped exe=" + binary) && failures.contains("mailbox=unmapped exe=") && failures.contains(
                    "/sleep") && failures.contains("cause: detached from its mailbox"), failures);
            // window 0.7 s + SIGTERM (both die of it) + the evidence hook's stack capture (<= 5 s)
            assertTrue(tookMillis < 8_000, "the close took " + tookMillis + " ms: " + failures);
        }
        List<JournalEvent> events = JournalChecks.readAll(journal);
        assertEquals(2, events.stream().filter(e -> e instanceof dev.vigil.journal.SurvivorDiagnosed d
                && d.diagnosis().equals("DETACHED") && d.evidence().contains("mailbox=unmapped")).count(), events.toString());
        assertEquals(2, events.stream().filter(e -> e instanceof dev.vigil.journal.ChildReaped).count(), "reaps journaled");
    }

    /**
     * A C child that writes 0xFF over its own mailbox words (state word to ring) and waits: the close ends in its window
     * and grace and names it GARBLED (state=UNKNOWN(255)). Before, the written-over ack word read as "acknowledged"
     * and the child was diagnosed WEDGED ("acknowledged shutdown, then stopped making progress").
     */
    @Test
    void aChildThatWritesOverItsMailboxWordsIsClosedInItsBudgetAndNamedGarbled() throws Exception {
        Path binary = detachingChild();
        Path journal = tmp.resolve("journal");
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(o, "garbled").group("c", 1, ChildSpec.c(binary)).closeSettings(WINDOW_THEN_TERM).start();
            int pid = pool.child("c", 0).pid();
            pool.sendControl("c", 0, 12, 0);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!java.nio.file.Files.readString(Path.of("/proc/" + pid + "/wchan")).contains("pause")
                    && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            CloseReport report = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> org.junit.jupiter.api.Assertions
                    .assertThrows(dev.vigil.close.CloseFailedException.class, pool::closeWithReport).report());
            assertEquals(List.of(pid + " GARBLED"), report.failureClasses(), report.describeFailures());
            assertTrue(report.describeFailures().contains("state=UNKNOWN(255)"), report.describeFailures());
        }
    }

    /** The C child of these tests, built with cc and libvigil-child.a. */
    private Path detachingChild() throws Exception {
        Path nativeDir = dev.vigil.spawn.SpawnerOptions.defaults().nativeDir();
        Path source = tmp.resolve("detaching_child.c");
        Path binary = tmp.resolve("detaching_child");
        try (var in = MisbehavingChildTest.class.getResourceAsStream("detaching_child.c")) {
            java.nio.file.Files.copy(in, source);
        }
        Process cc = new ProcessBuilder("cc", "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Werror", "-I",
                nativeDir.getParent().resolve("include").toString(), "-o", binary.toString(), source.toString(),
                nativeDir.resolve("libvigil-child.a").toString()).redirectErrorStream(true).start();
        assertTrue(cc.waitFor(30, TimeUnit.SECONDS), "cc did not finish");
        String ccOutput = new String(cc.getInputStream().readAllBytes());
        assertEquals(0, cc.exitValue(), ccOutput);
        return binary;
    }

    /** Whether any line of /proc/PID/maps names {@code file}. */
    private static boolean maps(int pid, Path file) throws java.io.IOException {
        try (var lines = java.nio.file.Files.lines(Path.of("/proc/" + pid + "/maps"))) {
            return lines.anyMatch(l -> l.endsWith(" " + file));
        }
    }
}
