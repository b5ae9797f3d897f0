package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.CloseFailedException;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.JournalScenarios;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.CloseReport.ChildOutcome;
import dev.vigil.journal.AdmissionRejected;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.CommandFailed;
import dev.vigil.journal.InFlightSettled;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MailboxReleased;
import dev.vigil.journal.SpawnFailed;
import dev.vigil.spawn.Redirect;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Pools of real processes closed through the real pipeline; after each test no process and no early release. */
@Timeout(90)
class PoolCloseTest {
    @TempDir
    Path tmp;
    private Orchestrator orchestrator;
    private Path journalDir;

    @BeforeEach
    void open() {
        journalDir = tmp.resolve("journal");
        orchestrator = Orchestrator.builder().journalDir(journalDir).closeSettings(CloseSettings.defaults()).open();
    }

    @AfterEach
    void nothingLeftBehind() throws Exception {
        try {
            List<ProcessTree.Proc> left = ProcessTree.awaitNoChildren(2000);
            assertTrue(left.isEmpty(), "children of the test JVM left (zombies or live): " + left);
            orchestrator.journal().writer().flush();
            List<JournalEvent> events = JournalChecks.readAll(journalDir);
            List<String> violations = JournalChecks.mailboxesReleasedOnlyAfterReap(events);
            assertTrue(violations.isEmpty(), violations.toString());
            for (JournalEvent e : events) {
                if (e instanceof CloseCompleted done) {
                    CloseReport r = CloseReport.fromJson(done.reportJson());
                    assertEquals(done.closeId(), r.closeId());
                    assertEquals(done.outcome(), r.outcome().name());
                    assertEquals(done.survivors(), r.survivors().size(), done.reportJson());
                    assertEquals(done.reaped() + done.survivors(), r.children().size(), done.reportJson());
                }
            }
        } finally {
            orchestrator.close();
        }
    }

    /**
     * A close that fails inside the engine (CloseAborted; here its evidence hook throws, as a memory fault on a cut
     * mailbox file did) leaves its children with the pool, and the pool's next close closes them anew. Before, the
     * failed close stayed the pool's close in progress: the next closeWithReport rethrew its failure (same closeId)
     * and closed nothing, and vigil run printed "close did not finish" twice for one close.
     */
    @Test
    void thePoolsNextCloseAfterAnAbortedCloseClosesItsChildrenAnew() throws Exception {
        Pool pool = Pool.builder(orchestrator, "aborted")
                .group("quick", 2, ChildSpec.cDemo())
                .group("stubborn", 1, ChildSpec.exec("sh", "-c", "trap '' TERM; exec tail -f /dev/null")) // no descendant
                .closeSettings(CloseSettings.builder().window(Duration.ofMillis(300)).grace(Duration.ofMillis(200))
                        .escalation(dev.vigil.close.decision.EscalationPolicy.TERM_THEN_KILL).build())
                .start();
        // a SIGTERM before the shell's trap would end it at once: the first close would not get to escalate
        dev.vigil.spawn.ProcFs.awaitIgnoring(pool.child("stubborn", 0).pid(), 15);
        orchestrator.closeEngine().beforeEscalation((poolId, closeId, survivors) -> {
            throw new IllegalStateException("evidence hook broke");
        });
        IllegalStateException aborted = assertThrows(IllegalStateException.class, pool::closeWithReport);
        assertTrue(aborted.getMessage().startsWith("pool=aborted closeId=") && aborted.getMessage().endsWith(
                "close failed: evidence hook broke"), aborted.getMessage());
        orchestrator.closeEngine().beforeEscalation(null);
        CloseFailedException second = assertThrows(CloseFailedException.class, pool::closeWithReport);
        assertFalse(aborted.getMessage().contains("closeId=" + second.report().closeId() + " "), "a close anew");
        assertEquals(1, second.report().children().size(), "the quick children were reaped by the aborted close only: "
                + second.report().toJson());
        assertTrue(pool.trackedChildren().isEmpty(), "the stubborn child was killed and reaped by the second close: "
                + second.report().toJson());
        Map<String, Long> releases = journal().stream().filter(e -> e instanceof dev.vigil.journal.MailboxReleased)
                .map(e -> ((dev.vigil.journal.MailboxReleased) e).group() + "/" + ((dev.vigil.journal.MailboxReleased) e).index())
                .collect(java.util.stream.Collectors.groupingBy(k -> k, java.util.stream.Collectors.counting()));
        assertEquals(Map.of("quick/0", 1L, "quick/1", 1L), releases, "each mailbox released once");
    }

    private List<JournalEvent> journal() {
        orchestrator.journal().writer().flush();
        return JournalChecks.readAll(journalDir);
    }

    @Test
    void cleanCloseOfJavaCAndPlainChildrenReportsExactExitCodesAndSignals() throws Exception {
        CloseReport r = JournalScenarios.clean(orchestrator, "p1");
        assertEquals(CloseReport.Outcome.CLEAN, r.outcome(), r.toJson());
        assertEquals(6, r.children().size());
        assertEquals(ChildOutcome.EXITED, r.child("java", 0).outcome());
        assertEquals(0, r.child("java", 0).exitCode());
        assertEquals(42, r.child("exit42", 0).exitCode());
        assertEquals(ChildOutcome.SIGNALED, r.child("plain", 0).outcome());
        assertEquals(15, r.child("plain", 0).signal());
        assertEquals(-1, r.child("plain", 0).exitCode());
        assertEquals(3, r.child("script", 0).exitCode());
        for (CloseReport.Child c : r.children()) {
            assertTrue(c.sinceBroadcastNanos() >= 0, c.toString());
            assertNull(c.diagnosis());
        }
        CloseCompleted done = journal().stream().filter(e -> e instanceof CloseCompleted).map(e -> (CloseCompleted) e)
                .findFirst().orElseThrow();
        assertEquals(r.toJson(), done.reportJson());
        assertEquals(CloseReport.fromJson(done.reportJson()), r);
    }

    @Test
    void slowButProgressingTeardownSucceedsUnderANoProgressWindow() {
        CloseReport r = JournalScenarios.progressing(orchestrator, "slow");
        assertEquals(CloseReport.Outcome.CLEAN, r.outcome(), r.toJson());
        assertTrue(r.durationNanos() >= TimeUnit.MILLISECONDS.toNanos(2500), "duration=" + r.durationNanos());
    }

    @Test
    void theSameTeardownUnderAFixedBudgetFailsAsFinalizingAndARetryReapsIt() throws Exception {
        List<CloseReport> r = JournalScenarios.finalizingThenRetry(orchestrator, "fixed");
        CloseReport failed = r.get(0);
        assertEquals(CloseReport.Outcome.FAILED, failed.outcome());
        for (CloseReport.Child c : failed.children()) {
            assertEquals(ChildOutcome.SURVIVOR, c.outcome());
            assertEquals("FINALIZING", c.diagnosis(), c.evidence());
        }
        assertEquals(CloseReport.Outcome.CLEAN, r.get(1).outcome(), r.get(1).toJson());
        assertTrue(r.get(1).closeId() != failed.closeId());
    }

    @Test
    void aLeakedChildStuckInAControlHandlerKeepsItsMailboxAndARetryReapsIt() throws Exception {
        List<CloseReport> r = JournalScenarios.notObservedLeakedThenRetried(orchestrator, "leak");
        CloseReport.Child stuck = r.get(0).child("gated", 0);
        assertEquals(ChildOutcome.SURVIVOR, stuck.outcome());
        assertEquals("STUCK_IN_HANDLER", stuck.diagnosis());
        assertTrue(stuck.evidence().contains("class=STUCK_IN_HANDLER state=CONTROL_REQUEST shutdown=set ack=none heartbeat_age="),
                stuck.evidence());
        assertEquals(ChildOutcome.EXITED, r.get(0).child("chips", 0).outcome());
        assertEquals(CloseReport.Outcome.CLEAN, r.get(1).outcome());
        assertEquals(List.of("gated"), r.get(1).children().stream().map(CloseReport.Child::group).toList());
        List<JournalEvent> events = journal();
        assertTrue(events.stream().anyMatch(e -> e instanceof InFlightSettled s && s.operation().equals("control")
                && s.outcome().equals("ABANDONED")), "the pending control command is journaled as abandoned");
    }

    @Test
    void termThenKillEndsAChildStuckInAControlHandlerAndNamesTheSignal() throws Exception {
        CloseReport r = JournalScenarios.notObservedEscalated(orchestrator, "kill");
        CloseReport.Child c = r.child("gated", 0);
        assertEquals(ChildOutcome.KILLED_BY_ESCALATION, c.outcome());
        assertTrue(c.signal() == 15 || c.signal() == 9, "signal=" + c.signal());
        assertEquals("STUCK_IN_HANDLER", c.diagnosis());
        assertTrue(c.evidence().contains("state=CONTROL_REQUEST"), c.evidence());
        // the control it sat in fails naming the exit the close reaped (the reason is built only for such a command)
        String failed = "child exited: pid=" + c.pid() + " group=gated child=0 signal=" + c.signal();
        assertTrue(journal().stream().anyMatch(e -> e instanceof CommandFailed f && f.reason().equals(failed)),
                "no CommandFailed with reason=" + failed);
    }

    /**
     * A plain executable stopped when its close begins gets SIGCONT after its stop signal, as systemd sends it, and so
     * exits on that signal at once. Before, the signal stayed pending while it was stopped: the close waited out its
     * window and grace, killed it and failed, class STOPPED (bin/vigil session: a self-stopped sh, 1.34 s).
     */
    @Test
    void aStoppedPlainExecutableIsContinuedAfterItsStopSignalAndExitsOnIt() throws Exception {
        Pool p = Pool.builder(orchestrator, "stopped-exec").closeSettings(CloseSettings.builder()
                .window(Duration.ofSeconds(5)).grace(Duration.ofSeconds(5)).escalation(dev.vigil.close.decision.EscalationPolicy.TERM_THEN_KILL)
                .build()).group("plain", 1, ChildSpec.exec("sleep", "600")).start();
        int pid = p.child("plain", 0).pid();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.readString(Path.of("/proc", Integer.toString(pid), "comm")).trim().equals("sleep")) {
            assertTrue(System.nanoTime() < deadline, "never exec'd sleep");
            Thread.sleep(5);
        }
        p.child("plain", 0).process().signal(jnr.constants.platform.Signal.SIGSTOP.intValue());
        while (!Files.readString(Path.of("/proc", Integer.toString(pid), "stat")).replaceFirst(".*\\) ", "").startsWith("T")) {
            assertTrue(System.nanoTime() < deadline, "never stopped");
            Thread.sleep(5);
        }
        long t0 = System.nanoTime();
        CloseReport r = p.closeWithReport();
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(CloseReport.Outcome.CLEAN, r.outcome(), r.toJson());
        assertEquals(15, r.child("plain", 0).signal(), r.toJson());
        assertTrue(millis < 4_000, "took " + millis + " ms: waited for its window");
    }

    @Test
    void aStoppedChildIsDiagnosedStopped() throws Exception {
        CloseReport r = JournalScenarios.stopped(orchestrator, "stop");
        assertEquals(ChildOutcome.EXITED, r.child("chips", 0).outcome());
        CloseReport.Child c = r.child("chips", 1);
        assertEquals("STOPPED", c.diagnosis(), c.evidence());
        assertTrue(c.evidence().contains("proc=T"), c.evidence());
        assertEquals(ChildOutcome.KILLED_BY_ESCALATION, c.outcome());
        assertEquals(9, c.signal());
    }

    @Test
    void aLegacyPoolHitByTheRaceIsNotDeliveredAndNamesTheOverwritingState() throws Exception {
        CloseReport r = JournalScenarios.notDeliveredLegacy(orchestrator, "legacy");
        CloseReport.Child c = r.child("gated", 0);
        assertEquals("NOT_DELIVERED", c.diagnosis(), c.evidence());
        assertTrue(c.evidence().contains("state=CONTROL_DONE shutdown=overwritten writer=CHILD"), c.evidence());
    }

    @Test
    void aChildThatAcksAndStopsBeatingIsWedged() throws Exception {
        CloseReport r = JournalScenarios.wedged(orchestrator, "wedged");
        assertEquals("WEDGED", r.child("mute", 0).diagnosis(), r.child("mute", 0).evidence());
    }

    @Test
    void eightPoolsOfFourClosingAtOnceAreAllReapedWithoutFalseSurvivors() throws Exception {
        List<CloseReport> reports = JournalScenarios.concurrent(orchestrator, "many", 8, 4);
        for (CloseReport r : reports) {
            assertEquals(CloseReport.Outcome.CLEAN, r.outcome(), r.toJson());
            assertEquals(4, r.children().size());
        }
        int overlap = journal().stream().filter(e -> e instanceof CloseStarted).mapToInt(e -> ((CloseStarted) e)
                .overlappingCloses()).max().orElse(0);
        assertTrue(overlap >= 2, "overlap=" + overlap);
    }

    /**
     * The orchestrator runs on a fixed set of threads, whatever the number of pools and closes (docs/CLOSE.md, "The
     * close engine"): one close engine, one journal appender, one reaper, one ring drainer, the JVM's spawner threads,
     * and, started on first need, the supervisor (restarts) and the stack capture's two workers (escalations).
     */
    @Test
    void theOrchestratorRunsOnAFixedSetOfThreadsWhateverThePoolsAndCloses() throws Exception {
        java.util.Map<String, Integer> one = threadsDuring(() -> JournalScenarios.concurrent(orchestrator, "one", 1, 1));
        java.util.Map<String, Integer> many = threadsDuring(() -> JournalScenarios.concurrent(orchestrator, "many", 8, 4));
        assertEquals(1, many.getOrDefault("vigil-close-engine-N", 0), "one close engine thread: " + many);
        assertTrue(many.keySet().stream().allMatch(FIXED_THREADS::contains), "only the fixed threads: " + many);
        int oneTotal = one.values().stream().mapToInt(Integer::intValue).sum();
        int manyTotal = many.values().stream().mapToInt(Integer::intValue).sum();
        assertTrue(manyTotal <= oneTotal, "8 pools of 4 closing at once used " + many + ", 1 pool of 1 " + one);
    }

    /** The orchestrator's long-lived threads by name (a number at the end as N); short-lived start-up ones aside. */
    private static final java.util.Set<String> FIXED_THREADS = java.util.Set.of("vigil-close-engine-N",
            "vigil-journal-appender-N", "vigil-journal-pages-N", "vigil-reaper-pidfd", "vigil-ring-drainer", "vigil-spawner", "vigil-spawner-N",
            "vigil-supervisor", "vigil-stack-capture");
    private static final java.util.Set<String> START_UP_THREADS = java.util.Set.of("vigil-report-warm-up",
            "vigil-preload", "vigil-open-mailboxes");

    /** The most vigil threads of each name seen at once while {@code work} ran (sampled every millisecond). */
    private static java.util.Map<String, Integer> threadsDuring(java.util.concurrent.Callable<?> work) throws Exception {
        java.util.Map<String, Integer> most = new java.util.TreeMap<>();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread sampler = new Thread(() -> {
            while (!done.get()) {
                java.util.Map<String, Integer> now = new java.util.HashMap<>();
                for (Thread t : Thread.getAllStackTraces().keySet()) {
                    String name = t.getName().replaceAll("-\\d+$", "-N");
                    if (name.startsWith("vigil-") && !START_UP_THREADS.contains(name)) {
                        now.merge(name, 1, Integer::sum);
                    }
                }
                synchronized (most) {
                    now.forEach((k, v) -> most.merge(k, v, Math::max));
                }
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
        }, "test-thread-sampler");
        sampler.start();
        try {
            work.call();
        } finally {
            done.set(true);
            sampler.join();
        }
        synchronized (most) {
            return new java.util.TreeMap<>(most);
        }
    }

    @Test
    void mailboxExecutablesPlainStopSignalsAndAddedChildrenCloseCleanly() {
        Path demo = orchestrator.nativeDir().resolve(ChildSpec.DEMO_CHILD);
        Pool p = Pool.builder(orchestrator, "kinds").childOutput(Redirect.DISCARD)
                .group("speaker", 1, ChildSpec.mailboxExec(demo.toString()))
                .group("plain", 1, ChildSpec.exec("sleep", "60").withStopSignal(2))
                .start();
        assertEquals(11, p.control("speaker", 0, DemoHandler.OP_ECHO, 11, Duration.ofSeconds(5)).value());
        PoolChild added = p.addChild("speaker");
        assertEquals(1, added.index());
        assertEquals(12, p.runTask("speaker", 1, DemoHandler.OP_ECHO, 12, Duration.ofSeconds(5)).value());
        assertThrows(IllegalArgumentException.class, () -> p.control("plain", 0, DemoHandler.OP_ECHO, 1, Duration.ofSeconds(1)));
        CloseReport r = p.closeWithReport();
        assertEquals("MAILBOX_EXEC", r.child("speaker", 1).kind());
        assertEquals(ChildOutcome.EXITED, r.child("speaker", 1).outcome());
        assertEquals(ChildOutcome.SIGNALED, r.child("plain", 0).outcome());
        assertEquals(2, r.child("plain", 0).signal());
        assertTrue(added.mailboxReleased());
        assertTrue(journal().stream().anyMatch(e -> e instanceof dev.vigil.journal.ShutdownPublished s
                && s.group().equals("plain") && s.channel().equals("SIGNAL:2")));
    }

    @Test
    void closingTheOrchestratorClosesPoolsLeftOpenThroughTheJournaledPipeline() throws Exception {
        Path dir = tmp.resolve("other-journal");
        Orchestrator other = Orchestrator.builder().journalDir(dir).closeSettings(CloseSettings.defaults()).open();
        Pool forgotten = Pool.builder(other, "forgotten").childOutput(Redirect.DISCARD)
                .group("chips", 2, ChildSpec.cDemo()).group("plain", 1, ChildSpec.exec("sleep", "60")).start();
        Pool leaked = Pool.builder(other, "leaked").childOutput(Redirect.DISCARD)
                .closeSettings(CloseSettings.builder().window(Duration.ofMillis(300)).build())
                .group("gated", 1, ChildSpec.cDemo().withEnv(DemoBehaviour.GATE, "1")).start();
        leaked.sendControl("gated", 0, DemoHandler.OP_ECHO, 1);
        JournalScenarios.awaitInsideHandler(leaked.child("gated", 0));
        assertThrows(CloseFailedException.class, leaked::close);
        other.close();
        other.close(); // idempotent
        assertTrue(forgotten.children().stream().allMatch(c -> c.exit().isDone() && c.mailboxReleased() == c.hasMailbox()));
        List<JournalEvent> events = JournalChecks.readAll(dir);
        List<CloseReport> reports = events.stream().filter(e -> e instanceof CloseCompleted).map(e -> CloseReport.fromJson(
                ((CloseCompleted) e).reportJson())).toList();
        assertEquals(3, reports.size(), reports.toString());
        assertEquals(CloseReport.Outcome.CLEAN, reports.stream().filter(r -> r.poolId().equals("forgotten")).findFirst()
                .orElseThrow().outcome());
        CloseReport last = reports.stream().filter(r -> r.poolId().equals("leaked")).reduce((a, b) -> b).orElseThrow();
        assertEquals(ChildOutcome.KILLED_BY_ESCALATION, last.child("gated", 0).outcome(), last.toJson());
    }

    @Test
    void theRecordsOfTheMailboxesACloseReleasedLeaveTheMapOnceNoCloseRuns() throws Exception {
        Pool pool = Pool.builder(orchestrator, "records").childOutput(Redirect.DISCARD).group("chips", 3, ChildSpec.cDemo())
                .start();
        assertEquals(CloseReport.Outcome.CLEAN, pool.closeWithReport().outcome());
        assertTrue(orchestrator.mailboxes().ids().stream().noneMatch(id -> id.poolId().equals("records")),
                orchestrator.mailboxes().ids().toString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (orchestrator.mailboxes().releasedNotRemoved() > 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertEquals(0, orchestrator.mailboxes().releasedNotRemoved(), "the engine removes them once no close runs");
    }

    @Test
    void spawnOfAMissingBinaryFailsClearlyAndLeavesNothing() {
        PoolStartException e = assertThrows(PoolStartException.class, () -> Pool.builder(orchestrator, "missing")
                .childOutput(Redirect.DISCARD)
                .group("ok", 2, ChildSpec.cDemo())
                .group("bad", 1, ChildSpec.exec("/nonexistent/vigil-no-such-binary")).start());
        assertTrue(e.getMessage().contains("command=/nonexistent/vigil-no-such-binary") && e.getMessage().contains("errno=2"),
                e.getMessage());
        assertEquals(CloseReport.Outcome.CLEAN, e.rollback().outcome(), e.rollback().toJson());
        assertEquals(2, e.rollback().children().size());
        assertTrue(orchestrator.mailboxes().ids().stream().noneMatch(id -> id.poolId().equals("missing")),
                orchestrator.mailboxes().ids().toString());
        assertTrue(journal().stream().anyMatch(ev -> ev instanceof SpawnFailed f && f.errno() == 2));
    }

    @Test
    void aSpawnFailingInTheMiddleOfABatchRollsBackTheChildrenSpawnedAfterItToo() {
        // one batch (Pool.SPAWN_BATCH): the shims after the failing one run too, and the rollback must take them
        PoolStartException e = assertThrows(PoolStartException.class, () -> Pool.builder(orchestrator, "midbatch")
                .childOutput(Redirect.DISCARD)
                .group("before", 2, ChildSpec.cDemo())
                .group("bad", 1, ChildSpec.exec("/nonexistent/vigil-no-such-binary"))
                .group("after", 3, ChildSpec.cDemo()).start());
        assertTrue(e.getMessage().contains("command=/nonexistent/vigil-no-such-binary") && e.getMessage().contains("errno=2"),
                e.getMessage());
        assertEquals(CloseReport.Outcome.CLEAN, e.rollback().outcome(), e.rollback().toJson());
        assertEquals(List.of("after", "after", "after", "before", "before"), e.rollback().children().stream()
                .map(CloseReport.Child::group).sorted().toList(), e.rollback().toJson());
        for (CloseReport.Child c : e.rollback().children()) {
            assertTrue(ProcessHandle.of(c.pid()).map(h -> !h.isAlive()).orElse(true), "pid " + c.pid() + " left alive");
        }
        assertTrue(orchestrator.mailboxes().ids().stream().noneMatch(id -> id.poolId().equals("midbatch")),
                orchestrator.mailboxes().ids().toString());
    }

    @Test
    void spawnOfANonExecutableFileFailsClearlyAndLeavesNothing() throws Exception {
        Path file = Files.createFile(tmp.resolve("not-executable"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-r--r--")));
        PoolStartException e = assertThrows(PoolStartException.class, () -> Pool.builder(orchestrator, "noexec")
                .group("bad", 1, ChildSpec.mailboxExec(file.toString())).start());
        assertTrue(e.getMessage().contains("errno=13"), e.getMessage());
        assertNull(e.rollback());
        assertTrue(orchestrator.mailboxes().ids().isEmpty(), orchestrator.mailboxes().ids().toString());
    }

    @Test
    void aChildThatFailsItsInitRollsThePoolBack() {
        PoolStartException e = assertThrows(PoolStartException.class, () -> Pool.builder(orchestrator, "initfail")
                .childOutput(Redirect.DISCARD)
                .group("ok", 1, ChildSpec.cDemo())
                .group("bad", 1, ChildSpec.cDemo().withEnv(DemoBehaviour.FAIL_INIT, "1")).start());
        assertTrue(e.getMessage().contains("group=bad child=0"), e.getMessage());
        assertTrue(orchestrator.mailboxes().ids().isEmpty(), orchestrator.mailboxes().ids().toString());
    }

    @Test
    void operationsAfterCloseBeganFailWithAClearError() throws Exception {
        Pool p = Pool.builder(orchestrator, "fenced").childOutput(Redirect.DISCARD)
                .closeSettings(CloseSettings.builder().window(Duration.ofSeconds(2)).build())
                .group("slow", 1, ChildSpec.cDemo().withEnv(DemoBehaviour.TEARDOWN_MILLIS, "1000")).start();
        assertEquals(9, p.control("slow", 0, DemoHandler.OP_ECHO, 9, Duration.ofSeconds(5)).value());
        CompletableFuture<CloseReport> closing = CompletableFuture.supplyAsync(p::closeWithReport);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!p.isClosing() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        AdmissionClosedException control = assertThrows(AdmissionClosedException.class,
                () -> p.control("slow", 0, DemoHandler.OP_ECHO, 1, Duration.ofSeconds(1)));
        assertTrue(control.getMessage().startsWith("pool=fenced operation=control group=slow child=0"), control.getMessage());
        assertThrows(AdmissionClosedException.class, () -> p.runTask("slow", 0, DemoHandler.OP_ECHO, 1, Duration.ofSeconds(1)));
        AdmissionClosedException spawn = assertThrows(AdmissionClosedException.class, () -> p.addChild("slow"));
        assertTrue(spawn.getMessage().contains("operation=spawn group=slow child=1"), spawn.getMessage());
        assertEquals(CloseReport.Outcome.CLEAN, closing.get(30, TimeUnit.SECONDS).outcome());
        assertEquals(3, journal().stream().filter(e -> e instanceof AdmissionRejected).count());
        assertFalse(p.trackedChildren().iterator().hasNext());
        p.close(); // nothing tracked: a no-op
    }

    /**
     * A control in flight at the fence finishes and is journaled FINISHED; its child's mailbox is released only after
     * that, while the other child's was released at its own reap, before the slow one's.
     */
    @Test
    void aControlCommandInFlightAtTheFenceFinishesAndEachMailboxIsReleasedAtItsOwnReap() throws Exception {
        Pool p = Pool.builder(orchestrator, "per-child").childOutput(Redirect.DISCARD)
                .closeSettings(CloseSettings.builder().window(Duration.ofSeconds(5)).build())
                .group("quick", 1, ChildSpec.cDemo())
                .group("slow", 1, ChildSpec.cDemo().withEnv(DemoBehaviour.DELAY_MICROS, "600000")).start();
        CompletableFuture<Long> control = CompletableFuture.supplyAsync(
                () -> p.control("slow", 0, DemoHandler.OP_ECHO, 7, Duration.ofSeconds(10)).value());
        JournalScenarios.awaitInsideHandler(p.child("slow", 0));
        CloseReport r = p.closeWithReport();
        assertEquals(7L, control.get(10, TimeUnit.SECONDS));
        assertEquals(CloseReport.Outcome.CLEAN, r.outcome(), r.toJson());
        List<JournalEvent> events = journal();
        assertTrue(events.stream().anyMatch(e -> e instanceof dev.vigil.journal.AdmissionFenced f && f.inFlight() == 1));
        assertTrue(events.stream().anyMatch(e -> e instanceof InFlightSettled s && s.outcome().equals("FINISHED")
                && s.closeId() == r.closeId()), "in-flight control settled FINISHED");
        int quickReleased = -1;
        int slowReaped = -1;
        int slowSettled = -1;
        int slowReleased = -1;
        for (int i = 0; i < events.size(); i++) {
            JournalEvent e = events.get(i);
            if (e.closeId() != r.closeId()) {
                continue;
            }
            if (e instanceof MailboxReleased m) {
                if (m.group().equals("quick")) {
                    quickReleased = i;
                } else {
                    slowReleased = i;
                }
            } else if (e instanceof dev.vigil.journal.ChildReaped c && c.group().equals("slow")) {
                slowReaped = i;
            } else if (e instanceof InFlightSettled s && s.group().equals("slow")) {
                slowSettled = i;
            }
        }
        assertTrue(quickReleased >= 0 && quickReleased < slowReaped, "the quick child's mailbox released at its own"
                + " reap (event " + quickReleased + "), before the slow child's reap (event " + slowReaped + ")");
        assertTrue(slowSettled >= 0 && slowSettled < slowReleased, "the slow child's mailbox released (event "
                + slowReleased + ") only after the command on it settled (event " + slowSettled + ")");
    }

    @Test
    void closeFailedExceptionCarriesTheReportAndDiagnosesInItsMessage() throws Exception {
        Pool p = Pool.builder(orchestrator, "msg").childOutput(Redirect.DISCARD)
                .closeSettings(CloseSettings.builder().window(Duration.ofMillis(500)).build())
                .group("gated", 1, ChildSpec.cDemo().withEnv(DemoBehaviour.GATE, "1")).start();
        p.sendControl("gated", 0, DemoHandler.OP_ECHO, 1);
        JournalScenarios.awaitInsideHandler(p.child("gated", 0));
        CloseFailedException e = assertThrows(CloseFailedException.class, p::close);
        int pid = p.child("gated", 0).pid();
        assertTrue(e.getMessage().contains("pid=" + pid + " group=gated child=0 class=STUCK_IN_HANDLER state=CONTROL_REQUEST"),
                e.getMessage());
        assertEquals(ChildOutcome.SURVIVOR, e.report().child("gated", 0).outcome());
        p.child("gated", 0).mailbox().setGate(1);
        p.child("gated", 0).exit().get(10, TimeUnit.SECONDS);
        assertEquals(CloseReport.Outcome.CLEAN, p.closeWithReport().outcome());
    }
}
