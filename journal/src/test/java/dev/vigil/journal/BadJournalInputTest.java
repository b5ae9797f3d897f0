package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * Every kind of bad input gives its own clear error naming the directory (and for damage the file
 * and index), after every whole event before the damage was delivered; none hangs.
 */
@Timeout(30)
class BadJournalInputTest {
    private static final int EVENTS = 2_000;

    @TempDir
    Path work;

    // ---- not a journal ------------------------------------------------------------------------

    @Test
    void aMissingDirectoryIsNamedAsMissing() {
        Path dir = work.resolve("nope");
        JournalException e = assertThrows(JournalException.class, () -> JournalReader.open(dir));
        assertMessage(e, "dir=" + dir, "does not exist");
        assertTrue(Files.notExists(dir), "opening for read must not create the directory");
    }

    @Test
    void aFileInsteadOfADirectoryIsNamedAsAFile() throws IOException {
        Path file = Files.writeString(work.resolve("journal"), "hello");
        JournalException e = assertThrows(JournalException.class, () -> JournalReader.open(file));
        assertMessage(e, "dir=" + file, "is a file");
    }

    @Test
    void anEmptyDirectoryIsNotAJournal() {
        JournalException e = assertThrows(JournalException.class, () -> JournalReader.open(work));
        assertMessage(e, "dir=" + work, "not a Vigil journal");
    }

    @Test
    void aChronicleQueueWithoutTheMarkerIsNotAJournal() {
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(work.toFile()).build();
             ExcerptAppender a = q.createAppender()) {
            a.writeText("not an event");
        }
        JournalException e = assertThrows(JournalException.class, () -> JournalReader.open(work));
        assertMessage(e, "dir=" + work, "not a Vigil journal");
    }

    @Test
    void aMarkerOfAnotherFormatIsNotAJournal() throws IOException {
        Files.writeString(work.resolve(JournalSchema.MARKER_FILE), "format=something-else\nschemaVersion=1\n");
        JournalException e = assertThrows(JournalException.class, () -> JournalReader.open(work));
        assertMessage(e, "dir=" + work, "not a Vigil journal", "format=something-else");
    }

    @Test
    void aJournalMarkedWithANewerSchemaIsRefused() throws IOException {
        Files.writeString(work.resolve(JournalSchema.MARKER_FILE),
                "format=vigil-journal\nschemaVersion=" + (JournalSchema.VERSION + 1) + "\n");
        JournalException e = assertThrows(JournalException.class, () -> JournalReader.open(work));
        assertMessage(e, "dir=" + work, "schema version=" + (JournalSchema.VERSION + 1), "newer");
    }

    @Test
    void aJournalWithNoEventsYetReadsAsEmpty() {
        Path dir = work.resolve("journal");
        JournalWriter.open(dir).close();
        try (JournalReader r = JournalReader.open(dir)) {
            assertEquals(0, r.fromStart().readAll((i, e) -> true));
        }
    }

    // ---- damaged cycle files ------------------------------------------------------------------

    /** Cut inside a header, inside a body, exactly between two excerpts, on a page boundary. */
    @ParameterizedTest
    @ValueSource(strings = {"header+2", "body+17", "header", "page"})
    void aTruncatedCycleFileGivesEveryWholeEventThenAClearError(String where) throws IOException {
        Journal j = Journal.write(work.resolve("journal"), EVENTS);
        Excerpt cut = j.excerpts.get(EVENTS / 2);
        long at = switch (where) {
            case "header+2" -> cut.header + 2;
            case "body+17" -> cut.header + 4 + 17;
            case "header" -> cut.header;
            case "page" -> (cut.header + 4096) & ~4095L;
            default -> throw new IllegalArgumentException(where);
        };
        try (RandomAccessFile f = new RandomAccessFile(j.cycleFile.toFile(), "rw")) {
            f.setLength(at);
        }
        Outcome o = Outcome.read(j.dir);
        o.assertPrefixThenCorrupt(j, j.wholeBefore(at));
        assertMessage(o.error, "truncated");
    }

    /** Overwrite 100 bytes in the middle of the data region (always at least one excerpt header). */
    @ParameterizedTest
    @ValueSource(strings = {"ff", "zero", "random-1", "random-2", "random-3", "random-4", "random-5", "random-6"})
    void aGarbledCycleFileGivesEveryWholeEventThenAClearError(String pattern) throws IOException {
        Journal j = Journal.write(work.resolve("journal"), EVENTS);
        long at = j.excerpts.get(EVENTS / 2).header + 13;
        byte[] junk = new byte[100];
        if (pattern.equals("ff")) {
            Arrays.fill(junk, (byte) 0xff);
        } else if (pattern.startsWith("random-")) {
            new Random(Long.parseLong(pattern.substring("random-".length()))).nextBytes(junk);
        }
        overwrite(j.cycleFile, at, junk);
        Outcome o = Outcome.read(j.dir);
        o.assertPrefixThenCorrupt(j, j.wholeBefore(at));
    }

    @Test
    void aHeaderWhoseLengthPointsPastTheEndOfTheFileGivesAClearError() throws IOException {
        Journal j = Journal.write(work.resolve("journal"), EVENTS);
        Excerpt e = j.excerpts.get(EVENTS / 2);
        overwrite(j.cycleFile, e.header, new byte[] {(byte) 0xf0, (byte) 0xff, (byte) 0xff, 0x3f}); // length 0x3ffffff0
        Outcome o = Outcome.read(j.dir);
        o.assertPrefixThenCorrupt(j, EVENTS / 2);
    }

    /**
     * The store header's writePosition is two words written one after the other (the sequence-and-position
     * pair when an excerpt completes, then the position): a writer SIGKILLed between them leaves them
     * apart. That is not damage; every event is read, either way round (KilledWriterTest met it 1 run in 3).
     */
    @ParameterizedTest
    @ValueSource(strings = {"position-behind", "pair-behind"})
    void aStoreHeaderLeftBetweenItsTwoWritePositionStoresReadsEveryEvent(String which) throws IOException {
        Journal j = Journal.write(work.resolve("journal"), EVENTS);
        long previous = j.excerpts.get(EVENTS - 2).header;
        long at = writePositionValues(j.cycleFile);
        java.nio.ByteBuffer word = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        if (which.equals("position-behind")) {
            overwrite(j.cycleFile, at, word.putLong(0, previous).array());
        } else {
            overwrite(j.cycleFile, at + 8, word.putLong(0, previous << 32 | (EVENTS - 2)).array());
        }
        Outcome o = Outcome.read(j.dir);
        assertEquals(null, o.error, () -> "error: " + o.error.getMessage());
        assertEquals(EVENTS, o.seqs.size());
    }

    /** Byte offset of the writePosition array's two values in the store header (after its capacity and used count). */
    private static long writePositionValues(Path cycleFile) throws IOException {
        byte[] head = new byte[512];
        try (RandomAccessFile f = new RandomAccessFile(cycleFile.toFile(), "r")) {
            f.readFully(head);
        }
        String text = new String(head, java.nio.charset.StandardCharsets.ISO_8859_1);
        int p = text.indexOf("writePosition") + "writePosition".length();
        while ((head[p] & 0xFF) == 0x8f || (head[p] & 0xFF) == 0x8e) { // padding byte, or padding with an int32 length
            p += (head[p] & 0xFF) == 0x8f ? 1 : 5 + java.nio.ByteBuffer.wrap(head, p + 1, 4)
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
        }
        assertEquals(0x8d, head[p] & 0xFF, "writePosition is an int64 array");
        return p + 1 + 16;
    }

    // ---- damage that Chronicle's tailer reads as a shorter (or empty) journal -----------------------

    /** The last event zeroed, its header alone or all of it: its store header still records it, so it was written. */
    @ParameterizedTest
    @ValueSource(strings = {"header", "whole"})
    void aZeroedLastEventIsNamedNotReadAsTheEndOfTheJournal(String what) throws IOException {
        Journal j = Journal.write(work.resolve("journal"), EVENTS);
        Excerpt last = j.excerpts.get(EVENTS - 1);
        overwrite(j.cycleFile, last.header, new byte[what.equals("header") ? 4 : (int) (last.end - last.header)]);
        Outcome o = Outcome.read(j.dir);
        o.assertPrefixThenCorrupt(j, EVENTS - 1);
        assertEquals(EVENTS - 1, o.seqs.size());
    }

    /**
     * An event whose header gained the metadata bit (bit 30): Chronicle's tailer skips it, numbers every later
     * event one lower, and after a hand-over at a later index delivered one event twice; the journal read clean.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, EVENTS / 2, EVENTS - 1})
    void anEventMarkedAsMetadataIsNamedWhereItIs(int which) throws IOException {
        Journal j = Journal.write(work.resolve("journal"), EVENTS);
        Excerpt e = j.excerpts.get(which);
        overwrite(j.cycleFile, e.header + 3, new byte[] {(byte) (readByte(j.cycleFile, e.header + 3) | 0x40)});
        Outcome o = Outcome.read(j.dir);
        o.assertPrefixThenCorrupt(j, which);
        assertEquals(which, o.seqs.size(), "nothing after the damaged event: " + o.error.getMessage());
        assertMessage(o.error, "metadata");
    }

    /**
     * The header of the cycle's first index array zeroed (it sits between the store header and the first event):
     * every reader stopped there and the journal read as empty and clean, although its store header records events.
     */
    @Test
    void aZeroedIndexArrayHeaderIsNamedNotReadAsAnEmptyJournal() throws IOException {
        Journal j = Journal.write(work.resolve("journal"), EVENTS);
        List<Long> metadata = metadataBeforeFirstEvent(j.cycleFile);
        assertEquals(3, metadata.size(), "store header, index2index, first index array: " + metadata);
        overwrite(j.cycleFile, metadata.get(2), new byte[4]);
        Outcome o = Outcome.read(j.dir);
        o.assertPrefixThenCorrupt(j, 0);
    }

    /** An event longer than the plain reader's 1 MiB read window (a CloseCompleted of a large pool's report can be). */
    @Test
    void anEventLongerThanTheReadWindowIsRead() {
        Path dir = work.resolve("journal");
        try (JournalWriter w = JournalWriter.open(dir)) {
            w.append(JournalWriterProcess.event("before", 1, 0));
            w.append(JournalWriterProcess.event("x".repeat(1_200_000), 1, 1));
            w.append(JournalWriterProcess.event("after", 1, 2));
        }
        Outcome o = Outcome.read(dir);
        assertEquals(null, o.error, () -> "error: " + o.error.getMessage());
        assertEquals(List.of(0L, 1L, 2L), o.seqs);
    }

    /**
     * The close index is an accelerator: a damaged one loses its entries, never events, and never holds a read up.
     * Chronicle's tailer waited 25 s for the store header of an emptied or zeroed close-index cycle file (on every
     * open of a reader, and every close lookup), so each replay command took 25-30 s.
     */
    @ParameterizedTest
    @ValueSource(strings = {"emptied", "zeroed"})
    void aCloseIndexCycleFileWithoutAStoreHeaderIsPassedOverAtOnce(String how) throws IOException {
        Journal j = Journal.write(work.resolve("journal"), EVENTS);
        Path indexCycle;
        try (Stream<Path> files = Files.list(j.dir.resolve(JournalSchema.CLOSE_INDEX_DIR))) {
            indexCycle = files.filter(p -> p.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
        Files.write(indexCycle, how.equals("emptied") ? new byte[0] : new byte[(int) Files.size(indexCycle)]);
        Outcome o = assertTimeoutPreemptively(java.time.Duration.ofSeconds(5), () -> Outcome.read(j.dir));
        assertEquals(null, o.error, () -> "error: " + o.error.getMessage());
        assertEquals(EVENTS, o.seqs.size());
    }

    /**
     * Reading from an index goes through Chronicle's own index when the plain reader cannot follow it; what
     * Chronicle then meets (a mapped page past the end of a cut file, a store header it cannot parse) came out as
     * a memory fault or an exception of Chronicle's, named by no file ({@code stats}: "ERR: memory fault on a
     * mapped journal file", "ERR: unexpected net.openhft...IORuntimeException ... Unknown_0x9F").
     */
    @ParameterizedTest
    @ValueSource(strings = {"cut before it", "store header padding"})
    void damageMetOnTheWayToAnIndexIsNamedWithItsFile(String damage) throws IOException {
        Journal j = Journal.write(work.resolve("journal"), EVENTS);
        List<Long> indexes = new ArrayList<>();
        try (JournalReader r = JournalReader.open(j.dir)) {
            r.fromStart().readAll((i, e) -> indexes.add(i));
        }
        if (damage.equals("cut before it")) {
            try (RandomAccessFile f = new RandomAccessFile(j.cycleFile.toFile(), "rw")) {
                f.setLength(j.excerpts.get(EVENTS / 2).header + 17);
            }
        } else {
            long at = offsetAfter(j.cycleFile, "index2Index");
            overwrite(j.cycleFile, at, new byte[] {(byte) (readByte(j.cycleFile, at) ^ 0x10)}); // padding 0x8f -> 0x9f
        }
        List<Long> read = new ArrayList<>();
        JournalException e = assertThrows(JournalException.class, () -> {
            try (JournalReader r = JournalReader.open(j.dir)) {
                if (r.fromIndex(indexes.get(EVENTS - 10))) {
                    r.readAll((i, ev) -> read.add(i));
                }
            }
        });
        assertMessage(e, "dir=" + j.dir, "file=" + j.cycleFile.getFileName());
        assertTrue(!e.getMessage().matches("(?s).*\\b(java|net)\\.[a-z]+\\.[A-Za-z.]*(Exception|Error)\\b.*"),
                "no exception class names: " + e.getMessage());
    }

    /** stats reads from close-index entries: it said "close-index names index=... but the journal has no such excerpt". */
    @Test
    void readingFromAnIndexInACycleFileWithoutAStoreHeaderNamesTheFile() throws IOException {
        Journal j = Journal.write(work.resolve("journal"), EVENTS);
        long[] tenth = {-1};
        try (JournalReader r = JournalReader.open(j.dir)) {
            r.fromStart().readAll((i, e) -> {
                tenth[0] = i;
                return ((MailboxTransition) e).seq() < 10;
            });
        }
        Files.write(j.cycleFile, new byte[0]);
        JournalCorruptException e = assertThrows(JournalCorruptException.class, () -> {
            try (JournalReader r = JournalReader.open(j.dir)) {
                r.fromIndex(tenth[0]);
            }
        });
        assertMessage(e, "dir=" + j.dir, "file=" + j.cycleFile.getFileName(), "0 bytes long");
    }

    private static long offsetAfter(Path file, String field) throws IOException {
        byte[] head = new byte[512];
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.readFully(head);
        }
        int at = new String(head, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf(field);
        assertTrue(at > 0, field + " in the store header");
        return at + field.length();
    }

    /** Header positions of the metadata excerpts from byte 0 up to the first data excerpt. */
    private static List<Long> metadataBeforeFirstEvent(Path cycleFile) throws IOException {
        List<Long> out = new ArrayList<>();
        try (RandomAccessFile f = new RandomAccessFile(cycleFile.toFile(), "r")) {
            long p = 0;
            while (true) {
                f.seek(p);
                int header = Integer.reverseBytes(f.readInt());
                if ((header & 0x40000000) == 0) {
                    return out;
                }
                out.add(p);
                p = (p + 4 + (header & 0x3FFFFFFF) + 3) & ~3L;
            }
        }
    }

    private static int readByte(Path file, long at) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.seek(at);
            return f.read();
        }
    }

    // ---- events from a newer Vigil --------------------------------------------------------------

    @Test
    void anEventTypeIdNewerThanTheReaderIsAClearErrorAfterTheEventsBeforeIt() {
        Journal j = Journal.write(work.resolve("journal"), 100);
        appendRaw(j.dir, 999, 1);
        Outcome o = Outcome.read(j.dir);
        o.assertPrefixThenCorrupt(j, 100);
        assertMessage(o.error, "unknown event type id=999");
    }

    @Test
    void aLayoutVersionNewerThanTheReaderIsAClearErrorAfterTheEventsBeforeIt() {
        Journal j = Journal.write(work.resolve("journal"), 100);
        appendRaw(j.dir, EventType.CHILD_REAPED.id(), EventType.CHILD_REAPED.version() + 1);
        Outcome o = Outcome.read(j.dir);
        o.assertPrefixThenCorrupt(j, 100);
        assertMessage(o.error, "ChildReaped (type id=15) has layout version=" + (EventType.CHILD_REAPED.version() + 1),
                "newer Vigil");
    }

    /** Writes an excerpt with a valid header layout but a type or schema this reader does not know, then a good event. */
    private static void appendRaw(Path dir, int typeId, int layoutVersion) {
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir.toFile()).build();
             ExcerptAppender a = q.createAppender()) {
            try (DocumentContext dc = a.writingDocument()) {
                dc.wire().bytes().write(RawEvents.checksummed(typeId, layoutVersion, RawEvents.somePayload()));
            }
            try (DocumentContext dc = a.writingDocument()) {
                EventCodec.write(JournalWriterProcess.event("D", 1, 100_000), dc.wire().bytes());
            }
        }
    }

    // ---- support --------------------------------------------------------------------------------

    private static void overwrite(Path file, long at, byte[] bytes) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            f.write(bytes);
        }
    }

    static void assertMessage(Throwable e, String... parts) {
        for (String p : parts) {
            assertTrue(e.getMessage() != null && e.getMessage().contains(p),
                    "message lacks \"" + p + "\": " + e.getMessage());
        }
    }

    /** Where one data excerpt sits in the cycle file: its header, and the end of its body. */
    record Excerpt(long header, long end) {
    }

    /** A journal of {@code n} events with seq 0..n-1 in one cycle file, and where each excerpt is. */
    record Journal(Path dir, Path cycleFile, List<Excerpt> excerpts) {
        static Journal write(Path dir, int n) {
            try (JournalWriter w = JournalWriter.open(dir)) {
                for (int i = 0; i < n; i++) {
                    w.append(JournalWriterProcess.event("D", 1, i));
                }
            }
            List<Excerpt> excerpts = new ArrayList<>();
            try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir.toFile()).readOnly(true).build();
                 ExcerptTailer t = q.createTailer()) {
                while (true) {
                    try (DocumentContext dc = t.readingDocument()) {
                        if (!dc.isPresent()) {
                            break;
                        }
                        Bytes<?> b = dc.wire().bytes();
                        excerpts.add(new Excerpt(b.readPosition() - 4, b.readLimit()));
                    }
                }
            }
            assertEquals(n, excerpts.size());
            try (Stream<Path> files = Files.list(dir)) {
                List<Path> cycles = files.filter(p -> p.toString().endsWith(".cq4")).toList();
                assertEquals(1, cycles.size(), "one cycle file: " + cycles);
                return new Journal(dir, cycles.get(0), excerpts);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }

        /** How many excerpts lie wholly before byte {@code at}. */
        int wholeBefore(long at) {
            int n = 0;
            while (n < excerpts.size() && excerpts.get(n).end <= at) {
                n++;
            }
            return n;
        }
    }

    /** What a reader got from a journal: the seq of each event, and the error that ended it. */
    record Outcome(List<Long> seqs, JournalException error) {
        static Outcome read(Path dir) {
            List<Long> seqs = new ArrayList<>();
            try (JournalReader r = JournalReader.open(dir)) {
                r.fromStart().readAll((i, e) -> seqs.add(((MailboxTransition) e).seq()));
            } catch (JournalException e) {
                return new Outcome(seqs, e);
            }
            return new Outcome(seqs, null);
        }

        /**
         * The reader delivered events 0..whole-1 (a garbled region may decode into more before
         * the damage shows) and then failed with a corrupt-journal error naming dir, file and index.
         */
        void assertPrefixThenCorrupt(Journal j, int whole) {
            if (error == null) {
                fail("no error: the reader delivered " + seqs.size() + " events and stopped silently; "
                        + "whole events before the damage=" + whole);
            }
            assertInstanceOf(JournalCorruptException.class, error, () -> "wrong kind of error: " + error);
            assertTrue(seqs.size() >= whole, "delivered " + seqs.size() + " events, but " + whole
                    + " whole ones precede the damage; error: " + error.getMessage());
            for (int i = 0; i < whole; i++) {
                assertEquals(i, seqs.get(i), "event " + i);
            }
            assertMessage(error, "dir=" + j.dir, "file=" + j.cycleFile.getFileName(), "index=");
        }
    }
}
