package dev.vigil.journal;

import java.nio.ByteOrder;

import net.openhft.chronicle.bytes.Bytes;

/**
 * Reads the fields of one event body held in a byte array, in the encodings of {@link EventCodec}
 * (Chronicle's: numbers in native byte order, little-endian wherever Chronicle runs; a boolean as
 * one byte; a string as a stop-bit length and UTF-8; a byte array as a stop-bit length and its bytes), without boxing and, for a string seen
 * before, without allocating ({@link StringCache}). The generated per-kind readers of {@link EventCodec.RecordLayout} call
 * the static {@code read*} methods, one per field, in declaration order. Not thread-safe: one per
 * {@link EventDecoder}.
 */
final class FieldCursor {
    static {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new ExceptionInInitializerError("Chronicle writes numbers in native order; this reader assumes "
                    + "little-endian (x86-64, aarch64), not " + ByteOrder.nativeOrder());
        }
    }

    private final StringCache strings = new StringCache();
    /**
     * The same array as a Chronicle buffer: strings that are not plain ASCII are decoded by Chronicle
     * itself. Made on the first such string, so that a read of ASCII strings never initialises Chronicle.
     */
    private Bytes<byte[]> bytes;
    private byte[] array;
    private int position;
    private int limit;
    /** The kind being read, for messages. */
    private String kind;

    /** Reads {@code [position, limit)} of {@code body}'s array as the fields of a {@code kind}. */
    void reset(Bytes<byte[]> body, int position, int limit, String kind) {
        reset(body.underlyingObject(), position, limit, kind);
        this.bytes = body;
    }

    /** Reads {@code [position, limit)} of {@code body} as the fields of a {@code kind}. */
    void reset(byte[] body, int position, int limit, String kind) {
        this.array = body;
        this.position = position;
        this.limit = limit;
        this.kind = kind;
    }

    int remaining() {
        return limit - position;
    }

    private void require(int n, String field) {
        if (limit - position < n) {
            throw new EventCodec.UnreadableEventException(kind + " body ends inside field " + field + ": "
                    + (limit - position) + " bytes left, need " + n);
        }
    }

    static long readLong(FieldCursor c, String field) {
        c.require(8, field);
        long v = longAt(c.array, c.position);
        c.position += 8;
        return v;
    }

    static int readInt(FieldCursor c, String field) {
        c.require(4, field);
        int v = intAt(c.array, c.position);
        c.position += 4;
        return v;
    }

    /**
     * Little-endian, assembled from bytes: a byte-array VarHandle is one intrinsic under C2 but a
     * method-handle call under C1, which the replay launcher runs with.
     */
    static long longAt(byte[] a, int p) {
        return (intAt(a, p) & 0xFFFF_FFFFL) | (long) intAt(a, p + 4) << 32;
    }

    static int intAt(byte[] a, int p) {
        return (a[p] & 0xFF) | (a[p + 1] & 0xFF) << 8 | (a[p + 2] & 0xFF) << 16 | a[p + 3] << 24;
    }

    /** As Chronicle's readBoolean: 0, 'N' and 'n' are false (its writeBoolean writes 'Y' / 'N'). */
    static boolean readBoolean(FieldCursor c, String field) {
        c.require(1, field);
        byte b = c.array[c.position++];
        return b != 0 && b != 'N' && b != 'n';
    }

    /** A stop-bit length and that many bytes (a length that does not fit in what is left is an error, never a large array). */
    static byte[] readBytes(FieldCursor c, String field) {
        c.require(1, field);
        byte[] a = c.array;
        int p = c.position;
        long n = 0;
        int shift = 0;
        int b;
        do {
            if (p >= c.limit || shift > 28) {
                throw new EventCodec.UnreadableEventException(c.kind + " field " + field + " has no readable length");
            }
            b = a[p++];
            n |= (long) (b & 0x7F) << shift;
            shift += 7;
        } while (b < 0);
        if (n > c.limit - p) {
            throw new EventCodec.UnreadableEventException(c.kind + " body ends inside field " + field + ": "
                    + (c.limit - p) + " bytes left, need " + n);
        }
        c.position = p + (int) n;
        return java.util.Arrays.copyOfRange(a, p, c.position);
    }

    /**
     * A stop-bit length and ASCII bytes (nearly every string: ids, names, states, report JSON) are
     * read here, through the cache; anything else (UTF-8 beyond ASCII, the null marker, a damaged
     * length) by Chronicle's readUtf8, so both give the same answer for the same bytes.
     */
    static String readString(FieldCursor c, String field) {
        c.require(1, field);
        byte[] a = c.array;
        int p = c.position;
        int n = 0;
        int shift = 0;
        int b;
        while ((b = a[p++]) < 0 && shift < 21 && p < c.limit) { // a length below 2^28, continued
            n |= (b & 0x7F) << shift;
            shift += 7;
        }
        if (b > 0 || b == 0 && shift == 0) {
            n |= b << shift;
            if (n <= c.limit - p) {
                String s = c.strings.get(a, p, n);
                if (s != null) {
                    c.position = p + n;
                    return s;
                }
            }
        }
        return c.readUtf8(field);
    }

    private String readUtf8(String field) {
        String s;
        if (bytes == null || bytes.underlyingObject() != array) {
            bytes = Bytes.wrapForRead(array);
        }
        try {
            bytes.readPositionRemaining(position, limit - position);
            s = bytes.readUtf8();
        } catch (RuntimeException e) {
            throw new EventCodec.UnreadableEventException(kind + " field " + field + " is not a readable string ("
                    + e.getMessage() + ")");
        }
        if (s == null) {
            throw new EventCodec.UnreadableEventException(kind + " field " + field + " is a missing string");
        }
        position = (int) bytes.readPosition();
        return s;
    }
}
