package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The appender's wait ({@link AppenderWait}): it spins only briefly after its last event and then blocks (an idle journal
 * takes no core), and an event published into that block is written at once, not after the block's 1 s bound.
 */
@Timeout(60)
class AppenderWaitTest {

    @TempDir
    Path dir;

    @Test
    void anEventPublishedWhileTheAppenderIsBlockedIsWrittenAtOnce() throws Exception {
        long[] millis = new long[15];
        try (JournalWriter w = JournalWriter.open(dir)) {
            w.append(JournalWriterProcess.event("P", 1, -1));
            w.flush(); // the first event opens the cycle file (100-400 ms on a loaded machine): not what is measured
            long first = w.lastWrittenIndex();
            for (int i = 0; i < millis.length; i++) {
                Thread.sleep(5); // the appender is past its spin (20 us) and blocked
                long start = System.nanoTime();
                w.append(JournalWriterProcess.event("P", 1, i));
                awaitWritten(w, first + 1 + i); // not flush: a flush wakes the appender itself
                millis[i] = (System.nanoTime() - start) / 1_000_000;
            }
        }
        // a publish that did not signal the blocked appender would wait for its 1 s bound every time; the median
        // leaves room for a few scheduling stalls on a loaded machine
        Arrays.sort(millis);
        assertTrue(millis[millis.length / 2] < 300, "append to written, median " + millis[millis.length / 2] + " ms: "
                + Arrays.toString(millis));
    }

    /**
     * The appender naps when it finds fewer events than a batch ({@link AppenderWait}), once: a trickle of events that
     * never makes a batch, each published while the appender writes the ones before, is written without a flush.
     */
    @Test
    void aTrickleOfFewerEventsThanABatchIsWrittenWithoutAFlush() throws Exception {
        try (JournalWriter w = JournalWriter.open(dir)) {
            w.append(JournalWriterProcess.event("P", 1, -1));
            w.flush(); // the cycle file opened
            long written = w.lastWrittenIndex();
            for (int trickle = 0; trickle < 5; trickle++) {
                for (int i = 0; i < 40; i++) { // 40 events, one every 20 us: fewer than a batch, in several takes
                    w.append(JournalWriterProcess.event("P", 1, trickle * 40 + i));
                    long until = System.nanoTime() + 20_000;
                    while (System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                }
                written += 40;
                awaitWritten(w, written); // not flush: a flush ends a nap itself
            }
        }
    }

    @Test
    void aHoldersAppendsWaitForItsOwnWakeWhileEveryOtherThreadsStillWakeTheAppender() throws Exception {
        try (JournalWriter w = JournalWriter.open(dir)) {
            w.append(JournalWriterProcess.event("P", 1, 0));
            w.flush(); // the cycle file opened
            w.holdWakesOf(Thread.currentThread());
            Thread.sleep(20); // the appender is past its spin and blocked
            long before = w.lastWrittenIndex();
            w.append(JournalWriterProcess.event("P", 1, 1));
            assertTrue(w.heldWakeNanos() >= 0, "the append's wake-up is held");
            Thread.sleep(200);
            assertEquals(before, w.lastWrittenIndex(), "a held append was written without its wake-up");

            // another thread's append wakes the appender, which writes the held one with it
            Thread other = new Thread(() -> w.append(JournalWriterProcess.event("P", 1, 2)));
            other.start();
            other.join();
            awaitWritten(w, before + 2);

            // the holder's own wake releases what it held, at once (not after the appender's 1 s bound)
            Thread.sleep(20);
            w.append(JournalWriterProcess.event("P", 1, 3));
            long start = System.nanoTime();
            w.wakeAppender();
            assertEquals(-1, w.heldWakeNanos(), "nothing held after the wake");
            awaitWritten(w, before + 3);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 500, "held append written " + millis + " ms after its wake");

            w.holdWakesOf(null); // every append wakes it again
            Thread.sleep(20);
            w.append(JournalWriterProcess.event("P", 1, 4));
            assertEquals(-1, w.heldWakeNanos());
            awaitWritten(w, before + 4);
        }
    }

    private static void awaitWritten(JournalWriter w, long index) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (w.lastWrittenIndex() < index) {
            assertTrue(System.nanoTime() < deadline, "index " + index + " not written within 5 s (last "
                    + w.lastWrittenIndex() + ")");
            Thread.sleep(1);
        }
    }

    @Test
    void anIdleAppenderBlocksInsteadOfSpinning() throws Exception {
        try (JournalWriter w = JournalWriter.open(dir)) {
            for (int i = 0; i < 100; i++) {
                w.append(JournalWriterProcess.event("P", 1, i));
            }
            w.flush();
            Thread appender = newestAppender();
            Thread.sleep(50); // far past its spin
            int runnable = 0;
            for (int look = 0; look < 20; look++) {
                if (appender.getState() == Thread.State.RUNNABLE) {
                    runnable++; // spinning (or, for microseconds, its once-a-second look)
                }
                Thread.sleep(10);
            }
            // blocked in its wait every time we look, whatever the machine's load (a spinning one is always RUNNABLE)
            assertTrue(runnable <= 1, "an idle appender was running at " + runnable + " of 20 looks over 200 ms");
        }
    }

    /** The newest appender thread alive (JournalWriter numbers them): the writer this test just opened. */
    private static Thread newestAppender() {
        Thread newest = null;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("vigil-journal-appender-") && (newest == null || number(t) > number(newest))) {
                newest = t;
            }
        }
        assertNotNull(newest, "no appender thread");
        return newest;
    }

    private static int number(Thread t) {
        return Integer.parseInt(t.getName().substring("vigil-journal-appender-".length()));
    }
}
