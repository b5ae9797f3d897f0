package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link JournalException#plain}: the one place a failure becomes a user's line; files and reasons, never class names. */
class PlainMessageTest {
    @TempDir
    Path dir;

    @Test
    void aMissingFileIsNamedWithTheSystemsWords() {
        IOException e = assertThrowsIo(() -> Files.readAllBytes(dir.resolve("absent.json")));
        assertEquals(dir.resolve("absent.json") + ": no such file or directory", JournalException.plain(e));
    }

    @Test
    void aFileSystemRefusalNamesTheFileAndTheReason() throws IOException {
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        IOException e = assertThrowsIo(() -> Files.createDirectories(file.resolve("sub")));
        String line = JournalException.plain(e);
        assertTrue(line.startsWith(file.toString()), line);
        assertFalse(line.contains("Exception"), line);
    }

    @Test
    void aFileWhereADirectoryShouldBeIsSaidSo() throws IOException {
        Path file = Files.writeString(dir.resolve("journal-as-a-file"), "x");
        IOException e = assertThrowsIo(() -> Files.createDirectories(file));
        assertEquals(file + ": already exists and is not a directory", JournalException.plain(e));
    }

    @Test
    void aMessagelessFailureNeverFallsBackToItsClassName() {
        String line = JournalException.plain(new IllegalStateException());
        assertFalse(line.contains("IllegalStateException"), line);
        assertEquals("no detail given", line);
    }

    @Test
    void controlCharactersAreShownNotPrinted() {
        assertEquals("bad\\u0000byte", JournalException.plain(new IllegalArgumentException("bad\u0000byte")));
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private static IOException assertThrowsIo(IoAction action) {
        try {
            action.run();
        } catch (IOException e) {
            return e;
        }
        throw new AssertionError("expected an IOException");
    }
}
