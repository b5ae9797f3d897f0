package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The journal queue's clock: on the appender thread the time of its last read, read again at each batch's start and
 * every {@link AppenderClock#CALLS_PER_READ} calls; the system clock on any other thread.
 */
class AppenderClockTest {
    @Test
    void theAppenderGetsATimeAtMostSoManyCallsOldAndAFreshOneAfterARead() throws Exception {
        AppenderClock clock = new AppenderClock();
        clock.ownedBy(Thread.currentThread());
        clock.read();
        long before = clock.currentTimeMillis();
        Thread.sleep(30);
        long afterSleep = System.currentTimeMillis();
        for (int i = 2; i < AppenderClock.CALLS_PER_READ; i++) {
            assertEquals(before, clock.currentTimeMillis(), "call " + i + " answers from the last read");
        }
        assertTrue(clock.currentTimeMillis() >= afterSleep, "call " + AppenderClock.CALLS_PER_READ + " reads the clock");
        Thread.sleep(30);
        long beforeRead = System.currentTimeMillis();
        clock.read(); // a batch starts
        assertTrue(clock.currentTimeMillis() >= beforeRead, "the first call of a batch gives the time of its start");
    }

    @Test
    void anyOtherThreadGetsTheSystemClock() throws Exception {
        AppenderClock clock = new AppenderClock();
        Thread appender = new Thread(() -> { });
        clock.ownedBy(appender);
        Thread.sleep(30);
        long now = System.currentTimeMillis();
        assertTrue(clock.currentTimeMillis() >= now, "not the appender: the system clock");
    }

    /** The writer reads the clock at the start of each batch: an event after a pause is stamped with its own time. */
    @Test
    void aWriterReadsItsClockAtEachBatch(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (JournalWriter w = JournalWriter.open(dir)) {
            w.append(SampleEvents.sample(EventType.values()[0], 1));
            w.flush();
            Thread.sleep(1100);
            long before = System.currentTimeMillis();
            w.append(SampleEvents.sample(EventType.values()[0], 2));
            w.flush();
            assertTrue(w.clockMillis() >= before, "the batch after a pause of 1.1 s wrote with a clock read "
                    + (before - w.clockMillis()) + " ms before it");
        }
    }
}
