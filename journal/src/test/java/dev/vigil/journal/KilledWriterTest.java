package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer process SIGKILLed in the middle of appending: the reader gets every event the writer
 * had flushed, in order, and nothing half-written (every excerpt decodes, seq has no gap).
 */
@Timeout(120)
class KilledWriterTest {

    @RepeatedTest(5)
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
}
