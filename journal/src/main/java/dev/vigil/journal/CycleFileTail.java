package dev.vigil.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import net.openhft.chronicle.wire.Wires;

/**
 * Looks at what follows the last excerpt a reader got from one cycle file, with plain file reads
 * (never through a memory map, which would fault past the end of a truncated file), to tell the
 * real end of the data from damage that Chronicle's tailer reports as "nothing more yet".
 *
 * <p>Chronicle lays excerpts end to end, each behind a 4-byte little-endian header aligned to 4
 * bytes: bit 31 set = being written, bit 30 set = metadata, bits 0-29 = body length. A zero header
 * is where nothing complete was written yet (cycle files are preallocated and sparse, all zero
 * past the data, save an append in progress or left unfinished).
 */
final class CycleFileTail {
    /** How far past a zero header to look for an unfinished excerpt (for the message only). */
    static final int ZERO_SCAN_BYTES = 4 * 1024;
    private static final int MAX_META_SKIPS = 1024;

    /** What follows the last excerpt read. */
    enum Kind {
        /** Unwritten space: the end of the data. */
        END,
        /** An excerpt still being written, or left half-written by a writer that died: not data yet. */
        IN_PROGRESS,
        /** A complete excerpt the tailer did not deliver: normal for a moment while a writer appends; damage when it lasts. */
        SUSPECT,
        /** The file is damaged here; {@link Finding#detail} says how. */
        DAMAGED
    }

    /** The verdict and, for damage, what was seen at which byte. */
    record Finding(Kind kind, long position, String detail) {
    }

    private CycleFileTail() {
    }

    /**
     * Walks the headers from {@code position} (the end of the last body read, or 0 for the start of
     * the file) over metadata excerpts to the first thing that is not metadata.
     */
    static Finding inspect(Path file, long position) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long length = ch.size();
            long pos = align4(position);
            ByteBuffer word = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            for (int skips = 0; skips < MAX_META_SKIPS; skips++) {
                if (length < pos + 4) {
                    return new Finding(Kind.DAMAGED, pos, "truncated: file length=" + length
                            + " ends before the excerpt header at byte=" + pos);
                }
                int header = readInt(ch, word, pos);
                if (header == 0) {
                    // Chronicle writes an excerpt's body before its header, under its write lock: body
                    // bytes behind a zero header are an append in progress, or what a writer killed
                    // mid-append left (the next append overwrites it). Not data either way; a zeroed
                    // header in the middle of data shows in the queue's own index instead.
                    long debris = firstNonZero(ch, pos + 4, Math.min(length, pos + 4 + ZERO_SCAN_BYTES));
                    return new Finding(Kind.END, pos, debris < 0 ? "end of data"
                            : "end of data; unfinished excerpt bytes follow at byte=" + debris);
                }
                if (header == Wires.END_OF_DATA) {
                    return new Finding(Kind.END, pos, "end of cycle");
                }
                int bodyLength = header & Wires.LENGTH_MASK;
                if (Wires.isNotComplete(header)) {
                    return new Finding(Kind.IN_PROGRESS, pos, "excerpt at byte=" + pos + " not complete (header=0x"
                            + Integer.toHexString(header) + ")");
                }
                if (pos + 4 + bodyLength > length) {
                    return new Finding(Kind.DAMAGED, pos, "truncated: excerpt at byte=" + pos + " has length="
                            + bodyLength + " but the file ends at byte=" + length);
                }
                if ((header & Wires.META_DATA) == 0) {
                    return new Finding(Kind.SUSPECT, pos, "complete excerpt at byte=" + pos + " length=" + bodyLength
                            + " not delivered by Chronicle");
                }
                pos = align4(pos + 4 + bodyLength);
            }
            return new Finding(Kind.END, pos, "only metadata follows");
        } catch (IOException e) {
            return new Finding(Kind.DAMAGED, position, "cannot read file: " + JournalException.plain(e));
        }
    }

    private static int readInt(FileChannel ch, ByteBuffer word, long pos) throws IOException {
        word.clear();
        while (word.hasRemaining()) {
            if (ch.read(word, pos + word.position()) < 0) {
                return 0;
            }
        }
        return word.getInt(0);
    }

    private static long firstNonZero(FileChannel ch, long from, long to) throws IOException {
        if (to <= from) {
            return -1;
        }
        ByteBuffer buf = ByteBuffer.allocate((int) (to - from));
        while (buf.hasRemaining()) {
            if (ch.read(buf, from + buf.position()) < 0) {
                break;
            }
        }
        for (int i = 0; i < buf.position(); i++) {
            if (buf.get(i) != 0) {
                return from + i;
            }
        }
        return -1;
    }

    private static long align4(long pos) {
        return (pos + 3) & ~3L;
    }
}
