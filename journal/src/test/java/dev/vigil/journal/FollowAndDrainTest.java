package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A follower sees events appended after it started; flush and close drain the ring into the file. */
@Timeout(60)
class FollowAndDrainTest {

    @TempDir
    Path dir;

    @Test
    void aFollowerSeesEventsAppendedAfterItStarted() throws Exception {
        int n = 2_000;
        try (JournalWriter w = JournalWriter.open(dir)) {
            // Not even a cycle file exists yet: the follower starts on an empty journal.
            CountDownLatch started = new CountDownLatch(1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            CompletableFuture<List<Long>> followed = CompletableFuture.supplyAsync(() -> {
                List<Long> seqs = new ArrayList<>();
                try (JournalReader r = JournalReader.open(dir)) {
                    r.fromStart();
                    started.countDown();
                    r.follow((i, e) -> {
                        seqs.add(((MailboxTransition) e).seq());
                        return seqs.size() < n;
                    }, () -> System.nanoTime() < deadline);
                }
                return seqs;
            });
            assertTrue(started.await(30, TimeUnit.SECONDS));
            for (int i = 0; i < n; i++) {
                w.append(JournalWriterProcess.event("F", 1, i));
                if (i % 100 == 99) {
                    w.flush();
                    Thread.sleep(2);
                }
            }
            List<Long> seqs = followed.get(40, TimeUnit.SECONDS);
            assertEquals(n, seqs.size(), "the follower saw every event");
            for (int i = 0; i < n; i++) {
                assertEquals(i, seqs.get(i));
            }
        }
    }

    @Test
    void aFollowerStopsWhenTold() {
        try (JournalWriter w = JournalWriter.open(dir)) {
            w.append(JournalWriterProcess.event("F", 1, 0));
            w.flush();
            long stopAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            try (JournalReader r = JournalReader.open(dir)) {
                assertEquals(1, r.fromStart().follow((i, e) -> true, () -> System.nanoTime() < stopAt));
            }
        }
    }

    /** readAll reads to the end as it stands, and returns although a writer keeps appending. */
    @Test
    void readingToTheEndOfABusyJournalReturns() throws Exception {
        try (JournalWriter w = JournalWriter.open(dir)) {
            w.append(JournalWriterProcess.event("B", 1, 0));
            w.flush();
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            long writerDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            CompletableFuture<Long> writer = CompletableFuture.supplyAsync(() -> {
                long seq = 1;
                while (!stop.get() && System.nanoTime() < writerDeadline) {
                    w.append(JournalWriterProcess.event("B", 1, seq++));
                    if ((seq & 255) == 0) {
                        w.flush();
                    }
                }
                return seq;
            });
            try {
                for (int i = 0; i < 5; i++) {
                    List<Long> seqs = readSeqs();
                    assertTrue(!seqs.isEmpty());
                    for (int k = 0; k < seqs.size(); k++) {
                        assertEquals(k, seqs.get(k));
                    }
                }
            } finally {
                stop.set(true);
                writer.get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void closeDrainsTheRing() {
        int n = 200_000;
        JournalWriter w = JournalWriter.open(dir);
        for (int i = 0; i < n; i++) {
            w.append(JournalWriterProcess.event("D", 1, i));
        }
        w.close();
        assertEquals(n, readSeqs().size());
    }

    @Test
    void flushMakesEveryEventAppendedBeforeItReadable() {
        int n = 50_000;
        try (JournalWriter w = JournalWriter.open(dir)) {
            for (int i = 0; i < n; i++) {
                w.append(JournalWriterProcess.event("D", 1, i));
            }
            w.flush(Duration.ofSeconds(30));
            List<Long> seqs = readSeqs();
            assertEquals(n, seqs.size());
            assertEquals(n - 1, seqs.get(n - 1));
        }
    }

    private List<Long> readSeqs() {
        List<Long> seqs = Collections.synchronizedList(new ArrayList<>());
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().readAll((i, e) -> seqs.add(((MailboxTransition) e).seq()));
        }
        return seqs;
    }
}
