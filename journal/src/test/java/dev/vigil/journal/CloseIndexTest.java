package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** eventsOfClose finds one close among many through the close index, and by a scan without it. */
@Timeout(60)
class CloseIndexTest {
    private static final int POOLS = 4;
    private static final int CLOSES_PER_POOL = 5;

    @TempDir
    Path dir;

    @Test
    void eventsOfCloseFindsOneCloseAmongManyWithAndWithoutTheIndex() throws IOException {
        writeBusyJournal();
        List<JournalReader.IndexedEvent> all = readAll();
        Map<Long, CloseIndex.Span> spans = CloseIndex.load(dir);
        assertEquals(POOLS * CLOSES_PER_POOL + 1, spans.size(), "one index entry per close");

        for (long closeId : List.of(101L, 203L, 305L, 402L, 999L)) {
            List<JournalReader.IndexedEvent> expected = expectedEventsOf(all, closeId);
            assertTrue(expected.size() >= 2, "close " + closeId + " has events");
            CloseIndex.Span span = spans.get(closeId);
            assertEquals(expected.get(0).index(), span.startIndex(), "index entry of close " + closeId);
            JournalEvent last = expected.get(expected.size() - 1).event();
            if (last instanceof CloseCompleted) {
                assertEquals(expected.get(expected.size() - 1).index(), span.endIndex());
            } else {
                assertEquals(-1, span.endIndex(), "close " + closeId + " never completed");
            }
            try (JournalReader r = JournalReader.open(dir)) {
                assertEquals(expected, r.eventsOfClose(closeId), "close " + closeId + " through the index");
            }
        }

        TestFiles.deleteTree(dir.resolve(JournalSchema.CLOSE_INDEX_DIR));
        assertTrue(CloseIndex.load(dir).isEmpty());
        for (long closeId : List.of(101L, 305L, 999L)) {
            try (JournalReader r = JournalReader.open(dir)) {
                assertEquals(expectedEventsOf(all, closeId), r.eventsOfClose(closeId), "close " + closeId + " by a scan");
            }
        }
    }

    @Test
    void anUnknownCloseHasNoEvents() {
        writeBusyJournal();
        try (JournalReader r = JournalReader.open(dir)) {
            assertEquals(List.of(), r.eventsOfClose(77_777));
        }
    }

    /**
     * Pools p0..p3, each with closes (pool+1)*100+1.., interleaved with every other pool's traffic;
     * close 999 of pool p0 starts last and never completes.
     */
    private void writeBusyJournal() {
        Random random = new Random(7);
        try (JournalWriter w = JournalWriter.open(dir)) {
            long t = 0;
            for (int c = 1; c <= CLOSES_PER_POOL; c++) {
                for (int p = 0; p < POOLS; p++) {
                    String pool = "p" + p;
                    long closeId = (p + 1) * 100L + c;
                    w.append(new CloseStarted(++t, 1, pool, closeId, 3, 1_000, 2_000, 500, "SIGKILL", 0));
                    for (int k = 0; k < 3; k++) {
                        noise(w, random, ++t);
                        w.append(new ShutdownPublished(++t, 1, pool, closeId, "g", k, 10 + k, "mailbox", 1, true, 4));
                        w.append(new MailboxTransition(++t, 1, pool, 0, "g", k, 5, 2, 3, "child", 10 + k));
                        noise(w, random, ++t);
                        w.append(new ChildReaped(++t, 1, pool, closeId, "g", k, 10 + k, 0, 0, 1_000));
                    }
                }
                for (int p = 0; p < POOLS; p++) {
                    w.append(new CloseCompleted(++t, 1, "p" + p, (p + 1) * 100L + c, "CLEAN", 3, 0, 5_000, "{}"));
                    noise(w, random, ++t);
                }
            }
            w.append(new CloseStarted(++t, 1, "p0", 999, 1, 1_000, 2_000, 500, "SIGKILL", 0));
            w.append(new ShutdownPublished(++t, 1, "p0", 999, "g", 0, 10, "mailbox", 1, true, 4));
            noise(w, random, ++t);
        }
    }

    /** Traffic of other pools and of no close, in bulk: the index, not a scan, must find closes fast. */
    private static void noise(JournalWriter w, Random random, long t) {
        for (int i = 0; i < 200; i++) {
            w.append(new MailboxTransition(t, 1, "other-" + random.nextInt(3), 0, "g", i, i, 1, 2, "child", 1));
        }
    }

    /** The definition eventsOfClose implements, applied to a full scan. */
    private static List<JournalReader.IndexedEvent> expectedEventsOf(List<JournalReader.IndexedEvent> all, long closeId) {
        List<JournalReader.IndexedEvent> out = new ArrayList<>();
        String pool = null;
        for (JournalReader.IndexedEvent ie : all) {
            JournalEvent e = ie.event();
            if (e.closeId() == closeId) {
                pool = e.poolId();
                out.add(ie);
                if (e instanceof CloseCompleted) {
                    break;
                }
            } else if (pool != null && e.closeId() == 0 && Objects.equals(pool, e.poolId())) {
                out.add(ie);
            }
        }
        return out;
    }

    private List<JournalReader.IndexedEvent> readAll() {
        List<JournalReader.IndexedEvent> all = new ArrayList<>();
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().readAll((i, e) -> all.add(new JournalReader.IndexedEvent(i, e)));
        }
        return all;
    }

}
