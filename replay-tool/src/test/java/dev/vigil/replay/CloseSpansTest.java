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
 * every close, and stats over them answers exactly as stats over the whole journal (also with --summary, which
 * reads the two halves of the ranges on two threads).
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
        String full = stats(whole, false);
        assertEquals(full, stats(new JournalDirectorySource(dir), false));
        // --summary reads the two halves of the ranges on two threads: its totals are the single pass's
        String totals = full.substring(full.indexOf(System.lineSeparator() + System.lineSeparator()) + 2 * System.lineSeparator().length());
        assertEquals(totals, stats(new JournalDirectorySource(dir), true));
        assertEquals(stats(whole, true), stats(new JournalDirectorySource(dir), true));
    }

    @Test
    void damageInBothHalvesOfTheRangesIsNamedAsASinglePassMeetsIt() throws Exception {
        Path dir = tmp.resolve("journal");
        ReplayBenchmark.generate(dir, 20_000);
        List<long[]> ranges = CloseSpans.ranges(dir);
        assertTrue(ranges.size() > 4, "ranges: " + ranges.size());
        // one changed byte in an event of the first range and one in an event of the last: two CRC32C mismatches
        for (long index : new long[] {ranges.get(0)[0] + 1, ranges.get(ranges.size() - 1)[0] + 1}) {
            long body;
            Path file;
            try (var q = net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder.binary(dir.toFile())
                    .readOnly(true).build(); var t = q.createTailer()) {
                assertTrue(t.moveToIndex(index));
                try (var dc = t.readingDocument()) {
                    body = dc.wire().bytes().readPosition();
                }
                file = JournalFiles.cycleFiles(dir).get(0);
            }
            try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(file.toFile(), "rw")) {
                f.seek(body + 12);
                int b = f.read();
                f.seek(body + 12);
                f.write(b ^ 0x40);
            }
        }
        String single = damage(dir, false);
        assertTrue(single.contains("index=0x" + Long.toHexString(ranges.get(0)[0] + 1)) && single.contains("checksum"), single);
        assertEquals(single, damage(dir, true), "--summary (two threads) names the damage a single pass meets first");
    }

    @Test
    void anEarlierEventDamagedIntoMetadataIsNamedNotAnswerForOneCloseLess() throws Exception {
        Path dir = tmp.resolve("journal");
        try (ScenarioJournal j = new ScenarioJournal(dir, 10_000)) { // closes within Chronicle's first index spacing
            for (int n = 0; n < 2; n++) {
                ScenarioJournal.Pool p = j.pool("pool-" + n, "sticky", "chips", 2, "hosts", 1);
                ScenarioJournal.Close c = p.close(Scenarios.LEAK, n).broadcast();
                for (int i = 0; i < p.children.size(); i++) {
                    c.exits(p.child(i), 150 + 40 * i, 0);
                }
                c.complete();
            }
            ScenarioJournal.Pool after = j.pool("pool-after", "sticky", "chips", 2, "hosts", 1); // work after the closes
            for (ScenarioJournal.Child c : after.children) {
                after.task(c, 0.5);
            }
        }
        assertTrue(stats(new JournalDirectorySource(dir), false).contains("over all closes: 2 closes"));
        // bit 30 of the first event's header: Chronicle now takes it for metadata and counts one excerpt less, so
        // every index the close index names lands one event late
        Path cycle = dev.vigil.journal.CycleFileBytes.cycleFile(dir);
        dev.vigil.journal.CycleFileBytes.flip(cycle, dev.vigil.journal.CycleFileBytes.bodyPositions(cycle)[0] - 1, 0x40);
        for (boolean summary : new boolean[] {false, true}) {
            String message = damage(dir, summary);
            // named either where the close index lands on the wrong event, or (since the reader checks the queue's own
            // index as it passes it, 73ff72b) already at the index entry that no longer matches the events
            assertTrue((message.contains("close-index names a CloseStarted at index=0x") && message.contains("is damaged"))
                    || (message.contains("file=") && message.contains("index=0x") && message.contains("a damaged index entry")),
                    message);
        }
    }

    private static String damage(Path dir, boolean summary) {
        dev.vigil.journal.JournalException e = org.junit.jupiter.api.Assertions.assertThrows(
                dev.vigil.journal.JournalException.class, () -> stats(new JournalDirectorySource(dir), summary));
        return e.getMessage();
    }

    private static String stats(EventSource source, boolean summary) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StatsCommand.run(source, false, summary, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
