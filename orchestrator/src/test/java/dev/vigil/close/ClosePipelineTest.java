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

/** The pipeline's stages against scripted children (no processes): ordering, outcomes, lanes. */
@Timeout(60)
class ClosePipelineTest {
    @TempDir
    Path dir;
    private JournalWriter writer;
    private ClosePipeline pipeline;
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);

    @BeforeEach
    void open() {
        writer = JournalWriter.open(dir.resolve("journal"));
        pipeline = new ClosePipeline(new PoolJournal(writer), 2);
    }

    @AfterEach
    void shut() {
        pipeline.close();
        writer.close();
        timer.shutdownNow();
    }

    /** What a scripted child does once it sees shutdown. */
    enum Script { EXIT_AFTER, IGNORE, DIE_ON_SIGTERM }

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
            if (script == Script.EXIT_AFTER) {
                ack = MonotonicClock.nanos();
                timer.schedule(() -> exit.complete(new ChildExit(exitCode, 0, MonotonicClock.nanos())), delayMs,
                        TimeUnit.MILLISECONDS);
            }
            return new ShutdownDelivery(ShutdownDelivery.SHUTDOWN_WORD, won, seen);
        }

        @Override
        public MailboxWords mailboxWords() {
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

        @Override
        public void releaseMailbox() {
            assertTrue(exit.isDone(), "released before reaped");
            released = true;
        }
    }

    final class ScriptedPool implements CloseTarget {
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
        @Override public int fenceAdmission(long closeId) { return 0; }
        @Override public void abandonInFlight(long closeId) { abandons.incrementAndGet(); }
        @Override public List<? extends ClosingChild> trackedChildren() { return List.copyOf(tracked); }

        @Override
        public void closeFinished(CloseReport report) {
            tracked.removeIf(c -> report.child(c.group, c.index).outcome() != CloseReport.ChildOutcome.SURVIVOR);
        }
    }

    private static final CloseSettings QUICK = CloseSettings.builder().window(Duration.ofMillis(300)).build();

    private CloseReport close(CloseTarget t) throws Exception {
        return pipeline.submit(t, ClosePipeline.nextCloseId()).get(30, TimeUnit.SECONDS);
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
        assertEquals("NOT_OBSERVED", survivor.diagnosis());
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

    @Test
    void termThenKillNamesTheSignalThatEndedEachSurvivor() throws Exception {
        CloseSettings s = QUICK.toBuilder().escalation(EscalationPolicy.TERM_THEN_KILL).grace(Duration.ofMillis(200)).build();
        ScriptedPool p = new ScriptedPool("kill", s).child(Script.DIE_ON_SIGTERM, 0, 0).child(Script.IGNORE, 0, 0);
        CloseReport r = close(p);
        assertEquals(CloseReport.Outcome.FAILED, r.outcome());
        assertEquals(CloseReport.ChildOutcome.KILLED_BY_ESCALATION, r.child("g", 0).outcome());
        assertEquals(15, r.child("g", 0).signal());
        assertEquals(9, r.child("g", 1).signal());
        assertEquals("NOT_OBSERVED", r.child("g", 1).diagnosis());
        assertTrue(p.tracked.isEmpty());
    }

    @Test
    void manyPoolsCloseAtOnceButNeverMoreThanTheLaneLimit() throws Exception {
        List<CompletableFuture<CloseReport>> futures = new ArrayList<>();
        List<Thread> submitters = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ScriptedPool p = new ScriptedPool("many" + i, QUICK);
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
        assertTrue(maxOverlap >= 1 && maxOverlap <= 2, "overlappingCloses max=" + maxOverlap);
    }

    @Test
    void laterStagesSleepWhileTheReapStageWaitsOutItsBudget() throws Exception {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        ScriptedPool p = new ScriptedPool("idle", CloseSettings.builder().window(Duration.ofMillis(1500)).build())
                .child(Script.IGNORE, 0, 0);
        long before = closeThreadsCpu(mx);
        CloseReport r = close(p);
        long used = closeThreadsCpu(mx) - before;
        assertEquals(CloseReport.ChildOutcome.SURVIVOR, r.child("g", 0).outcome());
        // 14 stage threads over a 1.5 s reap: a spinning wait would cost seconds of CPU.
        assertTrue(used < TimeUnit.MILLISECONDS.toNanos(300), "close-pipeline threads used cpu=" + used / 1_000_000 + " ms");
        p.tracked.get(0).exit.complete(new ChildExit(0, 0, MonotonicClock.nanos()));
        assertEquals(CloseReport.Outcome.CLEAN, close(p).outcome());
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
