package dev.vigil.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.util.NavigableMap;

/**
 * The data excerpts of a Chronicle queue's cycle files, read with plain positional file reads and
 * without Chronicle's runtime (whose class initialisation alone costs a short replay command about
 * half a second of CPU). Chronicle Queue's on-disk format: excerpts end to end from byte 0, each
 * behind a 4-byte little-endian header aligned to 4 bytes (bit 31 not complete, bit 30 metadata,
 * bits 0-29 body length); the store header, the index2index and the index arrays are metadata
 * excerpts between the data; a zero header (or Chronicle's end-of-data word) ends a cycle. A data
 * excerpt's index is its cycle and its sequence number, counted from 0 in each cycle.
 *
 * <p>Strict by design: this reader only ever answers for a journal it fully understands. A cycle
 * that is not read to exactly the last excerpt its store header records (sequence and position), an
 * excerpt that is not complete or runs past the end of its file, a cycle file that is unreadable,
 * an index entry it cannot check: anything else throws {@link NotUnderstood}, and
 * {@link JournalReader} hands the read over to Chronicle's tailer at the last excerpt it read, so
 * that damage is named exactly as Chronicle's path names it. Files are read with {@code pread}
 * into one buffer, never memory-mapped: a cut file gives a short read, not a fault, and the pages
 * read do not count to the process's resident set.
 */
final class PlainExcerpts implements AutoCloseable {
    /**
     * {@code -Dvigil.journal.reader=chronicle} reads every journal with Chronicle's tailer alone, as
     * before this reader existed: the baseline of {@code bin/vigil-bench replay}, and a way out.
     */
    static final boolean ENABLED = !"chronicle".equals(System.getProperty("vigil.journal.reader"));
    static final int NOT_COMPLETE = 0x80000000;
    static final int META_DATA = 0x40000000;
    static final int LENGTH_MASK = 0x3FFFFFFF;
    static final int END_OF_DATA = NOT_COMPLETE | META_DATA;
    /** Read-ahead after a jump (a short range is cheap), doubled per sequential refill up to MAX_READ. */
    private static final int FIRST_READ = 16 * 1024;
    private static final int MAX_READ = 1024 * 1024;

    /** Something this reader does not fully understand: the caller reads on with Chronicle. */
    static class NotUnderstood extends RuntimeException {
        NotUnderstood(String why) {
            super(why, null, false, false);
        }
    }

    /**
     * What this reader was to read lies past the end of the cycle file, still so when its length is asked again: the
     * file was cut short. Chronicle's tailer must not be handed it: it maps pages past the end, and the memory fault
     * of touching one surfaces at some later instruction, even in its caller's code, where nobody can name it.
     */
    static final class CutShort extends NotUnderstood {
        CutShort(String why) {
            super(why);
        }
    }

    /**
     * Damage this reader names itself, because Chronicle's tailer reads past it without a word: an excerpt marked
     * as metadata that is not one of the queue's index arrays (an event whose header gained bit 30; the tailer
     * skips it and numbers every later event one lower). The message names the file, the index and the byte.
     */
    static final class Damaged extends NotUnderstood {
        final long index;

        Damaged(String what, long index) {
            super(what);
            this.index = index;
        }
    }

    /** The field names of the metadata excerpts a cycle holds after its store header: Chronicle's indexing. */
    private static final byte[][] INDEXING_NAMES = {"index2index".getBytes(StandardCharsets.US_ASCII),
        "index".getBytes(StandardCharsets.US_ASCII)};

    private final NavigableMap<Integer, CycleFiles.CycleFile> cycles;
    /**
     * The bytes read, a plain array: read with array accesses (FieldCursor's), which the interpreter and
     * C1 run far faster than ByteBuffer calls, and bodies copied out with arraycopy.
     */
    private byte[] window = new byte[MAX_READ];
    private ByteBuffer windowBuffer = ByteBuffer.wrap(window);
    private long windowStart;
    private int windowLength;
    private int readSize = FIRST_READ;

    private CycleFiles.CycleFile file;
    private FileChannel channel;
    private long fileLength;
    /** Where the file's first excerpt after its store header is. */
    private long firstPosition;
    private Indexing indexing;
    private long[] indexArray;
    private long indexArrayPosition = -1;

    /**
     * The sequential read's check of the cycle's own index (the header and index area, where no event is): index arrays
     * passed so far, and the entries of the last one as read when it was passed (null before any), the sequence its
     * first entry stands for. An entry is 0 (not written yet) or the position of its event.
     */
    private int arraysPassed;
    private long[] passedEntries;
    private long passedFirstSequence;
    private long passedSpacing;

    private int cycle = Integer.MIN_VALUE;
    /** Position of the next header to look at, and the sequence number the next data excerpt has. */
    private long position;
    private long sequence;
    /** Header position of the last data excerpt passed, -1 for none in this cycle. */
    private long lastHeader = -1;
    private long bodyPosition;
    private int bodyLength;
    private boolean ended;

    /** Over the cycles as {@link CycleFiles#inspect} found them (unreadable and missing ones included). */
    PlainExcerpts(NavigableMap<Integer, CycleFiles.CycleFile> cycles) {
        this.cycles = cycles;
    }

    /** Before the first excerpt of the first cycle. */
    void toStart() {
        ended = false;
        if (cycles.isEmpty()) {
            closeFile();
            ended = true;
            return;
        }
        enter(cycles.firstEntry().getValue());
    }

    /**
     * Before the excerpt at {@code index}, found through the cycle's own Chronicle index (the
     * position of every 256th excerpt) and a walk over the headers from there. False when the index
     * cannot be followed with certainty (the caller asks Chronicle).
     */
    boolean toIndex(long index) {
        int c = JournalDirectory.ROLL_CYCLE.toCycle(index);
        long seq = JournalDirectory.ROLL_CYCLE.toSequenceNumber(index);
        CycleFiles.CycleFile f = cycles.get(c);
        if (f == null || !f.readable() || seq > f.lastSequence() || seq < 0) {
            return false;
        }
        ended = false;
        enter(f);
        Indexing ix;
        try {
            ix = indexing();
        } catch (NotUnderstood e) {
            // the cycle holds this index (its store header says so), so it has its indexing: Chronicle's tailer would
            // follow the same damaged header to another event
            long index0 = JournalDirectory.ROLL_CYCLE.toIndex(c, 0);
            throw new Damaged("file=" + f.file().getFileName() + " index=0x" + Long.toHexString(index0) + ": the store"
                    + " header's indexing cannot be read (" + e.getMessage() + "): a damaged store header or index2index"
                    + " array", index0);
        }
        long perArray = (long) ix.count * ix.spacing;
        long[] index2index = ix.index2index;
        int arraySlot = (int) (seq / perArray);
        if (arraySlot >= index2index.length || index2index[arraySlot] <= 0) {
            return false;
        }
        long[] entries = indexArray(index2index[arraySlot], ix.count);
        int slot = (int) ((seq / ix.spacing) % ix.count);
        long entry = entries[slot];
        if (entry == 0) {
            return false; // not indexed yet (a writer killed between an event and its entry): Chronicle scans for it
        }
        // The entry is trusted only once the excerpts lead to it: from the entry before it (spacing excerpts on), or
        // for an array's first entry from the array itself (its first event follows it). A damaged entry that points
        // at another event would otherwise give that event's and its successors' bodies under the wrong indexes.
        long from;
        long steps = ix.spacing;
        if (slot > 0) {
            from = entries[slot - 1];
        } else if (arraySlot > 0) {
            from = index2index[arraySlot - 1] <= 0 ? 0 : array(index2index[arraySlot - 1], "index", ix.count)[ix.count - 1];
        } else {
            from = index2index[0];
            steps = 0;
        }
        if (from == 0) {
            return false; // the entry before it not written yet: nothing to check it against, Chronicle scans
        }
        long expected = walkTo(from, steps);
        if (expected != entry || entry <= 0 || (entry & 3) != 0 || entry > f.lastPosition()) {
            long first = seq - seq % ix.spacing;
            throw new Damaged("file=" + f.file().getFileName() + " index=0x" + Long.toHexString(JournalDirectory.ROLL_CYCLE
                    .toIndex(c, first)) + ": the queue's index says this event is at byte=" + entry + ", but the events lead"
                    + " to byte=" + expected + " (a damaged index entry)", JournalDirectory.ROLL_CYCLE.toIndex(c, first));
        }
        position = entry;
        sequence = seq - seq % ix.spacing;
        arraysPassed = arraySlot + 1;
        passedEntries = entries.clone();
        passedFirstSequence = (long) arraySlot * ix.count * ix.spacing;
        passedSpacing = ix.spacing;
        lastHeader = -1;
        readSize = FIRST_READ;
        while (sequence < seq) {
            if (next() < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The header position of the data excerpt {@code steps} data excerpts after the one at {@code from} (0: the first
     * data excerpt at or after {@code from}, metadata skipped); -1 when the walk meets the end of the data or an excerpt
     * it does not understand.
     */
    private long walkTo(long from, long steps) {
        long p = from;
        long left = steps;
        if (p < 0 || (p & 3) != 0) {
            return -1;
        }
        while (p + 4 <= fileLength) {
            int header = intAt(p);
            if (header == 0 || header == END_OF_DATA || (header & NOT_COMPLETE) != 0) {
                return -1;
            }
            boolean data = (header & META_DATA) == 0;
            if (data && left == 0) {
                return p;
            }
            if (data) {
                left--;
            }
            p = align4(p + 4 + (header & LENGTH_MASK));
        }
        return -1;
    }

    /**
     * Moves to the next data excerpt and returns its index; -1 at the end of the last cycle, read
     * to exactly the last excerpt its store header records.
     */
    long next() {
        if (ended) {
            return -1;
        }
        while (true) {
            int header = intAt(position);
            if (header == 0 || header == END_OF_DATA) {
                requireWhole();
                var later = cycles.higherEntry(cycle);
                if (later == null) {
                    ended = true;
                    return -1;
                }
                enter(later.getValue());
                continue;
            }
            if ((header & NOT_COMPLETE) != 0) {
                throw new NotUnderstood("excerpt at byte=" + position + " not complete");
            }
            int length = header & LENGTH_MASK;
            long end = position + 4 + length;
            if (end > fileLength) {
                throw new NotUnderstood("excerpt at byte=" + position + " runs past the end of the file");
            }
            if ((header & META_DATA) != 0) {
                if (!isIndexing(position, length)) {
                    long index = JournalDirectory.ROLL_CYCLE.toIndex(cycle, sequence);
                    throw new Damaged("file=" + file.file().getFileName() + " index=0x" + Long.toHexString(index)
                            + ": the excerpt at byte=" + position + " is marked as metadata (header=0x"
                            + Integer.toHexString(header) + ") but is none of the queue's index arrays: an event"
                            + " whose header was damaged", index);
                }
                checkIndexing(position);
                position = align4(end);
                continue;
            }
            if (passedEntries != null && (sequence & (passedSpacing - 1)) == 0) {
                long slot = (sequence - passedFirstSequence) / passedSpacing;
                long entry = slot >= 0 && slot < passedEntries.length ? passedEntries[(int) slot] : 0;
                if (entry != 0 && entry != position) {
                    long index = JournalDirectory.ROLL_CYCLE.toIndex(cycle, sequence);
                    throw new Damaged("file=" + file.file().getFileName() + " index=0x" + Long.toHexString(index)
                            + ": the queue's index says this event is at byte=" + entry + ", but it is at byte=" + position
                            + " (a damaged index entry)", index);
                }
            }
            lastHeader = position;
            bodyPosition = position + 4;
            bodyLength = length;
            position = align4(end);
            return JournalDirectory.ROLL_CYCLE.toIndex(cycle, sequence++);
        }
    }

    /** The cycle of the excerpt {@link #next} returned. */
    int cycle() {
        return cycle;
    }

    /** Position just past the body of the excerpt {@link #next} returned. */
    long bodyEnd() {
        return bodyPosition + bodyLength;
    }

    int bodyLength() {
        return bodyLength;
    }

    /** The body of the excerpt {@link #next} returned: its bytes in {@link #buffer} from the offset returned. */
    int bodyOffset() {
        ensure(bodyPosition, bodyLength);
        return (int) (bodyPosition - windowStart);
    }

    /**
     * The bytes that hold the body of the excerpt {@link #next} returned (at {@link #bodyOffset}). Brings the
     * body in first, as {@link #bodyOffset} does: a body longer than the window replaces the window, so the array
     * is only right after that, whichever of the two a caller's argument list evaluates first.
     */
    byte[] buffer() {
        ensure(bodyPosition, bodyLength);
        return window;
    }

    /** A cycle ends where its store header says its last excerpt is, or it is not understood. */
    private void requireWhole() {
        long read = sequence - 1;
        if (read != file.lastSequence() || read >= 0 && lastHeader != file.lastPosition()) {
            throw new NotUnderstood("cycle " + cycle + " ends after sequence=" + read + " (byte=" + lastHeader
                    + "), its store header says " + file.lastSequence() + " (byte=" + file.lastPosition() + ")");
        }
    }

    private void enter(CycleFiles.CycleFile f) {
        if (!f.readable()) {
            throw new NotUnderstood("file=" + f.file().getFileName() + " " + f.problem());
        }
        if (f != file) {
            closeFile();
            try {
                channel = FileChannel.open(f.file(), StandardOpenOption.READ);
                fileLength = channel.size();
            } catch (IOException e) {
                throw new NotUnderstood("file=" + f.file().getFileName() + " cannot be read: " + JournalException.plain(e));
            }
            file = f;
            indexing = null;
            indexArray = null;
            indexArrayPosition = -1;
            windowLength = 0;
            firstPosition = align4(4 + (intAt(0) & LENGTH_MASK));
        }
        cycle = f.cycle();
        position = firstPosition;
        sequence = 0;
        lastHeader = -1;
        arraysPassed = 0;
        passedEntries = null;
    }

    private void closeFile() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // read-only
            }
        }
        channel = null;
        file = null;
    }

    @Override
    public void close() {
        closeFile();
    }

    private int intAt(long p) {
        ensure(p, 4);
        return FieldCursor.intAt(window, (int) (p - windowStart));
    }

    /** Makes {@code [p, p + n)} readable in the window, or throws when the file ends before. */
    private void ensure(long p, int n) {
        if (p >= windowStart && p + n <= windowStart + windowLength) {
            return;
        }
        if (p + n > fileLength && p >= 0) {
            try {
                fileLength = channel.size(); // a live journal's file may have grown since it was entered
            } catch (IOException e) {
                throw new NotUnderstood("file=" + file.file().getFileName() + " cannot be read: " + JournalException.plain(e));
            }
            if (p + n > fileLength) {
                throw new CutShort("byte=" + p + " length=" + n + " is past the end of the file (length=" + fileLength + ")");
            }
        }
        if (p < 0) {
            throw new NotUnderstood("byte=" + p + " length=" + n + " is before the start of the file");
        }
        boolean sequential = p == windowStart + windowLength || p > windowStart && p < windowStart + windowLength;
        readSize = sequential ? Math.min(MAX_READ, readSize * 2) : FIRST_READ;
        int size = (int) Math.min(Math.max(readSize, n), fileLength - p);
        if (window.length < size) {
            window = new byte[size];
            windowBuffer = ByteBuffer.wrap(window);
        }
        windowBuffer.clear().limit(size);
        try {
            while (windowBuffer.hasRemaining()) {
                if (channel.read(windowBuffer, p + windowBuffer.position()) < 0) {
                    throw new NotUnderstood("file=" + file.file().getFileName() + " ends at byte="
                            + (p + windowBuffer.position()));
                }
            }
        } catch (IOException e) {
            throw new NotUnderstood("file=" + file.file().getFileName() + " cannot be read: " + JournalException.plain(e));
        }
        windowStart = p;
        windowLength = size;
    }

    /** Whether the metadata excerpt at {@code at} is {@code index2index: [...]} or {@code index: [...]}. */
    private boolean isIndexing(long at, int length) {
        for (byte[] name : INDEXING_NAMES) {
            if (length >= 2 + name.length) {
                ensure(at + 4, 2 + name.length);
                int p = (int) (at + 4 - windowStart);
                if ((window[p] & 0xFF) == 0xb9 && window[p + 1] == name.length
                        && java.util.Arrays.equals(window, p + 2, p + 2 + name.length, name, 0, name.length)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The index area, checked as the sequential read passes it: the store header's indexing must read, the first
     * index excerpt must be the index2index array where the header says, each index array where index2index lists it
     * (0: not listed yet), and each must read whole. Its entries are checked as the events they name are reached.
     * Damage there, where no event is, was read through without a word, while reads from an index ({@link #toIndex})
     * and Chronicle's tailer follow it.
     */
    private void checkIndexing(long at) {
        long index = JournalDirectory.ROLL_CYCLE.toIndex(cycle, sequence);
        String where = "file=" + file.file().getFileName() + " index=0x" + Long.toHexString(index) + ": ";
        Indexing ix;
        try {
            ix = indexing();
        } catch (Damaged d) {
            throw d;
        } catch (NotUnderstood e) {
            throw new Damaged(where + "the store header's indexing cannot be read (" + e.getMessage() + "): a damaged"
                    + " store header or index2index array", index);
        }
        ensure(at + 4, 2);
        boolean index2index = window[(int) (at + 4 - windowStart) + 1] == INDEXING_NAMES[0].length;
        if (index2index) {
            if (at != ix.index2indexAt) {
                throw new Damaged(where + "an index2index array at byte=" + at + ", where the store header says byte="
                        + ix.index2indexAt + " (a damaged store header or index area)", index);
            }
            return;
        }
        int slot = listedSlot(ix.index2index, at);
        if (slot < 0) {
            long listed = arraysPassed < ix.index2index.length ? ix.index2index[arraysPassed] : -1;
            if (listed != 0) {
                throw new Damaged(where + "an index array at byte=" + at + " that the index2index array does not list (its"
                        + " slot " + arraysPassed + " says byte=" + listed + "): a damaged index area", index);
            }
            slot = arraysPassed; // written, not listed yet (a writer stopped between the two)
        }
        try {
            passedEntries = array(at, "index", ix.count).clone();
        } catch (NotUnderstood e) {
            throw new Damaged(where + "the index array at byte=" + at + " cannot be read (" + e.getMessage() + ")", index);
        }
        passedFirstSequence = (long) slot * ix.count * ix.spacing;
        passedSpacing = ix.spacing;
        arraysPassed = Math.max(arraysPassed, slot + 1);
    }

    /**
     * The slot of index2index that lists the index array at byte {@code at}, or -1. An array is known by where it is,
     * not by how many were met: a read that began from an index at the first event of an array's range ({@link
     * #toIndex}) counted that array as passed while its excerpt was still ahead, and the check then named the healthy
     * 10 M-event journal of the replay bench damaged ('index array 3 at byte=170595176, where the index2index array
     * says byte=255939312').
     */
    private static int listedSlot(long[] index2index, long at) {
        for (int k = 0; k < index2index.length; k++) {
            if (index2index[k] == at) {
                return k;
            }
        }
        return -1;
    }

    private static long align4(long p) {
        return (p + 3) & ~3L;
    }

    /** The store header's indexing: entries per index array, excerpts per entry, and the index2index array. */
    private record Indexing(int count, int spacing, long index2indexAt, long[] index2index) {
    }

    private Indexing indexing() {
        if (indexing != null) {
            return indexing;
        }
        int length = intAt(0) & LENGTH_MASK;
        ensure(4, length);
        int from = (int) (4 - windowStart);
        long count = field(from, from + length, "indexCount");
        long spacing = field(from, from + length, "indexSpacing");
        long index2index = field(from, from + length, "index2Index");
        if (count <= 0 || count > 1 << 20 || spacing <= 0 || spacing > 1 << 20 || Long.bitCount(spacing) != 1) {
            throw new NotUnderstood("store header indexing count=" + count + " spacing=" + spacing);
        }
        indexing = new Indexing((int) count, (int) spacing, index2index, array(index2index, "index2index", (int) count));
        return indexing;
    }

    private long[] indexArray(long at, int count) {
        if (at != indexArrayPosition) {
            indexArray = array(at, "index", count);
            indexArrayPosition = at;
        }
        return indexArray;
    }

    /**
     * The values of a metadata excerpt {@code name: [int64 array]} at {@code at}: a field name,
     * padding, then Chronicle's int64 array (capacity, used, values); unused values are 0.
     */
    private long[] array(long at, String name, int capacity) {
        if (at <= 0 || (at & 3) != 0 || at >= fileLength) {
            throw new NotUnderstood(name + " at byte=" + at);
        }
        int header = intAt(at);
        int length = header & LENGTH_MASK;
        if ((header & (NOT_COMPLETE | META_DATA)) != META_DATA) {
            throw new NotUnderstood(name + " at byte=" + at + " is not a metadata excerpt");
        }
        ensure(at + 4, length);
        int p = (int) (at + 4 - windowStart);
        int end = p + length;
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        if ((window[p] & 0xFF) != 0xb9 || window[p + 1] != n.length || end < p + 2 + n.length) {
            throw new NotUnderstood(name + " at byte=" + at + " has no field name");
        }
        for (int i = 0; i < n.length; i++) {
            if (window[p + 2 + i] != n[i]) {
                throw new NotUnderstood(name + " at byte=" + at + " is another field");
            }
        }
        p = skipPadding(p + 2 + n.length, end);
        if (p + 17 > end || (window[p] & 0xFF) != 0x8d) {
            throw new NotUnderstood(name + " at byte=" + at + " is not an int64 array");
        }
        long cap = FieldCursor.longAt(window, p + 1);
        long used = FieldCursor.longAt(window, p + 9);
        if (cap != capacity || used < 0 || used > cap || p + 17 + 8 * cap > end) {
            throw new NotUnderstood(name + " at byte=" + at + " capacity=" + cap + " used=" + used);
        }
        long[] values = new long[(int) cap];
        for (int i = 0; i < used; i++) {
            values[i] = FieldCursor.longAt(window, p + 17 + 8 * i);
        }
        return values;
    }

    private int skipPadding(int p, int end) {
        while (p < end) {
            int code = window[p] & 0xFF;
            if (code == 0x8f) {
                p++;
            } else if (code == 0x8e && p + 5 <= end) {
                p += 5 + FieldCursor.intAt(window, p + 1);
            } else {
                break;
            }
        }
        return p;
    }

    /** A number field of the binary wire document in the window's {@code [from, end)}. */
    private long field(int from, int end, String name) {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = from; i + 1 + n.length < end; i++) {
            if ((window[i] & 0xFF) != (0xC0 | n.length)) {
                continue;
            }
            for (int j = 0; j < n.length; j++) {
                if (window[i + 1 + j] != n[j]) {
                    continue outer;
                }
            }
            int p = skipPadding(i + 1 + n.length, end);
            int code = window[p] & 0xFF;
            if (code < 0x80) {
                return code;
            }
            switch (code) {
                case 0xa1: return window[p + 1] & 0xFF;
                case 0xa2: return (window[p + 1] & 0xFF | (window[p + 2] & 0xFF) << 8);
                case 0xa3: return FieldCursor.intAt(window, p + 1) & 0xFFFF_FFFFL;
                case 0xa4: return window[p + 1];
                case 0xa5: return (short) (window[p + 1] & 0xFF | (window[p + 2] & 0xFF) << 8);
                case 0xa6: return FieldCursor.intAt(window, p + 1);
                case 0xa7: return FieldCursor.longAt(window, p + 1);
                default: throw new NotUnderstood("store header field " + name + " has value code 0x" + Integer.toHexString(code));
            }
        }
        throw new NotUnderstood("store header has no field " + name);
    }
}
