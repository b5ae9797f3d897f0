package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.openhft.chronicle.bytes.Bytes;

/**
 * Every event carries a CRC32C: one changed byte anywhere in an event (header, number, string) is
 * detected and named by file and index, after every event before it was delivered; a value that
 * would still decode never reads as a different event. Without the checksum (a schema 1 body) the
 * same change reads silently as a wrong value, which is what the checksum is for.
 */
@Timeout(60)
class ChecksumTest {
    private static final int EVENTS = 50;

    @TempDir
    Path tmp;

    @Test
    void aFlippedBitInAnyByteOfAnEventIsNamedByFileAndIndex() throws IOException {
        Path dir = tmp.resolve("journal");
        List<JournalEvent> written = write(dir);
        Path cycle = CycleFileBytes.cycleFile(dir);
        long[] bodies = CycleFileBytes.bodyPositions(cycle);
        Random random = new Random(7);
        for (int trial = 0; trial < 40; trial++) {
            int victim = random.nextInt(EVENTS);
            long start = bodies[victim];
            int length = EventCodec.FIELDS_OFFSET + 8 + random.nextInt(20); // inside the body of any kind
            long at = start + random.nextInt(length);
            int bit = 1 << random.nextInt(8);
            CycleFileBytes.flip(cycle, at, bit);
            try {
                List<JournalEvent> read = new ArrayList<>();
                JournalException error = null;
                try (JournalReader r = JournalReader.open(dir)) {
                    r.fromStart().readAll((i, e) -> read.add(e));
                } catch (JournalException e) {
                    error = e;
                }
                String what = "trial " + trial + ": bit " + bit + " of byte " + (at - start) + " of event " + victim;
                assertNotNull(error, what + " read silently");
                assertInstanceOf(JournalCorruptException.class, error, what);
                assertEquals(written.subList(0, victim), read, what + ": the events before it");
                String m = error.getMessage();
                assertTrue(m.contains("file=" + cycle.getFileName()) && m.contains("index=0x"), what + ": " + m);
                if (at - start >= EventCodec.CHECKSUM_OFFSET) {
                    assertTrue(m.contains("do not match its checksum"), what + ": " + m);
                }
            } finally {
                CycleFileBytes.flip(cycle, at, bit);
            }
        }
    }

    @Test
    void withoutAChecksumTheSameFlipReadsAsAWrongValue() {
        MailboxTransition e = new MailboxTransition(1L, 2, "p", 3L, "g", 4, 5L, 6, 7, "CHILD", 8);
        Bytes<byte[]> schema1 = Bytes.allocateElasticOnHeap(64);
        schema1.writeUnsignedShort(EventType.MAILBOX_TRANSITION.id());
        schema1.writeUnsignedShort(1);
        EventCodec.layout(EventType.MAILBOX_TRANSITION).write(e, schema1);
        byte[] body = schema1.toByteArray();
        body[EventCodec.SCHEMA1_FIELDS_OFFSET] ^= 1; // timeNanos 1 -> 0
        JournalEvent read = new EventDecoder(true).read(Bytes.wrapForRead(body));
        assertEquals(0L, read.timeNanos(), "the broken variant: a schema 1 body has nothing to catch it");

        EventEncoder encoder = new EventEncoder();
        encoder.encode(e);
        byte[] checked = java.util.Arrays.copyOf(encoder.array(), encoder.length());
        checked[EventCodec.FIELDS_OFFSET] ^= 1;
        EventCodec.UnreadableEventException error = org.junit.jupiter.api.Assertions.assertThrows(
                EventCodec.UnreadableEventException.class, () -> new EventDecoder(false).read(Bytes.wrapForRead(checked)));
        assertTrue(error.getMessage().contains("do not match its checksum"), error.getMessage());
    }

    @Test
    void aSchema1BodyInAJournalCreatedAtSchema2IsDamage() {
        MailboxTransition e = new MailboxTransition(1L, 2, "p", 3L, "g", 4, 5L, 6, 7, "CHILD", 8);
        Bytes<byte[]> schema1 = Bytes.allocateElasticOnHeap(64);
        schema1.writeUnsignedShort(EventType.MAILBOX_TRANSITION.id());
        schema1.writeUnsignedShort(1);
        EventCodec.layout(EventType.MAILBOX_TRANSITION).write(e, schema1);
        byte[] body = schema1.toByteArray();
        assertEquals(e, new EventDecoder(true).read(Bytes.wrapForRead(body)), "allowed in a schema 1 journal");
        EventCodec.UnreadableEventException error = org.junit.jupiter.api.Assertions.assertThrows(
                EventCodec.UnreadableEventException.class, () -> new EventDecoder(false).read(Bytes.wrapForRead(body)));
        assertTrue(error.getMessage().contains("has no checksum"), error.getMessage());
    }

    private static List<JournalEvent> write(Path dir) {
        List<JournalEvent> written = new ArrayList<>();
        try (JournalWriter w = JournalWriter.open(dir)) {
            for (int i = 0; i < EVENTS; i++) {
                JournalEvent e = SampleEvents.sample(EventType.values()[i % EventType.values().length], i);
                w.append(e);
                written.add(e);
            }
        }
        return written;
    }
}
