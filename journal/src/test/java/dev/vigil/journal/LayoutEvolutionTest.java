package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.openhft.chronicle.bytes.Bytes;

/**
 * The codec's versioning, generic over record components: a body of an older layout reads into
 * today's record with the added fields at their absent values; a body of the same version reads
 * back exactly.
 */
@Timeout(30)
class LayoutEvolutionTest {
    /** A kind as first written. */
    public record Before(long timeNanos, String poolId, int pid) {
    }

    /** The same kind after two fields were added, one in version 2, one in version 3. */
    public record After(long timeNanos, String poolId, @AddedIn(value = 2, absent = "-1") long ackWordNanos, int pid,
            @AddedIn(3) String why) {
    }

    /** Before with a byte array added in version 2. */
    public record WithBytes(long timeNanos, String poolId, int pid, @AddedIn(2) byte[] packed) {
    }

    @Test
    void anAddedByteArrayReadsEmptyFromAnOlderBodyAndWholeFromItsOwn() {
        Bytes<byte[]> v1 = Bytes.allocateElasticOnHeap(64);
        EventCodec.RecordLayout.of(Before.class).write(new Before(7L, "p", 4711), v1);
        WithBytes old = (WithBytes) EventCodec.RecordLayout.of(WithBytes.class).read(v1, 1);
        assertEquals(0, old.packed().length);
        Bytes<byte[]> v2 = Bytes.allocateElasticOnHeap(64);
        EventCodec.RecordLayout.of(WithBytes.class).write(new WithBytes(7L, "p", 4711, new byte[] {1, 2, 3}), v2);
        org.junit.jupiter.api.Assertions.assertArrayEquals(new byte[] {1, 2, 3},
                ((WithBytes) EventCodec.RecordLayout.of(WithBytes.class).read(v2, 2)).packed());
    }

    @Test
    void aKindsLayoutVersionIsItsNewestAddedField() {
        assertEquals(1, EventCodec.layoutVersionOf(Before.class));
        assertEquals(3, EventCodec.layoutVersionOf(After.class));
        for (EventType t : EventType.values()) {
            assertTrue(t.version() >= 1, t + " has a layout version");
        }
    }

    /**
     * The build writes the reader of every kind and layout version into the jar (RecordReaders.main, journal/pom.xml):
     * a journal read uses those, not classes generated at run time, and they read what the generated ones read.
     */
    @Test
    void theReadersOfEveryKindAndVersionAreTheBuildsAndReadAsTheGeneratedOnes() {
        for (EventType t : EventType.values()) {
            for (int v = 1; v <= t.version(); v++) {
                Class<?> used = EventCodec.layout(t).readerUsed(v).getClass();
                assertEquals("dev.vigil.journal." + t.recordClass().getSimpleName() + "Reader" + v, used.getName(),
                        t + " layout version=" + v + " is read by the class the build wrote");
                org.junit.jupiter.api.Assertions.assertFalse(used.isHidden(), used + " is not generated at run time");
                assertTrue(EventCodec.RecordLayout.of(t.recordClass()).readerUsed(v).getClass().isHidden(),
                        "a layout of a record that is no kind generates its readers");
            }
        }
        for (JournalEvent e : SampleEvents.oneOfEach(5)) {
            Bytes<byte[]> body = Bytes.allocateElasticOnHeap(256);
            EventCodec.layout(e.type()).write(e, body);
            Bytes<byte[]> copy = Bytes.wrapForRead(body.toByteArray());
            assertEquals(e, EventCodec.layout(e.type()).read(body, e.type().version()), e.type().toString());
            assertEquals(e, EventCodec.RecordLayout.of(e.type().recordClass()).read(copy, e.type().version()),
                    e.type().toString());
        }
    }

    /** A kind's reader is made once: reading its bodies again allocates the records and nothing else. */
    @Test
    void aDecodedEventAllocatesItsRecordAndNothingElse() {
        JournalEvent e = new MailboxTransition(1L, 900, "pool-1", 7L, "chips", 2, 12L, 1, 2, "CHILD", 4711);
        int version = e.type().version(); // reads the record's components by reflection each time
        Bytes<byte[]> body = Bytes.allocateElasticOnHeap(256);
        EventCodec.layout(e.type()).write(e, body);
        byte[] bytes = body.toByteArray();
        Bytes<byte[]> wrapped = Bytes.wrapForRead(bytes);
        FieldCursor cursor = new FieldCursor();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int reads = 20_000;
        Object last = null;
        long before = 0;
        for (int i = -1000; i < reads; i++) { // the first thousand warm up (and fill the string cache)
            if (i == 0) {
                before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            }
            cursor.reset(wrapped, 0, bytes.length, "MailboxTransition");
            last = EventCodec.layout(e.type()).read(cursor, version);
        }
        long perRead = (threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before) / reads;
        assertEquals(e, last);
        assertTrue(perRead <= 96, perRead + " bytes allocated per decoded MailboxTransition (the record is ~80)");
    }

    @Test
    void aBodyOfAnOlderLayoutReadsWithTheAddedFieldsAtTheirAbsentValues() {
        Bytes<byte[]> v1 = Bytes.allocateElasticOnHeap(64);
        EventCodec.RecordLayout.of(Before.class).write(new Before(7L, "p", 4711), v1);
        Object read = EventCodec.RecordLayout.of(After.class).read(v1, 1);
        assertEquals(new After(7L, "p", -1L, 4711, ""), read);
    }

    @Test
    void aBodyOfTheIntermediateLayoutReadsTheFieldsItHas() {
        Bytes<byte[]> v2 = Bytes.allocateElasticOnHeap(64);
        v2.writeLong(7L);
        v2.writeUtf8("p");
        v2.writeLong(99L);
        v2.writeInt(4711);
        assertEquals(new After(7L, "p", 99L, 4711, ""), EventCodec.RecordLayout.of(After.class).read(v2, 2));
    }

    @Test
    void aBodyOfTheNewestLayoutReadsBackExactly() {
        Bytes<byte[]> v3 = Bytes.allocateElasticOnHeap(64);
        After a = new After(7L, "p", 99L, 4711, "because");
        EventCodec.RecordLayout.of(After.class).write(a, v3);
        assertEquals(a, EventCodec.RecordLayout.of(After.class).read(v3, 3));
    }

    @Test
    void bytesLeftAfterTheLastFieldOfALayoutAreAnError() {
        Bytes<byte[]> v3 = Bytes.allocateElasticOnHeap(64);
        EventCodec.RecordLayout.of(After.class).write(new After(7L, "p", 99L, 4711, "because"), v3);
        EventCodec.UnreadableEventException e = assertThrows(EventCodec.UnreadableEventException.class,
                () -> EventCodec.RecordLayout.of(After.class).read(v3, 1));
        assertTrue(e.getMessage().contains("After layout version=1 has"), e.getMessage());
    }
}
