package dev.vigil.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child's stderr tail is what that child wrote: log files are appended to across runs and restarts, so the tail
 * begins where the file stood before the spawn (ChildLog.Mark), follows a rotation made since, and takes a file
 * truncated since (keep 0) whole. It used to show the last lines of the file, an earlier run's included.
 */
@Timeout(10)
class ChildLogTailTest {
    @TempDir
    Path dir;

    private static void append(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    void anEarlierRunsLinesAreNotTheChilds() throws IOException {
        Path err = dir.resolve("g-0.err");
        append(err, "sleep: invalid time interval ''\nTry 'sleep --help' for more information.\n");
        ChildLog.Mark before = ChildLog.Mark.of(err);
        assertNull(ChildLog.tail(err, before), "nothing written since the mark");
        append(err, "fatal: no config key db.url\n");
        assertEquals("fatal: no config key db.url", ChildLog.tail(err, before));
    }

    @Test
    void aFileThatDidNotExistIsTheChildsWhole() throws IOException {
        Path err = dir.resolve("g-0.err");
        ChildLog.Mark before = ChildLog.Mark.of(err);
        append(err, "one\ntwo\n");
        assertEquals("one\ntwo", ChildLog.tail(err, before));
    }

    @Test
    void aRotationSinceTheMarkKeepsTheChildsLinesOfTheRotatedFileOnly() throws IOException {
        Path err = dir.resolve("g-0.err");
        Path rotated = dir.resolve("g-0.err.1");
        append(rotated, "an older rotation\n");
        append(err, "an earlier run\n");
        ChildLog.Mark before = ChildLog.Mark.of(err);
        append(err, "mine 1\n");
        assertEquals("mine 1", ChildLog.tail(err, before), "no rotation since the mark: file.1 is not the child's");
        Files.move(rotated, dir.resolve("g-0.err.2"));
        Files.move(err, rotated);
        append(err, "mine 2\n");
        assertEquals("mine 1\nmine 2", ChildLog.tail(err, before));
    }

    @Test
    void aFileTruncatedSinceTheMarkIsTheChilds() throws IOException {
        Path err = dir.resolve("g-0.err");
        append(err, "an earlier run, longer than what follows\n");
        ChildLog.Mark before = ChildLog.Mark.of(err);
        Files.writeString(err, "cut\n", StandardOpenOption.TRUNCATE_EXISTING);
        assertEquals("cut", ChildLog.tail(err, before));
    }
}
