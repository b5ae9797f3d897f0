package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.ChildAcked;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.JournalEvent;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Java or Python child's exit follows its shutdown ack promptly: the journal's ack stamp (the child's own CLOCK_MONOTONIC)
 * to its reap. The doorbell's reader thread sits in a pipe read, and HotSpot's exit waits at least 300 ms (30 steps
 * of 10 ms) for a thread in a system call before giving up on it, so a child that leaves the reader there cannot
 * reap sooner than 0.3 s after its ack, whatever the load; with the reader ended first it takes tens of
 * milliseconds. The fastest of the children is compared with a bound below that floor, so a loaded machine that
 * slows one exit does not fail the test, and the slow variant always does.
 */
@Timeout(180)
class ChildExitAfterAckTest {
    private static final int CHILDREN = 3;
    /** Under HotSpot's 300 ms floor for an exit that waits on a thread in a system call. */
    private static final long BOUND_MILLIS = 250;
    private static final int ATTEMPTS = 4;

    @TempDir
    Path tmp;

    @Test
    void aJavaChildWithADoorbellIsReapedWellUnderThreeHundredMillisecondsAfterItsAck() throws Exception {
        assertFastestAckToReapUnderBound(ChildSpec.java(DemoHandler.class.getName()), "java");
    }

    /** The Python runtime has no thread of its own (its doorbell is the C library's futex): the same bound holds. */
    @Test
    void aPythonChildIsReapedWellUnderThreeHundredMillisecondsAfterItsAck() throws Exception {
        assertFastestAckToReapUnderBound(ChildSpec.python("vigil_child.demo:DemoHandler"), "python");
    }

    /**
     * One pool, then (only while its fastest exit missed the bound) another, up to four: a child that waits on a thread in a system
     * call misses it in all, whatever the load; an exit slowed by bursts of load on a 2-core machine (310 ms seen twice
     * at load 14) does not four times.
     */
    private void assertFastestAckToReapUnderBound(ChildSpec spec, String kind) throws Exception {
        List<Long> fastestPerPool = new ArrayList<>();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            long fastest = fastestAckToReap(spec, kind, attempt);
            fastestPerPool.add(fastest);
            if (fastest < BOUND_MILLIS) {
                return;
            }
        }
        fail("a " + kind + " child reaped " + fastestPerPool + " ms after its ack at the fastest of each pool (bound "
                + BOUND_MILLIS + " ms): its exit waited (a JVM waits for a thread left in a system call: the doorbell reader?)");
    }

    private long fastestAckToReap(ChildSpec spec, String kind, int attempt) throws Exception {
        Path journal = tmp.resolve("journal-" + kind + "-" + attempt);
        CloseReport report;
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).closeSettings(CloseSettings.defaults()).open();
                Pool pool = Pool.builder(o, kind + "exit" + attempt).group(kind, CHILDREN, spec).startTimeout(Duration.ofSeconds(60)).start()) {
            for (PoolChild child : pool.children()) {
                assertEquals(5, pool.control(child.group(), child.index(), DemoHandler.OP_ECHO, 5, Duration.ofSeconds(30)).value());
            }
            report = pool.closeWithReport();
        }
        assertEquals(CloseReport.Outcome.CLEAN, report.outcome(), "clean close: " + report);
        Map<Integer, Long> ackByPid = new HashMap<>();
        Map<Integer, Long> reapByPid = new HashMap<>();
        for (JournalEvent e : JournalChecks.readAll(journal)) {
            if (e instanceof ChildAcked a) {
                ackByPid.put(a.pid(), a.ackNanos());
            } else if (e instanceof ChildReaped r && r.closeId() == report.closeId()) {
                reapByPid.put(r.pid(), r.timeNanos());
            }
        }
        assertEquals(CHILDREN, reapByPid.size(), "every child reaped in the close: " + reapByPid);
        List<Long> millis = new ArrayList<>();
        for (Map.Entry<Integer, Long> reap : reapByPid.entrySet()) {
            Long ack = ackByPid.get(reap.getKey());
            assertTrue(ack != null && ack > 0, "child " + reap.getKey() + " acked, with its own stamp: " + ackByPid);
            millis.add((reap.getValue() - ack) / 1_000_000);
        }
        long fastest = millis.stream().mapToLong(Long::longValue).min().orElseThrow();
        System.out.println(kind + " child exit, pool " + attempt + ": ack to reap " + millis + " ms (fastest " + fastest + " ms, bound "
                + BOUND_MILLIS + " ms)");
        return fastest;
    }
}
