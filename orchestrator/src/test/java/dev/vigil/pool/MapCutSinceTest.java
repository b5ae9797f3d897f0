package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one question behind a fault's repair (per thread) and a start's readiness check (per start): was the mailbox map
 * cut since the restore count a caller saw last? A cut met by another caller first is still told, once.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MapCutSinceTest {
    @TempDir
    Path tmp;

    @Test
    void aCutRestoredByAnotherCallerIsToldToEachCallerThatSawTheCountBeforeIt() throws Exception {
        try (Orchestrator o = Orchestrator.builder().journalDir(tmp.resolve("journal")).open()) {
            long[] startBegan = {o.mailboxes().restores().count()};
            long[] thread = {o.mailboxes().restores().count()};
            assertNull(o.cutSince(new long[] {startBegan[0]}), "nothing cut");
            Path map = o.mailboxes().mapFile();
            try (FileChannel f = FileChannel.open(map, StandardOpenOption.WRITE)) {
                f.truncate(f.size() / 2); // a child's ftruncate; nothing reads the cut part here
            }
            String restored = o.repairAfterMemoryFault(); // the caller that meets the cut first restores it
            assertNotNull(restored, "the cut is found and the length restored");
            assertEquals(restored, o.cutSince(startBegan), "the start that began before it is told");
            assertEquals(restored, o.cutSince(thread), "and so is a thread that asked before it");
            assertNull(o.cutSince(thread), "once: that thread has seen it now");
        }
    }
}
