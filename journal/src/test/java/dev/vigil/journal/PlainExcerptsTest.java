package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The plain reader ({@link PlainExcerpts}, no Chronicle runtime) against Chronicle's own tailer on
 * real journals: every data excerpt with the same index and the same bytes, from the start and
 * from every index; and where a journal is not exactly what its store headers record, the plain
 * reader refuses rather than end early (the reader then hands over to Chronicle, which names it).
 */
@Timeout(120)
class PlainExcerptsTest {
    @TempDir
    Path tmp;

    /** A data excerpt: its index, its body, and (as Chronicle frames it) the position of its header. */
    record Excerpt(long index, byte[] body, long header) {
        Excerpt(long index, byte[] body) {
            this(index, body, -1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"schema1", "schema2", "schema2-exit-decisions", "schema2-transition-batch"})
    void aGoldenJournalReadsExcerptForExcerptAsChronicleReadsIt(String golden) throws IOException {
        Path journal = tmp.resolve(golden);
        GoldenJournalTest.copyTree(Path.of("src/test/resources/golden", golden, "journal"), journal);
        assertSameAsChronicle(journal);
    }

    @Test
    void aJournalOfTodaysWriterReadsExcerptForExcerptAsChronicleReadsIt() {
        Path journal = tmp.resolve("today");
        try (JournalWriter w = JournalWriter.open(journal)) {
            for (int round = 0; round < 120; round++) {
                for (JournalEvent e : SampleEvents.oneOfEach(round)) {
                    w.append(e);
                }
            }
        }
        List<Excerpt> all = assertSameAsChronicle(journal);
        assertTrue(all.size() > 3 * 256, "several index blocks: " + all.size());
        assertEquals(chronicleCloseIndex(journal), plainCloseIndex(journal), "the close index, entry for entry");
    }

    @Test
    void aJournalOfSeveralCyclesWithADayWithoutEventsBetweenReadsAsChronicleReadsIt() {
        Path journal = tmp.resolve("cycles");
        JournalDirectory.openForAppend(journal).close(); // the marker, no cycle file
        SetTimeProvider clock = new SetTimeProvider(TimeUnit.DAYS.toNanos(20_000));
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(journal.toFile()).timeProvider(clock).build();
                ExcerptAppender a = q.createAppender()) {
            int[] perDay = {700, 1, 0, 300, 1};
            int seed = 0;
            for (int day = 0; day < perDay.length; day++) {
                for (int i = 0; i < perDay[day]; i++) {
                    try (DocumentContext dc = a.writingDocument()) {
                        EventCodec.write(SampleEvents.sample(EventType.values()[seed % EventType.values().length], seed++),
                                dc.wire().bytes());
                    }
                }
                clock.advanceNanos(TimeUnit.DAYS.toNanos(1));
            }
        }
        List<Excerpt> all = assertSameAsChronicle(journal);
        assertEquals(700 + 1 + 300 + 1, all.size());
        assertEquals(4, cycles(journal).size(), "four cycle files, none for the day without events");
    }

    @Test
    void aCycleThatEndsBeforeTheLastExcerptItsStoreRecordsIsNotUnderstood() throws IOException {
        Path journal = tmp.resolve("zeroed");
        try (JournalWriter w = JournalWriter.open(journal)) {
            for (JournalEvent e : SampleEvents.oneOfEach(1)) {
                w.append(e);
            }
        }
        List<Excerpt> all = chronicleExcerpts(journal);
        CycleFiles.CycleFile f = cycles(journal).firstEntry().getValue();
        // the header of the middle excerpt zeroed: what is left before it looks like a whole, shorter journal
        long header = all.get(all.size() / 2).header();
        try (RandomAccessFile raf = new RandomAccessFile(f.file().toFile(), "rw")) {
            raf.seek(header);
            raf.writeInt(0);
        }
        try (PlainExcerpts plain = new PlainExcerpts(cycles(journal))) {
            plain.toStart();
            PlainExcerpts.NotUnderstood e = assertThrows(PlainExcerpts.NotUnderstood.class, () -> {
                while (plain.next() >= 0) {
                    // read on to the zeroed header
                }
            });
            assertTrue(e.getMessage().contains("its store header says " + (all.size() - 1)), e.getMessage());
        }
        // the reader hands over to Chronicle's path, which names the damage after every event before it
        List<Long> read = new ArrayList<>();
        try (JournalReader r = JournalReader.open(journal)) {
            JournalCorruptException e = assertThrows(JournalCorruptException.class,
                    () -> r.fromStart().readAll((i, ev) -> read.add(i)));
            assertTrue(e.getMessage().contains("ends early") || e.getMessage().contains("cannot be read"), e.getMessage());
        }
        assertEquals(all.size() / 2, read.size(), "every event before the zeroed header");
    }

    /** Asserts the plain reader and Chronicle's tailer agree from the start and from every index; returns the excerpts. */
    private List<Excerpt> assertSameAsChronicle(Path journal) {
        List<Excerpt> expected = chronicleExcerpts(journal);
        assertTrue(expected.size() > 0, "a journal with events");
        List<Excerpt> got = new ArrayList<>();
        try (PlainExcerpts plain = new PlainExcerpts(cycles(journal))) {
            plain.toStart();
            for (long i = plain.next(); i >= 0; i = plain.next()) {
                got.add(new Excerpt(i, body(plain)));
            }
            assertExcerpts(expected, got);
            for (int k = 0; k < expected.size(); k++) {
                Excerpt want = expected.get(k);
                assertTrue(plain.toIndex(want.index()), "toIndex 0x" + Long.toHexString(want.index()));
                assertEquals(want.index(), plain.next(), "the excerpt after toIndex");
                assertArrayEquals(want.body(), body(plain), "body at 0x" + Long.toHexString(want.index()));
                if (k + 1 < expected.size()) {
                    assertEquals(expected.get(k + 1).index(), plain.next(), "the excerpt after it");
                }
            }
        }
        try (JournalReader r = JournalReader.open(journal)) {
            List<Long> indices = new ArrayList<>();
            r.fromStart().readAll((i, e) -> indices.add(i));
            assertEquals(expected.stream().map(Excerpt::index).toList(), indices, "JournalReader's indices");
        }
        return expected;
    }

    private static void assertExcerpts(List<Excerpt> expected, List<Excerpt> got) {
        assertEquals(expected.size(), got.size(), "excerpts read");
        for (int k = 0; k < expected.size(); k++) {
            assertEquals(expected.get(k).index(), got.get(k).index(), "index of excerpt " + k);
            assertArrayEquals(expected.get(k).body(), got.get(k).body(), "body of excerpt " + k);
        }
    }

    private static byte[] body(PlainExcerpts plain) {
        byte[] b = new byte[plain.bodyLength()];
        System.arraycopy(plain.buffer(), plain.bodyOffset(), b, 0, b.length);
        return b;
    }

    private static List<Excerpt> chronicleExcerpts(Path journal) {
        List<Excerpt> out = new ArrayList<>();
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(journal.toFile()).readOnly(true).build();
                ExcerptTailer t = q.createTailer()) {
            while (true) {
                try (DocumentContext dc = t.readingDocument()) {
                    if (!dc.isPresent()) {
                        return out;
                    }
                    if (!dc.isMetaData()) {
                        var bytes = dc.wire().bytes();
                        out.add(new Excerpt(dc.index(), bytes.toByteArray(), bytes.readPosition() - 4));
                    }
                }
            }
        }
    }

    private static TreeMap<Integer, CycleFiles.CycleFile> cycles(Path journal) {
        TreeMap<Integer, CycleFiles.CycleFile> m = new TreeMap<>();
        for (CycleFiles.CycleFile f : CycleFiles.inspect(journal, Set.of())) {
            m.put(f.cycle(), f);
        }
        return m;
    }

    private static List<CloseIndex.Entry> plainCloseIndex(Path journal) {
        List<CloseIndex.Entry> plain = CloseIndex.readPlain(journal);
        assertTrue(plain != null && !plain.isEmpty(), "the plain reader reads the close index");
        return plain;
    }

    private static List<CloseIndex.Entry> chronicleCloseIndex(Path journal) {
        List<CloseIndex.Entry> out = new ArrayList<>();
        try (SingleChronicleQueue q = JournalDirectory.openCloseIndexForRead(journal); ExcerptTailer t = q.createTailer()) {
            while (true) {
                try (DocumentContext dc = t.readingDocument()) {
                    if (!dc.isPresent()) {
                        return out;
                    }
                    if (!dc.isMetaData()) {
                        var b = dc.wire().bytes();
                        long header = b.readPosition() - 4;
                        out.add(new CloseIndex.Entry(b.readUnsignedByte(), b.readLong(), b.readUtf8(), b.readLong(), dc.index(), header));
                    }
                }
            }
        }
    }
}
