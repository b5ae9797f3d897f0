package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The owner lock file's text names the live writer only while that very process (pid and start time) runs. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class JournalOwnerTest {
    @TempDir
    Path tmp;

    @Test
    void theLockTextNamesTheLiveOwnerOnlyWhileThatVeryProcessRuns() throws Exception {
        Path dir = tmp.resolve("journal");
        Path lock = JournalOwner.sibling(dir, JournalOwner.LOCK_SUFFIX);
        assertEquals(-1, JournalOwner.livePid(dir), "no lock file");
        int self = (int) ProcessHandle.current().pid();
        long ticks = Long.parseLong(JournalOwner.procStatFields(self)[19]);
        write(lock, JournalOwner.lockText(self, ticks));
        assertEquals(self, JournalOwner.livePid(dir));
        write(lock, JournalOwner.lockText(self, ticks + 1));
        assertEquals(-1, JournalOwner.livePid(dir), "same pid, another start: another process");
        Process gone = new ProcessBuilder("true").start(); // not a pool child: a pid that ends
        gone.waitFor(10, TimeUnit.SECONDS);
        write(lock, JournalOwner.lockText((int) gone.pid(), ticks));
        assertEquals(-1, JournalOwner.livePid(dir), "ended");
        write(lock, "garbage\n");
        assertEquals(-1, JournalOwner.livePid(dir));
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
