package dev.vigil.close;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.CloseAborted;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalReader;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;
import dev.vigil.pool.PoolChild;

/**
 * Throwables raised on the close engine's thread between two inputs (real orchestrator, real C children): the JVM
 * raises a cut map file's memory fault at a later instruction, anywhere on the thread. Before, one of them ended the
 * thread (Disruptor's fatal handler) and the close's caller waited for its report forever.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CloseEngineFaultTest {
    /** How long a test lets a close's caller wait for its answer. */
    private static final long ANSWER_BOUND_SECONDS = 20;

    @TempDir
    Path tmp;

    /**
     * Three Throwables on the engine thread between the close's inputs (the late memory fault CI saw, an Error, a
     * RuntimeException): the engine goes on, the close ends CLEAN with both children reaped, and the same engine
     * closes another pool afterwards.
     */
    @Test
    void throwablesBetweenInputsDoNotEndTheEngineNorItsClose() throws Exception {
        Orchestrator o = Orchestrator.builder().journalDir(tmp.resolve("journal")).open();
        List<Integer> pids = new ArrayList<>();
        boolean ended = false;
        try {
            Pool pool = twoChildren(o, "faulted", 200, pids);
            AtomicInteger faults = new AtomicInteger();
            List<Throwable> toRaise = List.of(
                    new InternalError("a fault occurred in a recent unsafe memory access operation in compiled Java code"),
                    new AssertionError("an Error between two inputs"),
                    new IllegalStateException("a RuntimeException between two inputs"));
            o.closeEngine().betweenInputs(() -> {
                int n = faults.getAndIncrement();
                if (n < toRaise.size()) {
                    raise(toRaise.get(n));
                }
            });
            CloseReport report = answer(pool::closeWithReport);
            ended = true;
            assertTrue(faults.get() > toRaise.size(), "each fault raised, and the loop turned after: " + faults.get());
            assertEquals(CloseReport.Outcome.CLEAN, report.outcome(), report.toJson());
            assertEquals(2, report.children().size(), report.toJson());
            for (int pid : pids) {
                assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid + " alive");
            }
            assertNull(o.closeEngine().checkAlive(), "the engine runs on");
            Pool next = Pool.builder(o, "after").group("c", 1, ChildSpec.cDemo()).start();
            assertEquals(CloseReport.Outcome.CLEAN, answer(next::closeWithReport).outcome());
        } finally {
            endOrKill(o, ended, pids);
        }
    }

    /**
     * A storm of faults: the engine gives up. Its close is aborted (journaled), the caller gets one line naming the
     * pool at once (not after the children's 30 s teardown), and the children are killed and reaped all the same.
     */
    @Test
    void anEngineThatGivesUpFailsItsCloseAtOnceAndThePoolStillKillsItsChildren() throws Exception {
        Path journal = tmp.resolve("journal");
        Orchestrator o = Orchestrator.builder().journalDir(journal).open();
        List<Integer> pids = new ArrayList<>();
        boolean ended = false;
        try {
            Pool pool = twoChildren(o, "stormed", 30_000, pids);
            List<PoolChild> children = pool.trackedChildren();
            o.closeEngine().betweenInputs(() -> raise(new AssertionError("the same fault, every turn")));
            long t0 = System.nanoTime();
            Throwable failed = answerFailure(pool::closeWithReport);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            ended = true;
            String line = failed.getMessage();
            assertTrue(line.startsWith("pool=stormed closeId="), line);
            assertTrue(line.contains("vigil-close-engine-") && line.contains("faults in a row"), line);
            assertTrue(line.contains("2 reaped"), line);
            assertFalse(line.contains("\n"), line);
            assertTrue(tookMillis < 15_000, "took " + tookMillis + " ms");
            for (PoolChild c : children) {
                assertTrue(c.exit().isDone(), "pid " + c.pid() + " reaped");
            }
            assertNotNull(o.closeEngine().checkAlive());
            assertTrue(pool.trackedChildren().isEmpty(), "the pool tracks nothing");
        } finally {
            endOrKill(o, ended, pids);
        }
        List<JournalEvent> events = new ArrayList<>();
        try (JournalReader r = JournalReader.open(journal)) {
            r.fromStart().readAll((i, e) -> events.add(e));
        }
        assertTrue(events.stream().anyMatch(e -> e instanceof CloseAborted a && a.reason().contains("faults in a row")),
                "CloseAborted journaled");
    }

    /** A pool of two C demo children taking {@code teardownMillis} to exit once told; their pids into {@code pids}. */
    private static Pool twoChildren(Orchestrator o, String poolId, int teardownMillis, List<Integer> pids) {
        Pool pool = Pool.builder(o, poolId).group("c", 2, ChildSpec.cDemo()
                .withEnv("VIGIL_DEMO_TEARDOWN_MILLIS", String.valueOf(teardownMillis)))
                .closeSettings(CloseSettings.builder().window(Duration.ofSeconds(60)).build()).start();
        pool.trackedChildren().forEach(c -> pids.add(c.pid()));
        return pool;
    }

    private static void raise(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        throw (RuntimeException) t;
    }

    private interface Close {
        CloseReport run();
    }

    /** The close's answer from a thread of its own, waited for at most {@link #ANSWER_BOUND_SECONDS}. */
    private static CompletableFuture<CloseReport> closing(Close c) {
        CompletableFuture<CloseReport> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(c.run());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "test-close");
        t.setDaemon(true); // on the old engine it waits forever: it must not keep the JVM
        t.start();
        return f;
    }

    private static CloseReport answer(Close c) throws Exception {
        try {
            return closing(c).get(ANSWER_BOUND_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            return fail("the close's caller had no answer within " + ANSWER_BOUND_SECONDS + " s");
        }
    }

    private static Throwable answerFailure(Close c) throws Exception {
        try {
            CloseReport r = closing(c).get(ANSWER_BOUND_SECONDS, TimeUnit.SECONDS);
            return fail("the close succeeded: " + r.toJson());
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            return fail("the close's caller had no answer within " + ANSWER_BOUND_SECONDS + " s");
        }
    }

    /**
     * Closes the orchestrator once the close answered; else (the broken engine) its close would wait for the pool's
     * lock forever: the children are SIGKILLed instead, so that nothing outlives the test.
     */
    private static void endOrKill(Orchestrator o, boolean ended, List<Integer> pids) {
        if (ended) {
            o.close();
            return;
        }
        for (int pid : pids) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
