package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * A writer process SIGKILLed in the middle of appending: the reader gets every event the writer
 * had flushed, in order, and nothing half-written (every excerpt decodes, seq has no gap).
 */
@Timeout(120)
class KilledWriterTest {

    @RepeatedTest(3)
    void aReaderSeesEveryFlushedEventAndNoHalfWrittenOneAfterTheWriterIsKilled(@TempDir Path work) throws Exception {
        Path dir = work.resolve("journal");
        long flushed;
        try (ForkedJvm writer = ForkedJvm.start(work, JournalWriterProcess.class, dir.toString(), "K", "-1", "500")) {
            String line = writer.awaitLine(l -> l.startsWith("flushed ")
                    && Long.parseLong(l.substring("flushed ".length())) >= 30_000, 60_000);
            flushed = Long.parseLong(line.substring("flushed ".length()));
            writer.kill9();
        }
        long[] count = {0};
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().readAll((i, e) -> {
                MailboxTransition t = (MailboxTransition) e;
                assertEquals("K", t.writer());
                assertEquals(count[0], t.seq(), "seq is contiguous from 0");
                count[0]++;
                return true;
            });
        }
        assertTrue(count[0] >= flushed, "read " + count[0] + " events but the writer had flushed " + flushed);

        // The journal stays usable: a new writer appends after what the killed one left.
        try (JournalWriter w = JournalWriter.open(dir)) {
            w.append(JournalWriterProcess.event("after", 1, 0));
        }
        long[] after = {0};
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().readAll((i, e) -> {
                after[0]++;
                return true;
            });
        }
        assertEquals(count[0] + 1, after[0]);
    }

    /**
     * A writer killed in the middle of an excerpt holds Chronicle's write lock: the next writer
     * must not wait forever. Chronicle sees the holder's pid is dead and takes the lock over.
     */
    @Test
    void aWriterKilledInsideAnExcerptDoesNotBlockTheNextWriter(@TempDir Path work) throws Exception {
        Path dir = work.resolve("journal");
        try (ForkedJvm holder = ForkedJvm.start(work, LockHolder.class, dir.toString())) {
            holder.awaitLine("holding"::equals, 60_000);
            holder.kill9();
        }
        try (JournalWriter w = JournalWriter.open(dir)) {
            w.append(JournalWriterProcess.event("next", 1, 0));
            w.flush(Duration.ofSeconds(60));
        }
        List<String> read = new ArrayList<>();
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().readAll((i, e) -> read.add(((MailboxTransition) e).writer() + ":" + ((MailboxTransition) e).seq()));
        }
        assertEquals(List.of("held:0", "next:0"), read, "the half-written held:1 is not delivered");
    }

    /** Appends one event, then opens a second excerpt and is killed before finishing it. */
    public static final class LockHolder {
        private LockHolder() {
        }

        public static void main(String[] args) throws InterruptedException {
            Path dir = Path.of(args[0]);
            try (JournalWriter w = JournalWriter.open(dir)) {
                w.append(JournalWriterProcess.event("held", 1, 0));
            }
            SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(dir.toFile()).build();
            ExcerptAppender appender = queue.createAppender();
            DocumentContext unfinished = appender.writingDocument();
            EventCodec.write(JournalWriterProcess.event("held", 1, 1), unfinished.wire().bytes());
            System.out.println("holding");
            System.out.flush();
            Thread.sleep(120_000);
        }
    }
}
