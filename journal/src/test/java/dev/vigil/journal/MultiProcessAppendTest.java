package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Two writer processes append to one journal at once; readers in a third process see one order. */
@Timeout(120)
class MultiProcessAppendTest {
    private static final int PER_WRITER = 20_000;

    @Test
    void twoProcessesAppendingAtOnceGiveOneStableOrderWithEachWritersEventsInItsOwnOrder(@TempDir Path work)
            throws Exception {
        Path dir = work.resolve("journal");
        Path go = work.resolve("go");
        try (ForkedJvm a = ForkedJvm.start(work, JournalWriterProcess.class, dir.toString(), "A",
                Integer.toString(PER_WRITER), "1000", go.toString());
             ForkedJvm b = ForkedJvm.start(work, JournalWriterProcess.class, dir.toString(), "B",
                Integer.toString(PER_WRITER), "1000", go.toString())) {
            a.awaitLine("ready"::equals, 60_000);
            b.awaitLine("ready"::equals, 60_000);
            Files.createFile(go);

            // A reader that follows the journal while both write.
            List<String> followed = new ArrayList<>();
            long followDeadline = System.nanoTime() + 60_000_000_000L;
            try (JournalReader live = JournalReader.open(dir)) {
                live.fromStart().follow((i, e) -> {
                    followed.add(key(e));
                    return followed.size() < 2 * PER_WRITER;
                }, () -> System.nanoTime() < followDeadline);
            }
            assertEquals(0, a.awaitExit(60_000), "writer A exit code");
            assertEquals(0, b.awaitExit(60_000), "writer B exit code");

            List<String> first = readAll(dir);
            List<String> second = readAll(dir);
            assertEquals(2 * PER_WRITER, first.size(), "events of both writers");
            assertEquals(first, second, "a second read gives the same total order");
            assertEquals(first, followed, "the live reader saw the same order as later readers");
            assertInWriterOrder(first);
            assertInterleaved(first);
        }
    }

    private static String key(JournalEvent e) {
        MailboxTransition t = (MailboxTransition) e;
        return t.writer() + ":" + t.seq();
    }

    private static List<String> readAll(Path dir) {
        List<String> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().readAll((i, e) -> out.add(key(e)));
        }
        return out;
    }

    private static void assertInWriterOrder(List<String> events) {
        Map<String, AtomicLong> next = new HashMap<>();
        for (String k : events) {
            String writer = k.substring(0, k.indexOf(':'));
            long seq = Long.parseLong(k.substring(k.indexOf(':') + 1));
            long expected = next.computeIfAbsent(writer, w -> new AtomicLong()).getAndIncrement();
            assertEquals(expected, seq, "writer " + writer + " out of order");
        }
        assertEquals(PER_WRITER, next.get("A").get());
        assertEquals(PER_WRITER, next.get("B").get());
    }

    /** Not a proof of overlap (2 cores, busy machine), but a journal with one writer's block then the other's would be suspicious. */
    private static void assertInterleaved(List<String> events) throws IOException {
        int switches = 0;
        for (int i = 1; i < events.size(); i++) {
            if (events.get(i).charAt(0) != events.get(i - 1).charAt(0)) {
                switches++;
            }
        }
        assertTrue(switches >= 1, "the writers' events are in one total order; switches=" + switches);
    }
}
