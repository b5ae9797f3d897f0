package dev.vigil.journal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The strings of a journal repeat (pool ids, group names, writers, outcomes): the last string seen
 * for each of {@value #SLOTS} hash slots is kept with its bytes, so a string read again costs a
 * byte comparison and no allocation. Direct-mapped (a colliding string replaces the slot's): the
 * memory stays bounded whatever the journal holds. ASCII only; longer than {@value #MAX_BYTES}
 * bytes (report JSON, command lines) is never cached. Not thread-safe.
 */
final class StringCache {
    static final int SLOTS = 4096;
    static final int MAX_BYTES = 64;

    private final byte[][] keys = new byte[SLOTS][];
    private final String[] values = new String[SLOTS];

    /**
     * The string of the bytes {@code a[from, from + length)} when they are all ASCII, else null
     * (the caller decodes UTF-8 itself). A hit compares the bytes with the cached string's: equal
     * bytes are ASCII bytes, so only a miss scans them.
     */
    String get(byte[] a, int from, int length) {
        if (length > MAX_BYTES) {
            return ascii(a, from, length) ? new String(a, from, length, StandardCharsets.ISO_8859_1) : null;
        }
        int slot = slot(a, from, length);
        byte[] key = keys[slot];
        if (key != null && key.length == length && Arrays.equals(key, 0, length, a, from, from + length)) {
            return values[slot];
        }
        if (!ascii(a, from, length)) {
            return null;
        }
        String s = new String(a, from, length, StandardCharsets.ISO_8859_1);
        keys[slot] = Arrays.copyOfRange(a, from, from + length);
        values[slot] = s;
        return s;
    }

    /**
     * The slot of a string, from its length and its first and last 8 bytes (ids differ there):
     * strings longer than 16 bytes that differ only in between share a slot, which costs misses,
     * never a wrong string (a hit compares every byte).
     */
    static int slot(byte[] a, int from, int length) {
        long x;
        if (length >= 8) {
            x = FieldCursor.longAt(a, from) * 31 + FieldCursor.longAt(a, from + length - 8);
        } else {
            x = 0;
            for (int i = from; i < from + length; i++) {
                x = x << 8 | (a[i] & 0xFF);
            }
        }
        x = (x + length) * 0x9E3779B97F4A7C15L;
        return (int) (x >>> 40) & (SLOTS - 1);
    }

    private static boolean ascii(byte[] a, int from, int length) {
        for (int i = from; i < from + length; i++) {
            if (a[i] < 0) {
                return false;
            }
        }
        return true;
    }
}
