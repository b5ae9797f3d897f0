package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

/** A full ring makes producers wait, then fail loudly: the journal never drops an event silently. */
@Timeout(60)
class BackpressureTest {

    @TempDir
    Path dir;

    @Test
    void manyProducersThroughATwoSlotRingLoseNothing() throws Exception {
        int threads = 8;
        int perThread = 5_000;
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (JournalWriter w = JournalWriter.open(dir, 2, Duration.ofSeconds(30))) {
            List<Thread> producers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String name = "T" + t;
                Thread p = new Thread(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < perThread; i++) {
                            w.append(JournalWriterProcess.event(name, 1, i));
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "producer-" + name);
                p.start();
                producers.add(p);
            }
            go.countDown();
            for (Thread p : producers) {
                p.join(50_000);
                assertTrue(!p.isAlive(), p.getName() + " still publishing");
            }
        }
        if (failure.get() != null) {
            throw new AssertionError("a producer failed", failure.get());
        }
        Map<String, Long> next = new HashMap<>();
        long[] total = {0};
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().readAll((i, e) -> {
                MailboxTransition m = (MailboxTransition) e;
                long expected = next.merge(m.writer(), 1L, Long::sum) - 1;
                assertEquals(expected, m.seq(), m.writer() + " out of order");
                total[0]++;
                return true;
            });
        }
        assertEquals((long) threads * perThread, total[0]);
        assertEquals(threads, next.size());
    }

    /**
     * The appender thread is stalled for real: another appender (as another process would) holds
     * Chronicle's write lock in the middle of an excerpt. The ring fills; the next producer waits
     * its publish timeout and gets an error naming the event; nothing accepted before it is lost,
     * nothing after it is written (the journal stays a whole prefix and its gap says so).
     */
    @Test
    void aFullRingFailsThePublisherAfterItsTimeoutAndLosesNothingItAccepted() throws Exception {
        Duration publishTimeout = Duration.ofMillis(300);
        try (JournalWriter w = JournalWriter.open(dir, 4, publishTimeout)) {
            w.append(JournalWriterProcess.event("B", 1, 0));
            w.flush();
            List<Long> accepted = new ArrayList<>(List.of(0L));
            JournalException full;
            try (SingleChronicleQueue other = SingleChronicleQueueBuilder.binary(dir.toFile()).build();
                 ExcerptAppender stall = other.createAppender()) {
                try (DocumentContext held = stall.writingDocument()) {
                    EventCodec.write(JournalWriterProcess.event("other", 2, 0), held.wire().bytes());
                    long seq = 1;
                    long start = System.nanoTime();
                    while (true) {
                        JournalEvent e = JournalWriterProcess.event("B", 1, seq);
                        try {
                            w.append(e);
                        } catch (JournalException ringFull) {
                            full = ringFull;
                            break;
                        }
                        accepted.add(seq++);
                        assertTrue(seq < 100, "a 4-slot ring took " + seq + " events while the appender was stalled");
                    }
                    long waitedMillis = (System.nanoTime() - start) / 1_000_000;
                    assertTrue(waitedMillis >= publishTimeout.toMillis(), "gave up after " + waitedMillis + " ms");
                    BadJournalInputTest.assertMessage(full, "dir=" + dir, "ring full", "event not written",
                            "seq=" + seq);
                }
            }
            // From the refused event on the journal is incomplete: later appends return, counted, unwritten.
            w.append(JournalWriterProcess.event("B", 1, 1_000));
            w.flush();
            JournalGap gap = w.gap().orElseThrow();
            assertEquals(2, gap.notWritten(), gap.describe());
            assertTrue(gap.firstNotWritten().startsWith("MailboxTransition"), gap.describe());
            assertTrue(gap.describe().contains("ring full"), gap.describe());
            List<Long> read = new ArrayList<>();
            try (JournalReader r = JournalReader.open(dir)) {
                r.fromStart().readAll((i, e) -> {
                    MailboxTransition m = (MailboxTransition) e;
                    if (m.writer().equals("B")) {
                        read.add(m.seq());
                    }
                    return true;
                });
            }
            assertEquals(accepted, read, "every accepted event, in order; the refused one absent");
        }
    }

    @Test
    void appendingToAClosedWriterIsAnError() {
        JournalWriter w = JournalWriter.open(dir);
        w.close();
        JournalException e = assertThrows(JournalException.class, () -> w.append(JournalWriterProcess.event("C", 1, 0)));
        BadJournalInputTest.assertMessage(e, "dir=" + dir, "closed");
    }
}
