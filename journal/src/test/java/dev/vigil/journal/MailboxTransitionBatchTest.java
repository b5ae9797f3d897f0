package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
        assertEquals(MailboxTransitionBatch.ENCODING_DELTA, batch.encoding());
        assertEquals(200, batch.size());
        assertEquals(ts.get(0).timeNanos(), batch.timeNanos(), "the batch's time is its first transition's");
        assertEquals(ts, batch.transitions());
        assertEquals(ts.subList(17, 101), batch.transitions(17, 101));
        assertEquals(ts, MailboxTransitionBatch.expand(batch));
        assertEquals(List.of(ts.get(7)), MailboxTransitionBatch.expand(ts.get(7)));
        assertEquals(List.of(), MailboxTransitionBatch.expand(new RingOverrun(1, 2, "p", 0, "g", 0, 1, 1)));

        Bytes<?> bytes = Bytes.allocateElasticOnHeap(256);
        EventCodec.write(batch, bytes);
        MailboxTransitionBatch back = (MailboxTransitionBatch) EventCodec.read(bytes);
        assertEquals(batch, back);
        assertEquals(ts, back.transitions());

        MailboxTransitionBatch fromJson = (MailboxTransitionBatch) JsonEvents.fromJson(JsonEvents.toJson(batch));
        assertEquals(ts, fromJson.transitions());
    }

    /**
     * A busy ring (a control's three transitions again and again: parent, child, parent, each a few hundred ns after the
     * one before) packs into 3 bytes a transition, against 24 in layout version 1.
     */
    @Test
    void aBusyRingPacksIntoThreeBytesATransition() {
        MailboxTransitionBatch.Builder b = new MailboxTransitionBatch.Builder();
        int[][] control = {{0, 4, 1}, {4, 5, 2}, {5, 0, 1}};
        long time = 7_000_000_000L;
        for (int i = 0; i < MailboxTransitionBatch.MAX_TRANSITIONS; i++) {
            int[] t = control[i % 3];
            time += 100 + (i * 37) % 700;
            b.add(5_000 + i, time, t[0], t[1], t[2], t[2] == 1 ? 4711 : 4799);
        }
        MailboxTransitionBatch batch = b.build(4711, "p", 0, "g", 0, WRITERS);
        assertTrue(batch.records().length <= 3 * MailboxTransitionBatch.MAX_TRANSITIONS + 24, batch.records().length + " bytes");
        assertEquals(MailboxTransitionBatch.MAX_TRANSITIONS, batch.size());
        assertEquals(5_000 + MailboxTransitionBatch.MAX_TRANSITIONS - 1, batch.transitions().get(1023).seq());
    }

    /**
     * Whatever a ring holds comes back exactly (a forged child writes any word): seeded random transitions, seqs that
     * jump, repeat and go back, times anywhere in 64 bits, any origin word (codes and states above the compact form's,
     * the spare byte, pids above 2^31), and runs of a busy ring between them; one builder for every batch.
     */
    @Test
    void anyRecordWordsComeBackExactly() {
        java.util.Random random = new java.util.Random(20261203);
        MailboxTransitionBatch.Builder b = new MailboxTransitionBatch.Builder(); // reused, as the drainer reuses its own
        for (int round = 0; round < 300; round++) {
            int n = 1 + random.nextInt(300);
            long[][] words = new long[n][];
            long seq = random.nextInt(3) == 0 ? random.nextLong() : random.nextInt(1000);
            long time = random.nextLong();
            for (int i = 0; i < n; i++) {
                int odd = random.nextInt(6); // 0-2: a busy ring; 3: the seq, 4: the time, 5: the origin word is not
                seq = odd != 3 ? seq + 1 : random.nextInt(3) == 0 ? random.nextLong() : seq + random.nextInt(5) - 2;
                time = odd != 4 ? time + random.nextInt(20_000) : random.nextInt(2) == 0 ? random.nextLong() : time - random.nextInt(1000);
                long origin = random.nextInt(8) | random.nextInt(8) << 8 | (1L + random.nextInt(3)) << 16 | (long) (100 + random.nextInt(2)) << 32;
                if (odd == 5) { // any word, or one bit from the compact form: a state, a code, the spare byte, the pid
                    origin = random.nextInt(2) == 0 ? random.nextLong() : origin ^ 1L << (3 + random.nextInt(61));
                }
                words[i] = new long[] {seq, time, origin};
                b.addPacked(seq, time, origin);
            }
            MailboxTransitionBatch batch = b.build(1, "p", 0, "g", 0, WRITERS);
            MailboxTransitionBatch.Reader r = new MailboxTransitionBatch.Reader().reset(batch);
            for (int i = 0; i < n; i++) {
                assertTrue(r.next(), "round " + round + " transition " + i);
                assertEquals(words[i][0], r.seq(), "round " + round + " transition " + i + " seq");
                assertEquals(words[i][1], r.timeNanos(), "round " + round + " transition " + i + " time");
                assertEquals(words[i][2], r.origin(), "round " + round + " transition " + i + " origin");
            }
            assertFalse(r.next());
            assertEquals(n, batch.size());
        }
    }

    /** Journals written before the delta encoding (layout version 1, 24-byte records) read as the same transitions. */
    @Test
    void aBatchOfLayoutVersionOneReadsAsTheSameTransitions() {
        List<MailboxTransition> ts = sample(50);
        byte[] fixed = new byte[ts.size() * MailboxTransitionBatch.RECORD_LENGTH];
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(fixed).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (MailboxTransition t : ts) {
            buffer.putLong(t.seq()).putLong(t.timeNanos()).putLong(t.fromState() | (long) t.toState() << 8
                    | (long) List.of(WRITERS.split(" ")).indexOf(t.writer()) << 16 | (t.writerPid() & 0xFFFF_FFFFL) << 32);
        }
        MailboxTransitionBatch old = new MailboxTransitionBatch(ts.get(0).timeNanos(), 4711, "pool-1", 9, "chips", 3, WRITERS, fixed);
        assertEquals(MailboxTransitionBatch.ENCODING_FIXED, old.encoding());
        assertEquals(50, old.size());
        assertEquals(ts, old.transitions());
        assertEquals(pack(ts).transitions(), old.transitions());
    }

    /** Reading a batch's transitions through a reused Reader allocates nothing (the replay's fold reads every one). */
    @Test
    void aReaderAllocatesNothing() {
        MailboxTransitionBatch delta = pack(sample(MailboxTransitionBatch.MAX_TRANSITIONS));
        MailboxTransitionBatch fixed = new MailboxTransitionBatch(1, 2, "p", 0, "g", 0, WRITERS,
                new byte[MailboxTransitionBatch.RECORD_LENGTH * 64]);
        MailboxTransitionBatch[] batches = {delta, fixed};
        MailboxTransitionBatch.Reader r = new MailboxTransitionBatch.Reader();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        long allocated = Long.MAX_VALUE;
        // The least of ten passes: the first load classes and run interpreted, and a deoptimization in any pass
        // rematerializes the objects escape analysis had removed (648 bytes once in CI). A reader that allocates per
        // transition or per batch allocates in every pass.
        for (int pass = 0; pass < 10; pass++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 200; i++) {
                for (MailboxTransitionBatch b : batches) {
                    r.reset(b);
                    while (r.next()) {
                        sum += r.seq() + r.timeNanos() + r.fromState() + r.toState() + r.writerPid() + r.writer().length();
                    }
                }
            }
            allocated = Math.min(allocated, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertEquals(0, allocated, "bytes allocated reading 200 x (1,024 + 64) transitions (sum " + sum + ")");
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
        byte[] two = pack(sample(2)).records();
        for (byte[] bad : new byte[][] {java.util.Arrays.copyOf(two, two.length - 1), java.util.Arrays.copyOf(two, two.length + 1),
                {2, (byte) 0x84, 1, 2, 3, 4, 5}, {(byte) 0x80}, {1, (byte) 0xC1, (byte) 0x80, (byte) 0x80, (byte) 0x80,
                (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 1}}) {
            e = assertThrows(IllegalArgumentException.class,
                    () -> new MailboxTransitionBatch(1, 2, "p", 0, "g", 0, WRITERS, bad, MailboxTransitionBatch.ENCODING_DELTA));
            assertTrue(e.getMessage().startsWith("MailboxTransitionBatch records (" + bad.length + " bytes, delta encoding) do not decode: "),
                    e.getMessage());
        }
        e = assertThrows(IllegalArgumentException.class, () -> new MailboxTransitionBatch(1, 2, "p", 0, "g", 0, WRITERS, two, 7));
        assertTrue(e.getMessage().contains("encoding=7 is not one this reader knows"), e.getMessage());
        // the same in a body: a reader names the kind, no stack trace, no huge allocation from a damaged length
        for (MailboxTransitionBatch batch : new MailboxTransitionBatch[] {pack(sample(2)),
                new MailboxTransitionBatch(1, 2, "p", 0, "g", 0, WRITERS, new byte[48])}) {
            Bytes<?> bytes = Bytes.allocateElasticOnHeap(256);
            EventCodec.write(batch, bytes);
            byte[] body = bytes.toByteArray();
            int n = batch.records().length;
            int lengthAt = body.length - 4 - n - 1; // the stop-bit length of the records is one byte; the encoding follows them
            assertEquals(n, body[lengthAt]);
            body[lengthAt] = (byte) (n - 1);
            body = java.util.Arrays.copyOf(body, body.length - 1); // the records one byte short, the encoding where it was
            int encodingAt = lengthAt + 1 + n - 1;
            java.nio.ByteBuffer.wrap(body).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(encodingAt, batch.encoding());
            EventCodecFormatTest.withCrc(body); // only the records are wrong
            byte[] damaged = body;
            EventCodec.UnreadableEventException bad = assertThrows(EventCodec.UnreadableEventException.class,
                    () -> EventCodec.read(Bytes.wrapForRead(damaged)));
            assertTrue(bad.getMessage().contains("MailboxTransitionBatch"), bad.getMessage());
        }
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
