package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.journal.JournalReader;
import dev.vigil.replay.internal.CloseSpans;
import dev.vigil.replay.source.EventSource;
import dev.vigil.replay.source.JournalDirectorySource;

/**
 * stats reads only the stretches of a journal that hold closes, found through the close index: for a journal
 * written by today's writer (whose index also records the cycles it wrote to) the ranges are found, they hold
 * every close, and stats over them answers exactly as stats over the whole journal.
 */
@Timeout(60)
class CloseSpansTest {
    @TempDir
    Path tmp;

    @Test
    void aJournalOfTodaysWriterIsReadByItsCloseRangesWithTheAnswerOfAFullRead() {
        Path dir = tmp.resolve("journal");
        long[] written = ReplayBenchmark.generate(dir, 20_000);
        List<long[]> ranges = CloseSpans.ranges(dir);
        assertNotNull(ranges, "the close index of a journal written today gives ranges (its cycle entries included)");
        assertEquals(written[1] / 2, ranges.size(), "each pair of overlapping closes is one range");
        assertEquals(Long.MAX_VALUE, ranges.get(ranges.size() - 1)[1], "the last range runs to the end");
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().read(t -> t == dev.vigil.journal.EventType.CLOSE_STARTED, (i, e) -> {
                assertTrue(ranges.stream().anyMatch(g -> g[0] <= i && i <= g[1]), "close " + e.closeId() + " in a range");
                return true;
            });
        }
        EventSource whole = new EventSource() { // the same journal without a directory: stats reads all of it
            final JournalDirectorySource d = new JournalDirectorySource(dir);

            @Override
            public String describe() {
                return d.describe();
            }

            @Override
            public long firstEventTime() {
                return d.firstEventTime();
            }

            @Override
            public long read(JournalReader.TypeFilter filter, JournalReader.EventSink sink) {
                return d.read(filter, sink);
            }
        };
        assertEquals(stats(whole), stats(new JournalDirectorySource(dir)));
    }

    private static String stats(EventSource source) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StatsCommand.run(source, false, false, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
