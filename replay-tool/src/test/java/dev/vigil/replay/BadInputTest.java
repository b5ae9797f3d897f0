package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.journal.JournalSchema;
import dev.vigil.journal.RawEvents;

import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

/** Input the tool cannot use gives one ERR: line and exit code 2: no stack trace, no hang. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BadInputTest {
    @TempDir
    static Path tmp;

    static Path journal;

    @BeforeAll
    static void writeAJournal() {
        journal = compactJournal("journal", Scenarios::survivors);
    }

    /** A scenario's journal, written in {@code name}-full and copied compact to {@code name}. */
    private static Path compactJournal(String name, java.util.function.Consumer<Path> scenario) {
        Path full = tmp.resolve(name + "-full");
        scenario.accept(full);
        Path compact = tmp.resolve(name);
        JournalFiles.copyCompact(full, compact);
        return compact;
    }

    /** Every command that reads a journal, on {@code dir}. */
    private static List<String[]> everyCommandOn(Path dir, Path out) {
        String d = dir.toString();
        return List.of(new String[] {"closes", d}, new String[] {"show", d, "1"}, new String[] {"audit", d},
                new String[] {"stats", d}, new String[] {"export", d},
                new String[] {"timeline", d, "1", "-o", out.resolve("t.svg").toString()},
                new String[] {"tail", d, "--from-start", "--idle-exit", "0.2"});
    }

    private static void assertEveryCommandRefuses(Path dir, String expected) {
        for (String[] args : everyCommandOn(dir, tmp)) {
            CliRun run = CliRun.of(args);
            assertTrue(run.isOneErrLine(), () -> String.join(" ", args) + "\n" + run);
            assertTrue(run.err().contains(expected), () -> String.join(" ", args) + " should say '" + expected + "'\n" + run);
            assertTrue(run.out().isBlank(), () -> String.join(" ", args) + " printed before refusing\n" + run);
        }
    }

    @Test
    void aMissingDirectoryIsRefusedByEveryCommand() {
        assertEveryCommandRefuses(tmp.resolve("no-such-journal"), "does not exist");
    }

    @Test
    void aFileInsteadOfADirectoryIsRefusedByEveryCommand() throws IOException {
        Path file = Files.writeString(tmp.resolve("a-file"), "not a journal");
        assertEveryCommandRefuses(file, "is a file");
    }

    @Test
    void aDirectoryThatIsNoJournalIsRefused() throws IOException {
        assertEveryCommandRefuses(Files.createDirectories(tmp.resolve("empty")), "is not a Vigil journal");
    }

    @Test
    void anUnknownCloseIdIsRefusedNamingTheClosesThatExist() {
        CliRun run = CliRun.of("show", journal.toString(), "42");
        assertTrue(run.isOneErrLine(), run::toString);
        assertTrue(run.err().contains("close id=42 is not in journal"), run::toString);
        CliRun timeline = CliRun.of("timeline", journal.toString(), "42", "-o", tmp.resolve("x.svg").toString());
        assertTrue(timeline.isOneErrLine(), timeline::toString);
    }

    @Test
    void anOutputFileThatCannotBeWrittenIsOneErrLineInPlainWords() throws java.io.IOException {
        java.util.regex.Matcher id = java.util.regex.Pattern.compile("\"closeId\":(\\d+)")
                .matcher(CliRun.of("closes", "--json", journal.toString()).out());
        assertTrue(id.find(), "the journal has a close");
        CliRun run = CliRun.of("timeline", journal.toString(), id.group(1), "-o", tmp.resolve("no-such-dir/t.svg").toString());
        assertTrue(run.isOneErrLine(), run::toString);
        assertTrue(run.err().contains("its directory does not exist") && !run.err().contains("Exception"), run::toString);
        Path aFile = tmp.resolve("a-file");
        java.nio.file.Files.writeString(aFile, "x");
        CliRun underAFile = CliRun.of("timeline", journal.toString(), id.group(1), "-o", aFile.resolve("t.svg").toString());
        assertTrue(underAFile.isOneErrLine(), underAFile::toString);
        assertTrue(underAFile.err().contains("Not a directory") && !underAFile.err().contains("Exception"), underAFile::toString);
    }

    @Test
    void badArgumentsAreOneErrLine() {
        for (String[] args : List.of(new String[] {"show", journal.toString(), "not-a-number"}, new String[] {"show"},
                new String[] {"timeline", journal.toString(), "1"}, new String[] {"no-such-command"}, new String[] {},
                new String[] {"timeline", journal.toString(), "1", "-o", tmp.resolve("x.png").toString()})) {
            CliRun run = CliRun.of(args);
            assertTrue(run.isOneErrLine(), () -> String.join(" ", args) + "\n" + run);
        }
    }

    /** tail followed for ever on --limit 0 or a negative one (or --idle-exit -1), and stopped at once on NaN, exit 0. */
    @Test
    void tailRefusesALimitOrIdleTimeOutOfRange() {
        String d = journal.toString();
        for (String[] args : List.of(new String[] {"tail", d, "--from-start", "--limit", "0"},
                new String[] {"tail", d, "--from-start", "--limit", "-1"}, new String[] {"tail", d, "--idle-exit", "-1"},
                new String[] {"tail", d, "--idle-exit", "NaN"}, new String[] {"tail", d, "--idle-exit", "Infinity"})) {
            CliRun run = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
                    () -> CliRun.of(args), () -> String.join(" ", args));
            assertTrue(run.isOneErrLine() && run.out().isEmpty(), () -> String.join(" ", args) + "\n" + run);
        }
    }

    @Test
    void aJournalFromANewerSchemaIsRefused() throws IOException {
        Path newer = tmp.resolve("newer-marker");
        JournalFiles.copyCompact(journal, newer);
        setMarkerSchemaVersion(newer, JournalSchema.VERSION + 1);
        assertEveryCommandRefuses(newer, "newer than this reader");
    }

    /** Rewrites the schemaVersion of the journal marker in {@code dir}; returns the marker file. */
    private static Path setMarkerSchemaVersion(Path dir, int version) throws IOException {
        Path marker = dir.resolve(JournalSchema.MARKER_FILE);
        Properties p = new Properties();
        try (var in = Files.newInputStream(marker)) {
            p.load(in);
        }
        p.setProperty("schemaVersion", Integer.toString(version));
        try (var out = Files.newOutputStream(marker)) {
            p.store(out, null);
        }
        return marker;
    }

    /** A marker's schemaVersion of 0 or -1 (no journal has one) is refused naming the field: it was read as schema 1. */
    @Test
    void aJournalMarkerWithASchemaVersionBelowOneIsRefused() throws IOException {
        for (int version : new int[] {0, -1}) {
            Path dir = tmp.resolve("marker-version" + version);
            JournalFiles.copyCompact(journal, dir);
            Path marker = setMarkerSchemaVersion(dir, version);
            assertEveryCommandRefuses(dir, "marker file=" + marker + " has schemaVersion=" + version
                    + ", which no journal has (this reader reads schemaVersion 1 to " + JournalSchema.VERSION + ")");
        }
    }

    @Test
    void anEventTypeFromANewerSchemaStopsTheReadWithPartialResults() {
        Path dir = tmp.resolve("newer-event");
        JournalFiles.copyCompact(journal, dir);
        appendRawExcerpt(dir, 99, 1);
        CliRun closes = CliRun.of("closes", dir.toString());
        assertTrue(closes.isOneErrLine(), closes::toString);
        assertTrue(closes.err().contains("unknown event type id=99"), closes::toString);
        assertEquals(6, closes.out().lines().count(), "header and the five closes before the damage: " + closes);
        CliRun audit = CliRun.of("audit", dir.toString());
        assertTrue(audit.isOneErrLine(), audit::toString);
        CliRun show = CliRun.of("show", dir.toString(), "5");
        assertEquals(0, show.exit(), "the close lies before the damage and is found through the index: " + show);
    }

    /** Writes one excerpt with the given header, as a newer Vigil would. */
    static void appendRawExcerpt(Path dir, int typeId, int layoutVersion) {
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir.toFile()).build();
                ExcerptAppender a = q.createAppender();
                DocumentContext dc = a.writingDocument()) {
            dc.wire().bytes().write(RawEvents.checksummed(typeId, layoutVersion, RawEvents.somePayload()));
        }
    }

    @Test
    void aTruncatedCycleFileGivesPartialResultsOrOneErrLine() throws IOException {
        Path dir = tmp.resolve("truncated");
        JournalFiles.copyCompact(journal, dir);
        Path cycle = JournalFiles.cycleFiles(dir).get(0);
        long used = JournalFiles.usedLength(cycle);
        try (RandomAccessFile f = new RandomAccessFile(cycle.toFile(), "rw")) {
            f.setLength(used - 1500);
        }
        for (String[] args : everyCommandOn(dir, tmp)) {
            if (args[0].equals("tail") || args[0].equals("show") || args[0].equals("timeline")) {
                continue; // tail follows what is there; show (and timeline, its picture) below
            }
            CliRun run = CliRun.of(args);
            assertTrue(run.isOneErrLine(), () -> String.join(" ", args) + "\n" + run);
            assertTrue(run.err().contains("truncated"), () -> String.join(" ", args) + "\n" + run);
        }
        CliRun closes = CliRun.of("closes", dir.toString());
        assertTrue(closes.out().lines().count() > 1, "closes before the cut are listed: " + closes);
        CliRun before = CliRun.of("show", dir.toString(), "1");
        assertEquals(0, before.exit(), "a close wholly before the cut is shown: " + before);
        CliRun cut = CliRun.of("show", dir.toString(), "5");
        assertTrue(cut.isOneErrLine() && cut.err().contains("truncated"), cut::toString);
        assertTrue(cut.out().contains("INCOMPLETE"), "the close cut in two is shown as far as it goes: " + cut);
    }

    @Test
    void aGarbledCycleFileGivesPartialResultsOrOneErrLine() throws IOException {
        Path dir = tmp.resolve("garbled");
        JournalFiles.copyCompact(journal, dir);
        Path cycle = JournalFiles.cycleFiles(dir).get(0);
        long used = JournalFiles.usedLength(cycle);
        try (RandomAccessFile f = new RandomAccessFile(cycle.toFile(), "rw")) {
            f.seek(used - 2000);
            byte[] junk = new byte[300];
            new java.util.Random(7).nextBytes(junk);
            f.write(junk);
        }
        CliRun audit = CliRun.of("audit", dir.toString());
        assertTrue(audit.isOneErrLine(), audit::toString);
        assertAnsweredCleanly(dir);
    }

    /**
     * A close index entry whose journal index is garbled (here raised into a cycle far past today) is named as the
     * index entry it is, by file, entry index and byte: it used to send readers after a cycle file that never existed
     * ("file=+6012790403F.cq4 is missing"). Every event is still read first; exit 2. Both an entry with entries after
     * it and the last entry (no successor to compare with).
     */
    @Test
    void aGarbledCloseIndexEntryIsNamedAsTheIndexEntryNotAMissingCycleFile() throws IOException {
        Path clean = tmp.resolve("index-clean");
        JournalFiles.copyCompact(journal, clean);
        String cleanCloses = CliRun.of("closes", clean.toString()).out();
        Path indexFile = JournalFiles.cycleFiles(clean.resolve(JournalSchema.CLOSE_INDEX_DIR)).get(0);
        List<Long> entries = dataExcerptHeaders(indexFile);
        assertTrue(entries.size() > 3, "the index has entries: " + entries);
        // little-endian journal indexes: one raised into a cycle far past today, one negative (its cycle no 31-bit
        // number: Chronicle's toCycle threw, "ERR: unexpected java.lang.ArithmeticException: Unsigned Int 31-bit ...")
        byte[][] garbles = {{0x12, 0x34, 0x56, 0x78, (byte) 0x9a, 0x0b, 0x0c, 0x0d},
                            {0x12, 0x34, 0x56, 0x78, (byte) 0x9a, 0x0b, 0x0c, (byte) 0xa0}};
        for (int n = 0; n < 4; n++) {
            int which = n % 2 == 0 ? 1 : entries.size() - 1;
            Path dir = tmp.resolve("index-garbled-" + n);
            JournalFiles.copyCompact(journal, dir);
            long header = entries.get(which);
            Path file = dir.resolve(JournalSchema.CLOSE_INDEX_DIR).resolve(indexFile.getFileName());
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                int bodyLength = Integer.reverseBytes(readIntAt(f, header)) & 0x3FFFFFFF;
                f.seek(header + 4 + bodyLength - 8); // the entry's journal index, its last field
                f.write(garbles[n / 2]);
            }
            for (String[] args : List.of(new String[] {"audit", dir.toString()}, new String[] {"stats", dir.toString()},
                    new String[] {"show", dir.toString(), "1"}, new String[] {"closes", dir.toString()})) {
                CliRun run = CliRun.of(args);
                String what = "entry " + which + " at byte=" + header + ": " + String.join(" ", args) + "\n" + run;
                assertTrue(run.isOneErrLine(), what);
                assertTrue(run.err().contains("close index file=" + JournalSchema.CLOSE_INDEX_DIR + "/"
                        + indexFile.getFileName()) && run.err().contains("(byte=" + header + ") is damaged"), what);
                assertTrue(!run.err().contains("is missing"), what);
                assertTrue(args[0].equals("audit") ? run.err().contains("every event up to index=")
                        : !run.out().isBlank(), "the events before the damage are shown: " + what);
            }
            assertEquals(cleanCloses, CliRun.of("closes", dir.toString()).out(), "every close is still listed");
        }
    }

    /**
     * A cycle file of another journal copied in under the name of a day after this journal's, or before it, is named
     * (its close used to be listed and audit said CLEAN): this journal's close index records every cycle its writer
     * wrote to, and not that one.
     */
    @Test
    void aCycleFileOfAnotherJournalIsNamedNotMerged() throws IOException {
        Path foreign = JournalFiles.cycleFiles(compactJournal("other", Scenarios::clean)).get(0);
        String own = JournalFiles.cycleFiles(journal).get(0).getFileName().toString();
        java.time.LocalDate day = java.time.LocalDate.parse(own.substring(0, 8), java.time.format.DateTimeFormatter.BASIC_ISO_DATE);
        for (java.time.LocalDate d : List.of(day.plusDays(1), day.minusDays(1))) {
            String name = d.format(java.time.format.DateTimeFormatter.BASIC_ISO_DATE) + "F.cq4";
            Path dir = tmp.resolve("foreign-" + name);
            JournalFiles.copyCompact(journal, dir);
            Files.copy(foreign, dir.resolve(name));
            for (String[] args : List.of(new String[] {"audit", dir.toString()}, new String[] {"closes", dir.toString()},
                    new String[] {"stats", dir.toString()}, new String[] {"export", dir.toString()})) {
                CliRun run = CliRun.of(args);
                String what = String.join(" ", args) + "\n" + run;
                assertTrue(run.isOneErrLine(), what);
                assertTrue(run.err().contains("file=" + name + " holds ") && run.err().contains("a cycle file of another journal"),
                        what);
            }
        }
    }

    private static int readIntAt(RandomAccessFile f, long at) throws IOException {
        f.seek(at);
        return f.readInt();
    }

    /** Byte positions of the headers of a cycle file's data excerpts (metadata skipped), in file order. */
    static List<Long> dataExcerptHeaders(Path cycleFile) throws IOException {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(Files.readAllBytes(cycleFile)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        List<Long> out = new java.util.ArrayList<>();
        int at = 0;
        while (at + 4 <= b.limit()) {
            int header = b.getInt(at);
            if (header == 0) {
                break;
            }
            if ((header & 0x40000000) == 0) {
                out.add((long) at);
            }
            at = (at + 4 + (header & 0x3FFFFFFF) + 3) & ~3;
        }
        return out;
    }

    /** Each command either answers (exit 0/1, nothing on stderr) or prints one ERR: line with exit 2. */
    static void assertAnsweredCleanly(Path dir) {
        for (String[] args : everyCommandOn(dir, dir.getParent())) {
            CliRun run = CliRun.of(args);
            boolean answered = (run.exit() == 0 || run.exit() == 1) && run.err().isEmpty();
            assertTrue(answered || run.isOneErrLine(), () -> String.join(" ", args) + "\n" + run);
        }
    }
}
