package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.openhft.chronicle.bytes.Bytes;

/** The binary form, byte for byte: the codec's fast paths write exactly what the layout promises. */
@Timeout(30)
class EventCodecFormatTest {

    @Test
    void stringsAreWrittenExactlyAsChroniclesWriteUtf8WhateverTheirCharacters() {
        String shared = "pool-shared";
        List<String> values = List.of("", "ascii", "ünï \"q\"", "x".repeat(300), "emoji \uD83D\uDE00", shared, shared,
                new String(shared.toCharArray()), "ascii");
        for (String pool : values) {
            MailboxTransition e = new MailboxTransition(1L, 2, pool, 3L, "g", 4, 5L, 6, 7, pool, 8);
            assertArrayEquals(reference(e), encode(e), "poolId=" + pool);
            assertEquals(e, EventCodec.read(Bytes.wrapForRead(encode(e))));
        }
    }

    /**
     * The generated writers against Chronicle's BytesOut, field by field in declaration order, for every kind: numbers at
     * their extremes, both booleans, strings across the stop-bit length steps (127/128, 16383/16384 bytes) and beyond ASCII,
     * byte arrays across the same steps.
     */
    @Test
    void everyKindIsWrittenExactlyAsChroniclesBytesOutWritesItsFields() throws ReflectiveOperationException {
        List<String> strings = List.of("", "p", "x".repeat(127), "x".repeat(128), "y".repeat(16_383), "y".repeat(16_384),
                "\u007f", "\u0080", "ünï", "emoji \uD83D\uDE00", "\u0000nul");
        long[] longs = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x0102030405060708L};
        int[] ints = {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x01020304};
        // byte arrays across the stop-bit steps too, in whole packed transitions (MailboxTransitionBatch checks that)
        List<byte[]> arrays = new java.util.ArrayList<>();
        for (int length : new int[] {0, 24, 120, 144, 16_368, 16_392}) {
            byte[] a = new byte[length];
            for (int i = 0; i < length; i++) {
                a[i] = (byte) (i * 31 + length);
            }
            arrays.add(a);
        }
        for (EventType type : EventType.values()) {
            java.lang.reflect.RecordComponent[] components = type.recordClass().getRecordComponents();
            Class<?>[] types = new Class<?>[components.length];
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
            }
            for (int variant = 0; variant < strings.size(); variant++) {
                Object[] args = new Object[components.length];
                for (int i = 0; i < components.length; i++) {
                    int k = variant + i;
                    boolean fixed = type == EventType.MAILBOX_TRANSITION_BATCH && components[i].getName().equals("encoding");
                    args[i] = fixed ? (Object) MailboxTransitionBatch.ENCODING_FIXED // the arrays are whole 24-byte records
                            : types[i] == long.class ? (Object) longs[k % longs.length]
                            : types[i] == int.class ? (Object) ints[k % ints.length]
                            : types[i] == boolean.class ? (Object) (k % 2 == 0)
                            : types[i] == byte[].class ? (Object) arrays.get(k % arrays.size()) : strings.get(k % strings.size());
                }
                JournalEvent e = type.recordClass().getDeclaredConstructor(types).newInstance(args);
                int v = variant;
                assertArrayEquals(reference(e), encode(e), () -> type + " variant " + v);
                assertEquals(e, EventCodec.read(Bytes.wrapForRead(encode(e))));
            }
        }
    }

    @Test
    void aNullStringIsWrittenAsEmpty() {
        MailboxTransition e = new MailboxTransition(1L, 2, null, 3L, null, 4, 5L, 6, 7, null, 8);
        MailboxTransition back = (MailboxTransition) EventCodec.read(Bytes.wrapForRead(encode(e)));
        assertEquals("", back.poolId());
        assertEquals("", back.group());
    }

    private static byte[] encode(JournalEvent e) {
        Bytes<?> b = Bytes.allocateElasticOnHeap(64);
        EventCodec.write(e, b);
        return b.toByteArray();
    }

    /** Header, CRC placeholder, then every field as Chronicle's BytesOut writes it, then the CRC32C. */
    private static byte[] reference(JournalEvent e) throws ReflectiveOperationException {
        Bytes<?> b = Bytes.allocateElasticOnHeap(64);
        b.writeUnsignedShort(e.type().id());
        b.writeUnsignedShort(0x8000 | e.type().version());
        b.writeInt(0);
        for (java.lang.reflect.RecordComponent c : e.getClass().getRecordComponents()) {
            Object v = c.getAccessor().invoke(e);
            if (v instanceof Long l) {
                b.writeLong(l);
            } else if (v instanceof Integer i) {
                b.writeInt(i);
            } else if (v instanceof Boolean z) {
                b.writeBoolean(z);
            } else if (v instanceof byte[] bytes) {
                b.writeStopBit(bytes.length);
                b.write(bytes);
            } else {
                b.writeUtf8((String) v);
            }
        }
        return withCrc(b.toByteArray());
    }

    /** Sets the CRC32C of a checksummed body. */
    static byte[] withCrc(byte[] body) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(body, 0, 4);
        crc.update(body, 8, body.length - 8);
        java.nio.ByteBuffer.wrap(body).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(4, (int) crc.getValue());
        return body;
    }

    /** The layout of EventCodec's javadoc, written out by hand for one kind. */
    private static byte[] reference(MailboxTransition e) {
        Bytes<?> b = Bytes.allocateElasticOnHeap(64);
        b.writeUnsignedShort(EventType.MAILBOX_TRANSITION.id());
        b.writeUnsignedShort(0x8000 | 1);
        b.writeInt(0); // the CRC32C, filled in below
        b.writeLong(e.timeNanos());
        b.writeInt(e.orchestratorPid());
        b.writeUtf8(e.poolId());
        b.writeLong(e.closeId());
        b.writeUtf8(e.group());
        b.writeInt(e.index());
        b.writeLong(e.seq());
        b.writeInt(e.fromState());
        b.writeInt(e.toState());
        b.writeUtf8(e.writer());
        b.writeInt(e.writerPid());
        return withCrc(b.toByteArray());
    }
}
