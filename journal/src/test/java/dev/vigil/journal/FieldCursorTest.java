package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.openhft.chronicle.bytes.Bytes;

/**
 * The decoder's own field reads against Chronicle's: every string reads as Chronicle's readUtf8 reads it,
 * whatever its length and characters; a string seen before comes from the cache without allocating; strings
 * that share a cache slot each read as themselves; a damaged length is named by field.
 */
@Timeout(30)
class FieldCursorTest {

    @Test
    void everyStringReadsAsChroniclesReadUtf8() {
        List<String> values = List.of("", "a", "pool-1", "x".repeat(64), "x".repeat(65), "y".repeat(127), "y".repeat(128),
                "z".repeat(300), "w".repeat(20_000), "ünï \"q\"", "emoji \uD83D\uDE00", "tab\tnew\nline", "\u0000nul");
        for (String value : values) {
            Bytes<byte[]> b = Bytes.allocateElasticOnHeap(64);
            b.writeUtf8(value);
            b.writeInt(7); // a field after it: the cursor must stop exactly at the string's end
            String chronicle = Bytes.wrapForRead(b.toByteArray()).readUtf8();
            FieldCursor c = cursorOver(b);
            assertEquals(chronicle, FieldCursor.readString(c, "poolId"), () -> "length " + value.length());
            assertEquals(7, FieldCursor.readInt(c, "pid"), () -> "the field after a string of length " + value.length());
            assertEquals(0, c.remaining());
        }
    }

    @Test
    void numbersAndBooleansReadAsChronicleWroteThem() {
        Bytes<byte[]> b = Bytes.allocateElasticOnHeap(64);
        long[] longs = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x0102030405060708L, 0x8070605040302010L};
        int[] ints = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x01020304, 0x80706050};
        for (int i = 0; i < longs.length; i++) {
            b.writeLong(longs[i]);
            b.writeInt(ints[i]);
            b.writeBoolean(i % 2 == 0);
        }
        FieldCursor c = cursorOver(b);
        for (int i = 0; i < longs.length; i++) {
            assertEquals(longs[i], FieldCursor.readLong(c, "l"));
            assertEquals(ints[i], FieldCursor.readInt(c, "i"));
            assertEquals(i % 2 == 0, FieldCursor.readBoolean(c, "b"));
        }
    }

    @Test
    void aStringSeenBeforeComesFromTheCacheWithoutAllocating() {
        Bytes<byte[]> b = Bytes.allocateElasticOnHeap(64);
        b.writeUtf8("pool-4711");
        FieldCursor c = cursorOver(b);
        String first = FieldCursor.readString(c, "poolId");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(id);
        int reads = 100_000;
        for (int i = 0; i < reads; i++) {
            c.reset(b, 0, (int) b.writePosition(), "Test");
            assertSame(first, FieldCursor.readString(c, "poolId"));
        }
        long perRead = (threads.getThreadAllocatedBytes(id) - before) / reads;
        assertTrue(perRead < 8, "a cached string allocates nothing; measured " + perRead + " bytes per read");
    }

    @Test
    void stringsThatShareACacheSlotEachReadAsThemselves() {
        byte[] a = "pool-0".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        int slot = StringCache.slot(a, 0, a.length);
        String other = null;
        for (int i = 1; other == null; i++) {
            byte[] candidate = ("pool-" + i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            if (StringCache.slot(candidate, 0, candidate.length) == slot) {
                other = "pool-" + i;
            }
        }
        List<String> read = new ArrayList<>();
        FieldCursor c = new FieldCursor();
        for (int round = 0; round < 4; round++) {
            for (String s : new String[] {"pool-0", other}) {
                Bytes<byte[]> b = Bytes.allocateElasticOnHeap(16);
                b.writeUtf8(s);
                c.reset(b, 0, (int) b.writePosition(), "Test");
                read.add(FieldCursor.readString(c, "poolId"));
            }
        }
        for (int i = 0; i < read.size(); i++) {
            assertEquals(i % 2 == 0 ? "pool-0" : other, read.get(i), "read " + i + " (slot shared with " + other + ")");
        }
    }

    @Test
    void aLengthPastTheEndOfTheBodyIsNamedByField() {
        Bytes<byte[]> b = Bytes.allocateElasticOnHeap(16);
        b.writeStopBit(50);
        b.write("short".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        EventCodec.UnreadableEventException e = assertThrows(EventCodec.UnreadableEventException.class,
                () -> FieldCursor.readString(cursorOver(b), "group"));
        assertTrue(e.getMessage().startsWith("Test field group is not a readable string"), e.getMessage());
        Bytes<byte[]> three = Bytes.allocateElasticOnHeap(16);
        three.writeInt(1);
        three.writeByte((byte) 0);
        EventCodec.UnreadableEventException end = assertThrows(EventCodec.UnreadableEventException.class,
                () -> {
                    FieldCursor c = cursorOver(three);
                    FieldCursor.readInt(c, "pid");
                    FieldCursor.readLong(c, "seq");
                });
        assertEquals("Test body ends inside field seq: 1 bytes left, need 8", end.getMessage());
    }

    private static FieldCursor cursorOver(Bytes<byte[]> written) {
        Bytes<byte[]> copy = Bytes.wrapForRead(written.toByteArray());
        FieldCursor c = new FieldCursor();
        c.reset(copy, 0, (int) copy.readLimit(), "Test");
        return c;
    }
}
