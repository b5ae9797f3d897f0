package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.openhft.chronicle.core.time.SetTimeProvider;

/**
 * A writer whose events cross a cycle (day) boundary, on a clock the test sets: the appender's fast path (writeBytes
 * into pages reserved ahead) holds only inside the cycle it writes; the first event of the next day goes through
 * writingDocument, which reserves the pages of the new day's file before anything is written into it.
 */
class CycleBoundaryTest {
    private static final int PER_DAY = 300;

    @Test
    void theNextDaysEventsGoIntoANewFileWhosePagesAreReservedFirst(@TempDir Path dir) {
        SetTimeProvider time = new SetTimeProvider(Instant.parse("2026-12-04T23:59:59Z"));
        List<JournalEvent> written = new ArrayList<>();
        try (JournalWriter w = JournalWriter.open(dir, 1024, Duration.ofSeconds(5), time)) {
            appendDay(w, written, 0);
            assertTrue(w.wroteIntoReservedPagesOnly(), "the first day's excerpts went into reserved pages");
            time.currentTimeMillis(Instant.parse("2026-12-05T00:00:01Z").toEpochMilli());
            appendDay(w, written, PER_DAY);
            assertTrue(w.wroteIntoReservedPagesOnly(), "the next day's file was written into without its pages"
                    + " reserved first (the fast path rolled into it)");
        }
        try (JournalReader r = JournalReader.open(dir)) {
            assertEquals(List.of("20261204F", "20261205F"), r.cycleFiles().stream()
                    .map(f -> f.file().getFileName().toString().replace(".cq4", "")).toList(), "one file per day");
            List<JournalEvent> read = new ArrayList<>();
            r.fromStart().readAll((index, e) -> read.add(e));
            assertEquals(written, read, "every event read back, in order, across the two days");
        }
    }

    /** Appends a day's events, one batch at a time (each batch starts with a clock read), and waits for them. */
    private static void appendDay(JournalWriter w, List<JournalEvent> written, int first) {
        for (int i = first; i < first + PER_DAY; i++) {
            JournalEvent e = SampleEvents.sample(EventType.values()[i % EventType.values().length], i);
            w.append(e);
            written.add(e);
            if (i % 30 == 29) {
                w.flush();
            }
        }
        w.flush();
    }
}
