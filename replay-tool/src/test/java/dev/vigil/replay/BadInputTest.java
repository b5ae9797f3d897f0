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
        Path full = tmp.resolve("full");
        Scenarios.survivors(full);
        journal = tmp.resolve("journal");
        JournalFiles.copyCompact(full, journal);
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
        Path marker = newer.resolve(JournalSchema.MARKER_FILE);
        Properties p = new Properties();
        try (var in = Files.newInputStream(marker)) {
            p.load(in);
        }
        p.setProperty("schemaVersion", Integer.toString(JournalSchema.VERSION + 1));
        try (var out = Files.newOutputStream(marker)) {
            p.store(out, null);
        }
        assertEveryCommandRefuses(newer, "newer than this reader");
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

    /** Each command either answers (exit 0/1, nothing on stderr) or prints one ERR: line with exit 2. */
    static void assertAnsweredCleanly(Path dir) {
        for (String[] args : everyCommandOn(dir, dir.getParent())) {
            CliRun run = CliRun.of(args);
            boolean answered = (run.exit() == 0 || run.exit() == 1) && run.err().isEmpty();
            assertTrue(answered || run.isOneErrLine(), () -> String.join(" ", args) + "\n" + run);
        }
    }
}
