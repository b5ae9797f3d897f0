package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.openhft.chronicle.bytes.Bytes;

/** The packed batch of drained transitions: what goes in comes out as the MailboxTransition events it stands for. */
@Timeout(60)
class MailboxTransitionBatchTest {
    private static final String WRITERS = "NONE PARENT CHILD CLOSER";

    /** Transitions of one mailbox as the drainer would pack them: seq 1.., three writers, pids beyond 2^31 too. */
    private static List<MailboxTransition> sample(int n) {
        List<MailboxTransition> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int writer = 1 + i % 3;
            out.add(new MailboxTransition(1_000_000_000L + 37L * i, 4711, "pool-1", 9, "chips", 3, i + 1L, i % 8, (i + 1) % 8,
                    WRITERS.split(" ")[writer], i == 5 ? -2 : 100 + i));
        }
        return out;
    }

    private static MailboxTransitionBatch pack(List<MailboxTransition> ts) {
        MailboxTransitionBatch.Builder b = new MailboxTransitionBatch.Builder();
        for (MailboxTransition t : ts) {
            b.add(t.seq(), t.timeNanos(), t.fromState(), t.toState(), List.of(WRITERS.split(" ")).indexOf(t.writer()),
                    t.writerPid());
        }
        return b.build(4711, "pool-1", 9, "chips", 3, WRITERS);
    }

    @Test
    void aBatchReadsBackAsTheTransitionsItWasBuiltFrom() {
        List<MailboxTransition> ts = sample(200); // more than the builder's first array
        MailboxTransitionBatch batch = pack(ts);
        assertEquals(200, batch.size());
        assertEquals(ts.get(0).timeNanos(), batch.timeNanos(), "the batch's time is its first transition's");
        assertEquals(ts, batch.transitions());
        assertEquals(ts, MailboxTransitionBatch.expand(batch));
        assertEquals(List.of(ts.get(7)), MailboxTransitionBatch.expand(ts.get(7)));
        assertEquals(List.of(), MailboxTransitionBatch.expand(new RingOverrun(1, 2, "p", 0, "g", 0, 1, 1)));

        Bytes<?> bytes = Bytes.allocateElasticOnHeap(256);
        EventCodec.write(batch, bytes);
        assertEquals(EventCodec.FIELDS_OFFSET + 8 + 4 + 7 + 8 + 6 + 4 + 25 + 2 + 200 * 24, bytes.readRemaining(),
                "the header, the common fields, group, index, the writer names and 24 bytes a transition");
        MailboxTransitionBatch back = (MailboxTransitionBatch) EventCodec.read(bytes);
        assertEquals(batch, back);
        assertEquals(ts, back.transitions());

        MailboxTransitionBatch fromJson = (MailboxTransitionBatch) JsonEvents.fromJson(JsonEvents.toJson(batch));
        assertEquals(ts, fromJson.transitions());
    }

    @Test
    void aWriterCodeTheBatchDoesNotNameReadsAsUnknown() {
        MailboxTransitionBatch.Builder b = new MailboxTransitionBatch.Builder();
        b.add(1, 10, 0, 4, 7, 42);
        assertEquals("UNKNOWN(7)", b.build(1, "p", 0, "g", 0, WRITERS).transitions().get(0).writer());
    }

    @Test
    void recordsThatAreNotWholeTransitionsAreRefusedInPlainWords() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new MailboxTransitionBatch(1, 2, "p", 0, "g", 0, WRITERS, new byte[25]));
        assertTrue(e.getMessage().contains("25 bytes, not a whole number of 24-byte transitions"), e.getMessage());
        // the same in a body: a reader names the kind, no stack trace, no huge allocation from a damaged length
        Bytes<?> bytes = Bytes.allocateElasticOnHeap(256);
        EventCodec.write(pack(sample(2)), bytes);
        byte[] body = bytes.toByteArray();
        int lengthAt = body.length - 48 - 1; // the stop-bit length of 48 bytes is one byte
        assertEquals(48, body[lengthAt]);
        body[lengthAt] = 47;
        EventCodecFormatTest.withCrc(body); // only the length is wrong
        EventCodec.UnreadableEventException bad = assertThrows(EventCodec.UnreadableEventException.class,
                () -> EventCodec.read(Bytes.wrapForRead(body)));
        assertTrue(bad.getMessage().contains("MailboxTransitionBatch"), bad.getMessage());
    }

    @Test
    void aBatchGoesThroughAJournalFileBesideTheOldSingleEvents(@TempDir Path dir) {
        List<MailboxTransition> ts = sample(MailboxTransitionBatch.MAX_TRANSITIONS);
        List<JournalEvent> written = List.of(ts.get(0), pack(ts.subList(1, ts.size())), ts.get(1));
        try (JournalWriter w = JournalWriter.open(dir)) {
            written.forEach(w::append);
        }
        List<JournalEvent> read = new ArrayList<>();
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().readAll((i, e) -> read.add(e));
        }
        assertEquals(written, read);
        List<MailboxTransition> expanded = new ArrayList<>();
        read.forEach(e -> expanded.addAll(MailboxTransitionBatch.expand(e)));
        List<MailboxTransition> want = new ArrayList<>(ts);
        want.add(ts.get(1));
        assertEquals(want, expanded);
    }
}
