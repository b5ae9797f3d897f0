package dev.vigil.journal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

import net.openhft.chronicle.bytes.Bytes;

/**
 * Writes the fields of one event body into a growable byte array, in the encodings of {@link EventCodec}: the
 * writing half of {@link FieldCursor}, with the same bytes Chronicle's {@code BytesOut} would write (numbers
 * little-endian, a boolean as Chronicle's 'Y'/'N', a string as a stop-bit length and UTF-8, a byte array as a stop-bit
 * length and its bytes). Plain ASCII strings
 * (nearly all: ids, names, states, report JSON) are copied char by char here; any other string is encoded by
 * Chronicle's own {@code writeUtf8}, so both agree on every string. The generated per-kind writers
 * ({@link RecordWriters}) call the static {@code write*} methods, one per field, in declaration order. Not
 * thread-safe: one per {@link EventEncoder}.
 */
final class FieldSink {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle SHORTS = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    /** Chronicle's encoding of {@code true} / {@code false} (BytesOut.writeBoolean). */
    private static final byte TRUE = 'Y';
    private static final byte FALSE = 'N';
    /** Longer strings (report JSON, command lines, output tails) rarely repeat: not kept. */
    private static final int MAX_CACHED_BYTES = 129;

    private byte[] array;
    private int position;
    /**
     * Per string field (a slot each, {@link RecordWriters}): the last string written there and its encoded form (stop-bit
     * length and bytes). Pool ids, group and writer names repeat as the same instances, so most strings are one
     * identity check and one array copy.
     */
    private String[] lastStrings = new String[64];
    private byte[][] lastEncoded = new byte[64][];
    /** For strings beyond ASCII: Chronicle encodes them, made on the first one. */
    private Bytes<byte[]> utf8;

    FieldSink(int capacity) {
        this.array = new byte[capacity];
    }

    byte[] array() {
        return array;
    }

    int position() {
        return position;
    }

    void clear() {
        position = 0;
    }

    private byte[] room(int n) {
        if (array.length - position < n) {
            array = Arrays.copyOf(array, Math.max(array.length * 2, position + n));
        }
        return array;
    }

    void writeShort(int v) {
        SHORTS.set(room(2), position, (short) v);
        position += 2;
    }

    /** Overwrites the int at {@code at} (the checksum word, once the body is complete). */
    void putInt(int at, int v) {
        INTS.set(array, at, v);
    }

    static void writeLong(FieldSink s, long v) {
        LONGS.set(s.room(8), s.position, v);
        s.position += 8;
    }

    static void writeInt(FieldSink s, int v) {
        INTS.set(s.room(4), s.position, v);
        s.position += 4;
    }

    static void writeBoolean(FieldSink s, boolean v) {
        s.room(1)[s.position++] = v ? TRUE : FALSE;
    }

    /**
     * Writes the string of field slot {@code slot} (as {@link #writeString(FieldSink, String)}), from the slot's copy when
     * it is the same instance as the last one written there.
     */
    static void writeString(FieldSink s, String value, int slot) {
        if (slot >= s.lastStrings.length) {
            s.lastStrings = Arrays.copyOf(s.lastStrings, slot * 2);
            s.lastEncoded = Arrays.copyOf(s.lastEncoded, slot * 2);
        }
        if (value != null && value == s.lastStrings[slot]) {
            byte[] encoded = s.lastEncoded[slot];
            System.arraycopy(encoded, 0, s.room(encoded.length), s.position, encoded.length);
            s.position += encoded.length;
            return;
        }
        int start = s.position;
        writeString(s, value);
        if (value != null && s.position - start <= MAX_CACHED_BYTES) {
            s.lastStrings[slot] = value;
            s.lastEncoded[slot] = Arrays.copyOfRange(s.array, start, s.position);
        }
    }

    /** A stop-bit length and the bytes, as Chronicle's {@code writeStopBit} then {@code write}; null is written as empty. */
    static void writeBytes(FieldSink s, byte[] value) {
        int n = value == null ? 0 : value.length;
        byte[] a = s.room(5 + n);
        int p = writeStopBit(a, s.position, n);
        if (n > 0) {
            System.arraycopy(value, 0, a, p, n);
        }
        s.position = p + n;
    }

    /** A null string is written as the empty one (as the journal always has). */
    static void writeString(FieldSink s, String value) {
        String v = value == null ? "" : value;
        int n = v.length();
        int start = s.position;
        byte[] a = s.room(5 + n);
        int p = writeStopBit(a, start, n);
        for (int i = 0; i < n; i++) {
            char c = v.charAt(i);
            if (c >= 0x80) {
                s.position = start;
                s.writeUtf8(v);
                return;
            }
            a[p + i] = (byte) c;
        }
        s.position = p + n;
    }

    /** Chronicle's stop-bit form of a length (7 bits a byte, low bits first, the top bit set on all but the last). */
    private static int writeStopBit(byte[] a, int p, int n) {
        while ((n & ~0x7F) != 0) {
            a[p++] = (byte) (n & 0x7F | 0x80);
            n >>>= 7;
        }
        a[p++] = (byte) n;
        return p;
    }

    private void writeUtf8(String v) {
        if (utf8 == null) {
            utf8 = Bytes.allocateElasticOnHeap(64);
        }
        utf8.clear();
        utf8.writeUtf8(v);
        int n = (int) utf8.writePosition();
        System.arraycopy(utf8.underlyingObject(), 0, room(n), position, n);
        position += n;
    }
}
