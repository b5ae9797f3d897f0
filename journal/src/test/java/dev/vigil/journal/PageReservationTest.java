package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.io.ReferenceOwner;

/**
 * The pages thread ({@link PagesAhead}) on a real file system with room for the two chunks the appender reserves itself: the chunk after them, which
 * that thread could not populate, is not taken as reserved; the appender's own reservation of it fails with the file
 * system's error, before anything is stored into those pages.
 */
@Timeout(30)
class PageReservationTest {
    @RegisterExtension
    final SmallTmpfs tmpfs = new SmallTmpfs("vigil-journal-pages");

    @Test
    void aChunkThePagesThreadCouldNotPopulateIsReservedByTheAppenderWithItsError() throws Exception {
        File file = tmpfs.path().resolve("cycle.cq4").toFile();
        ReferenceOwner owner = ReferenceOwner.temporary("test");
        MappedFile mapped = MappedFile.of(file, 1 << 20, 0, false);
        MappedBytesStore chunk = mapped.acquireByteStore(owner, 0);
        PageReservation pages = new PageReservation();
        try {
            tmpfs.fill();
            try (RandomAccessFile filler = new RandomAccessFile(tmpfs.path().resolve("filler-65536").toFile(), "rw")) {
                // room for the first two chunks the appender reserves itself, not for the one after them
                filler.setLength(filler.length() - 2L * PageReservation.CHUNK + PageReservation.HEADROOM);
            }
            long intoTheSecondChunk = PageReservation.CHUNK - PageReservation.HEADROOM;
            pages.ensure(file, chunk, 0, 100);
            pages.ensure(file, chunk, intoTheSecondChunk, 100); // the chunk after it is asked of the pages thread
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!pages.pagesAheadIdle()) {
                assertTrue(System.nanoTime() < deadline, "the pages thread never finished its chunk");
                LockSupport.parkNanos(1_000_000);
            }
            long intoTheThirdChunk = intoTheSecondChunk + PageReservation.CHUNK - PageReservation.HEADROOM;
            UncheckedIOException full = assertThrows(UncheckedIOException.class,
                    () -> pages.ensure(file, chunk, intoTheThirdChunk, 100),
                    "the third chunk, which the full file system could not give, was taken as reserved");
            assertTrue(full.getMessage().contains("No space left"), full.getMessage());
        } finally {
            pages.close();
            chunk.release(owner);
            mapped.releaseLast();
        }
    }

    /**
     * A journal's pages thread is named after its appender (JournalBench counts it as that journal's writer CPU, and a
     * thread dump tells whose it is).
     */
    @Test
    void aJournalsPagesThreadIsNamedAfterItsAppender(@TempDir Path dir) {
        try (JournalWriter w = JournalWriter.open(dir)) {
            // past the first two chunks, which the appender reserves itself: the pages thread starts with the third
            for (int i = 0; i < 4 * PageReservation.CHUNK / 64; i++) {
                w.append(new MailboxTransition(i, 4242, "pool-1", 0, "workers", i % 16, i, 1, 2, "child", 5000));
            }
            w.flush();
            String appender = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                    .filter(n -> n.startsWith("vigil-journal-appender-")).max(java.util.Comparator.comparingInt(
                            n -> Integer.parseInt(n.substring("vigil-journal-appender-".length())))).orElseThrow();
            String number = appender.substring("vigil-journal-appender-".length());
            assertEquals(1, Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("vigil-journal-pages-" + number)).count(),
                    "no pages thread named after " + appender);
        }
    }
}
