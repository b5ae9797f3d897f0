package dev.vigil.close;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.close.decision.MailboxWords;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.EventType;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalReader;
import dev.vigil.journal.JournalWriter;
import dev.vigil.journal.MonotonicClock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The close engine against scripted children (no processes): ordering, outcomes, closes at once. */
@Timeout(60)
class CloseEngineTest {
    @TempDir
    Path dir;
    private JournalWriter writer;
    private CloseEngine engine;
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);

    @BeforeEach
    void open() {
        writer = JournalWriter.open(dir.resolve("journal"));
        engine = new CloseEngine(new PoolJournal(writer));
    }

    @AfterEach
    void shut() {
        engine.close();
        writer.close();
        timer.shutdownNow();
    }

    /** What a scripted child does once it sees shutdown. */
    enum Script { EXIT_AFTER, IGNORE, DIE_ON_SIGTERM, ACK_AND_BEAT }

    final class ScriptedChild implements ClosingChild {
        final String group;
        final int index;
        final Script script;
        final long delayMs;
        final int exitCode;
        final CompletableFuture<ChildExit> exit = new CompletableFuture<>();
        volatile long shutdownWord;
        volatile long ack;
        volatile boolean released;

        ScriptedChild(String group, int index, Script script, long delayMs, int exitCode) {
            this.group = group;
            this.index = index;
            this.script = script;
            this.delayMs = delayMs;
            this.exitCode = exitCode;
        }

        @Override public String group() { return group; }
        @Override public int index() { return index; }
        @Override public int pid() { return 1_000_000 + index; }
        @Override public String kind() { return "C"; }
        @Override public boolean hasMailbox() { return true; }
        @Override public CompletableFuture<ChildExit> exit() { return exit; }
        @Override public void drainTransitions(long closeId) { }
        @Override public long mailboxOffset() { return 4096L * index; }

        @Override
        public ShutdownDelivery deliverShutdown(long epoch) {
            boolean won = shutdownWord == 0;
            long seen = shutdownWord;
            if (won) {
                shutdownWord = epoch;
            }
            if (script == Script.EXIT_AFTER || script == Script.ACK_AND_BEAT) {
                ack = MonotonicClock.nanos();
                timer.schedule(() -> exit.complete(new ChildExit(exitCode, 0, MonotonicClock.nanos())), delayMs,
                        TimeUnit.MILLISECONDS);
            }
            return new ShutdownDelivery(ShutdownDelivery.SHUTDOWN_WORD, won, seen, MonotonicClock.nanos());
        }

        @Override
        public MailboxWords mailboxWords() {
            if (script == Script.ACK_AND_BEAT && shutdownWord != 0) {
                // acknowledged at once, then a beat per millisecond: finalizing, slowly, until it exits
                return new MailboxWords(0, "IDLE", "CHILD", 3, false, shutdownWord, 1, MonotonicClock.nanos() / 1_000_000);
            }
            return new MailboxWords(4, "CONTROL_REQUEST", "PARENT", 3, false, shutdownWord, ack, 1);
        }

        @Override
        public boolean signal(int signal) {
            return exit.complete(new ChildExit(-1, signal, MonotonicClock.nanos()));
        }

        @Override
        public boolean signalProcessGroup(int signal) {
            if (script == Script.DIE_ON_SIGTERM || signal == 9) {
                return exit.complete(new ChildExit(-1, signal, MonotonicClock.nanos()));
            }
            return true;
        }

        @Override public void failPendingCommands(java.util.function.Supplier<String> reason) { }

        @Override
        public boolean tryReleaseMailbox() {
            assertTrue(exit.isDone(), "released before reaped");
            released = true;
            return true;
        }
    }

    class ScriptedPool implements CloseTarget {
        final String id;
        final CloseSettings settings;
        final List<ScriptedChild> tracked = new ArrayList<>();
        final AtomicInteger abandons = new AtomicInteger();

        ScriptedPool(String id, CloseSettings settings) {
            this.id = id;
            this.settings = settings;
        }

        ScriptedPool child(Script script, long delayMs, int exitCode) {
            tracked.add(new ScriptedChild("g", tracked.size(), script, delayMs, exitCode));
            return this;
        }

        @Override public String poolId() { return id; }
        @Override public CloseSettings closeSettings() { return settings; }
        @Override public int fenceAdmission(long closeId, Runnable onSettled) { return 0; }
        @Override public boolean settleInFlight(long closeId, java.util.function.Predicate<ClosingChild> on) { return true; }
        @Override public void abandonInFlight(long closeId) { abandons.incrementAndGet(); }
        @Override public List<? extends ClosingChild> trackedChildren() { return List.copyOf(tracked); }
        @Override public List<? extends ClosingChild> takeLateJoiners() { return List.of(); }

        @Override
        public void closeFinished(CloseReport report) {
            tracked.removeIf(c -> report.child(c.group, c.index).outcome() != CloseReport.ChildOutcome.SURVIVOR);
        }
    }

    private static final CloseSettings QUICK = CloseSettings.builder().window(Duration.ofMillis(300)).build();

    private CloseReport close(CloseTarget t) throws Exception {
        return engine.submit(t, CloseEngine.nextCloseId()).get(30, TimeUnit.SECONDS);
    }

    @Test
    void aCleanCloseReportsEveryExitCodeAndReleasesEveryMailbox() throws Exception {
        ScriptedPool p = new ScriptedPool("clean", QUICK).child(Script.EXIT_AFTER, 10, 0).child(Script.EXIT_AFTER, 50, 42);
        CloseReport r = close(p);
        assertEquals(CloseReport.Outcome.CLEAN, r.outcome());
        assertEquals(42, r.child("g", 1).exitCode());
        assertEquals(CloseReport.ChildOutcome.EXITED, r.child("g", 1).outcome());
        assertTrue(r.child("g", 1).sinceBroadcastNanos() >= TimeUnit.MILLISECONDS.toNanos(50));
        assertTrue(p.tracked.isEmpty());
        writer.flush();
        List<EventType> kinds = kinds();
        assertEquals(List.of(EventType.CLOSE_STARTED, EventType.ADMISSION_FENCED, EventType.SHUTDOWN_PUBLISHED,
                EventType.SHUTDOWN_PUBLISHED), kinds.subList(0, 4));
        assertEquals(EventType.CLOSE_COMPLETED, kinds.get(kinds.size() - 1));
        assertEquals(2, kinds.stream().filter(k -> k == EventType.MAILBOX_RELEASED).count());
    }

    @Test
    void aLeakedSurvivorKeepsItsMailboxAndARetryReapsItUnderANewCloseId() throws Exception {
        ScriptedPool p = new ScriptedPool("leak", QUICK).child(Script.EXIT_AFTER, 0, 0).child(Script.IGNORE, 0, 0);
        CloseReport first = close(p);
        assertEquals(CloseReport.Outcome.FAILED, first.outcome());
        CloseReport.Child survivor = first.child("g", 1);
        assertEquals(CloseReport.ChildOutcome.SURVIVOR, survivor.outcome());
        assertEquals("STUCK_IN_HANDLER", survivor.diagnosis());
        assertEquals(-1, survivor.exitCode());
        assertEquals(-1, survivor.sinceBroadcastNanos());
        ScriptedChild stuck = p.tracked.get(0);
        assertEquals(1, p.tracked.size());
        assertTrue(!stuck.released);
        stuck.exit.complete(new ChildExit(0, 0, MonotonicClock.nanos()));
        CloseReport retry = close(p);
        assertTrue(retry.closeId() != first.closeId());
        assertEquals(CloseReport.Outcome.CLEAN, retry.outcome());
        assertEquals(1, retry.children().size());
        assertNull(retry.child("g", 1).diagnosis());
        assertTrue(stuck.released);
    }

    /**
     * The engine's idle work (the map removes of released mailboxes) runs once no close ran for a millisecond, never in
     * the batch that ended the last close, while its caller wakes up: here each close ends in a timeout of the engine's
     * wait (its budget spent at a tick, the survivor leaked), as every close whose last exit the engine collects itself.
     * The last of three closes counts (the first runs cold code).
     */
    @Test
    void theIdleWorkRunsAMillisecondAfterTheLastCloseEndedNotInTheBatchThatEndedIt() throws Exception {
        java.util.concurrent.atomic.AtomicLong idleRan = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong finished = new java.util.concurrent.atomic.AtomicLong();
        CloseEngine idleAware = new CloseEngine(new PoolJournal(writer), null, () -> idleRan.set(MonotonicClock.nanos()));
        try {
            long after = 0;
            for (int i = 0; i < 3; i++) {
                idleRan.set(0);
                ScriptedPool p = new ScriptedPool("idle-work-" + i, CloseSettings.builder().window(Duration.ofMillis(50))
                        .build()) {
                    @Override
                    public void closeFinished(CloseReport report) {
                        finished.set(MonotonicClock.nanos()); // on the engine thread, right after the close ended
                        super.closeFinished(report);
                    }
                }.child(Script.IGNORE, 0, 0);
                CloseReport r = idleAware.submit(p, CloseEngine.nextCloseId()).get(30, TimeUnit.SECONDS);
                assertEquals(CloseReport.ChildOutcome.SURVIVOR, r.child("g", 0).outcome());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (idleRan.get() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertTrue(idleRan.get() != 0, "the idle work never ran");
                after = idleRan.get() - finished.get();
            }
            assertTrue(after >= TimeUnit.MICROSECONDS.toNanos(500), "the idle work ran " + after / 1000
                    + " us after the close ended");
        } finally {
            idleAware.close();
        }
    }

    /**
     * A late memory fault (a cut mailbox map: the JVM raises it at a later instruction than the access) that lands after
     * the close ended, in the pool's bookkeeping on the engine thread: the caller still gets its report. Before, the
     * engine dropped it (the close was DONE) before completing the caller's future, and the caller waited for ever (the
     * clean-clone CI run of main d6d5246 hung so in MisbehavingChildTest's mid-close cut).
     */
    @Test
    void aFaultRaisedAfterTheCloseEndedStillHandsTheCallerItsReport() throws Exception {
        ScriptedPool p = new ScriptedPool("late-fault", QUICK) {
            @Override
            public void closeFinished(CloseReport report) {
                super.closeFinished(report);
                throw new InternalError("a fault occurred in a recent unsafe memory access operation in compiled Java code");
            }
        }.child(Script.IGNORE, 0, 0);
        CloseReport r = engine.submit(p, CloseEngine.nextCloseId()).get(30, TimeUnit.SECONDS);
        assertEquals(CloseReport.ChildOutcome.SURVIVOR, r.child("g", 0).outcome());
        ScriptedPool after = new ScriptedPool("after-late-fault", QUICK).child(Script.IGNORE, 0, 0);
        assertEquals(1, engine.submit(after, CloseEngine.nextCloseId()).get(30, TimeUnit.SECONDS).children().size(),
                "the engine closes the next pool");
    }

    @Test
    void termThenKillNamesTheSignalThatEndedEachSurvivor() throws Exception {
        CloseSettings s = QUICK.toBuilder().escalation(EscalationPolicy.TERM_THEN_KILL).grace(Duration.ofMillis(200)).build();
        ScriptedPool p = new ScriptedPool("kill", s).child(Script.DIE_ON_SIGTERM, 0, 0).child(Script.IGNORE, 0, 0);
        CloseReport r = close(p);
        assertEquals(CloseReport.Outcome.FAILED, r.outcome());
        assertEquals(CloseReport.ChildOutcome.KILLED_BY_ESCALATION, r.child("g", 0).outcome());
        assertEquals(15, r.child("g", 0).signal());
        assertEquals(9, r.child("g", 1).signal());
        assertEquals("STUCK_IN_HANDLER", r.child("g", 1).diagnosis());
        assertTrue(p.tracked.isEmpty());
    }

    @Test
    void manyPoolsCloseAtOnceAndTheyOverlap() throws Exception {
        List<CompletableFuture<CloseReport>> futures = new ArrayList<>();
        List<Thread> submitters = new ArrayList<>();
        // A generous window: on a loaded machine the timer that ends the children may run late.
        CloseSettings patient = CloseSettings.builder().window(Duration.ofSeconds(10)).build();
        for (int i = 0; i < 6; i++) {
            ScriptedPool p = new ScriptedPool("many" + i, patient);
            for (int c = 0; c < 4; c++) {
                p.child(Script.EXIT_AFTER, 100 + 10 * c, c);
            }
            CompletableFuture<CloseReport> f = new CompletableFuture<>();
            futures.add(f);
            Thread t = new Thread(() -> {
                try {
                    f.complete(close(p));
                } catch (Exception e) {
                    f.completeExceptionally(e);
                }
            });
            submitters.add(t);
            t.start();
        }
        for (CompletableFuture<CloseReport> f : futures) {
            CloseReport r = f.get(30, TimeUnit.SECONDS);
            assertEquals(CloseReport.Outcome.CLEAN, r.outcome(), r.toJson());
        }
        writer.flush();
        int maxOverlap = 0;
        for (JournalEvent e : events()) {
            if (e instanceof CloseStarted cs) {
                maxOverlap = Math.max(maxOverlap, cs.overlappingCloses());
            }
        }
        // No lanes any more: closes started together run together (each child takes 100+ ms).
        assertTrue(maxOverlap >= 2, "overlappingCloses max=" + maxOverlap);
    }

    @Test
    void theEngineThreadSleepsWhileACloseWaitsOutItsBudget() throws Exception {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        ScriptedPool p = new ScriptedPool("idle", CloseSettings.builder().window(Duration.ofMillis(1500)).build())
                .child(Script.IGNORE, 0, 0);
        long before = closeThreadsCpu(mx);
        CloseReport r = close(p);
        long used = closeThreadsCpu(mx) - before;
        assertEquals(CloseReport.ChildOutcome.SURVIVOR, r.child("g", 0).outcome());
        // One thread ticking every 20 ms over a 1.5 s reap: a spinning wait would cost the whole 1.5 s of CPU.
        assertTrue(used < TimeUnit.MILLISECONDS.toNanos(300), "close engine thread used cpu=" + used / 1_000_000 + " ms");
        p.tracked.get(0).exit.complete(new ChildExit(0, 0, MonotonicClock.nanos()));
        assertEquals(CloseReport.Outcome.CLEAN, close(p).outcome());
    }

    @Test
    void aCloseHeldOpenByABeatingChildHoldsNoOtherCloseBack() throws Exception {
        holdOneOpenWhileOthersClose(Duration.ofSeconds(4), 40);
    }

    @Test
    @org.junit.jupiter.api.Tag("slow")
    @Timeout(300)
    void oneCloseHeldOpenSixtySecondsWhileTwoHundredOthersCompleteNormally() throws Exception {
        holdOneOpenWhileOthersClose(Duration.ofSeconds(60), 200);
    }

    private void holdOneOpenWhileOthersClose(Duration hold, int others) throws Exception {
        // A 500 ms window: the held child survives it only because every beat after its ack is progress.
        ScriptedPool held = new ScriptedPool("held", CloseSettings.builder().window(Duration.ofMillis(500)).build())
                .child(Script.ACK_AND_BEAT, hold.toMillis(), 0);
        long start = MonotonicClock.nanos();
        CompletableFuture<CloseReport> heldClose = engine.submit(held, CloseEngine.nextCloseId());
        long spacing = hold.toNanos() / 2 / others;
        long slowest = 0;
        int done = 0;
        // Other closes while the held one runs: as many as asked, or as fit in 3/4 of the hold on a slow machine.
        for (int i = 0; i < others && MonotonicClock.nanos() - start < hold.toNanos() * 3 / 4; i++) {
            ScriptedPool p = new ScriptedPool("other" + i, QUICK).child(Script.EXIT_AFTER, 5, 0).child(Script.EXIT_AFTER, 10, 0);
            long t0 = MonotonicClock.nanos();
            CloseReport r = close(p);
            slowest = Math.max(slowest, MonotonicClock.nanos() - t0);
            assertEquals(CloseReport.Outcome.CLEAN, r.outcome(), r.toJson());
            done++;
            java.util.concurrent.locks.LockSupport.parkNanos(spacing);
        }
        assertTrue(done >= Math.min(others, 10), "closes completed while one was held open: " + done);
        assertTrue(!heldClose.isDone(), "the held close is still waiting for its beating child");
        CloseReport r = heldClose.get(hold.toSeconds() + 30, TimeUnit.SECONDS);
        assertEquals(CloseReport.ChildOutcome.EXITED, r.child("g", 0).outcome(), r.toJson());
        assertTrue(MonotonicClock.nanos() - start >= hold.toNanos(), "held for the whole " + hold);
        System.out.printf("held close: %d ms; %d other closes, slowest %.1f ms%n", r.durationNanos() / 1_000_000, done,
                slowest / 1e6);
        // Generous for a loaded machine; the lanes it replaces blocked every close after 15 more.
        assertTrue(slowest < TimeUnit.SECONDS.toNanos(3), "slowest other close " + slowest / 1_000_000 + " ms");
    }

    private static long closeThreadsCpu(java.lang.management.ThreadMXBean mx) {
        long sum = 0;
        for (java.lang.management.ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith("vigil-close-")) {
                sum += Math.max(0, mx.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }

    private List<JournalEvent> events() {
        List<JournalEvent> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(dir.resolve("journal"))) {
            r.fromStart().readAll((i, e) -> out.add(e));
        }
        return out;
    }

    private List<EventType> kinds() {
        return events().stream().map(JournalEvent::type).toList();
    }
}
