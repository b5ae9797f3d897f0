package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where {@link JournalDirectory#setAside} puts a damaged journal when its name is taken (an earlier set-aside the same
 * second): the next free name, {@code -2}, {@code -3}, never into what is there; every name taken fails in one line
 * and moves nothing. Real directories, real rename(2).
 */
class SetAsideNameTest {
    @TempDir
    Path tmp;

    private static final long AT = 1_796_342_400_123L; // 2026-12-04T00:00:00.123Z

    /** A journal dir with one file, its content naming {@code what}. */
    private Path journalDir(String name, String what) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(name));
        Files.writeString(dir.resolve("content"), what);
        return dir;
    }

    @Test
    void aTakenNameTakesTheNextFreeOneAndNeverWritesIntoTheTakenOnes() throws Exception {
        Path first = JournalDirectory.setAside(journalDir("j", "first"), AT);
        assertEquals(tmp.toRealPath().resolve("j.damaged-20261204T000000Z"), first);
        Path second = JournalDirectory.setAside(journalDir("j", "second"), AT + 500); // the same second
        assertEquals(tmp.toRealPath().resolve("j.damaged-20261204T000000Z-2"), second);
        Path third = JournalDirectory.setAside(journalDir("j", "third"), AT);
        assertEquals(tmp.toRealPath().resolve("j.damaged-20261204T000000Z-3"), third);
        assertEquals("first", Files.readString(first.resolve("content")), "an earlier set-aside is never overwritten");
        assertEquals("second", Files.readString(second.resolve("content")));
        assertEquals("third", Files.readString(third.resolve("content")));
        assertFalse(Files.exists(tmp.resolve("j")), "moved whole");
    }

    @Test
    void everyNameTakenFailsInOneLineAndMovesNothing() throws Exception {
        List<Path> taken = new ArrayList<>();
        taken.add(Files.createDirectory(tmp.resolve("j.damaged-20261204T000000Z")));
        for (int n = 2; n <= JournalDirectory.SET_ASIDE_NAMES; n++) {
            taken.add(Files.createDirectory(tmp.resolve("j.damaged-20261204T000000Z-" + n)));
        }
        Path j = journalDir("j", "mine");
        JournalException refused = assertThrows(JournalException.class, () -> JournalDirectory.setAside(j, AT));
        String line = refused.getMessage();
        assertEquals("the damaged journal dir=" + j.toRealPath() + " cannot be set aside: " + tmp.toRealPath()
                + "/j.damaged-20261204T000000Z and -2 to -" + JournalDirectory.SET_ASIDE_NAMES
                + " exist already (an earlier set-aside is never overwritten); nothing started, start again", line);
        assertEquals("mine", Files.readString(j.resolve("content")), "nothing moved");
        for (Path t : taken) {
            try (var in = Files.list(t)) {
                assertEquals(0, in.count(), "never written into: " + t);
            }
        }
        assertTrue(Files.isDirectory(j));
    }
}
