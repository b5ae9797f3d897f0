package dev.vigil.journal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * Where each close starts and ends in the journal, kept in a small queue beside it, so that the
 * events of one close are found without scanning the whole journal. Written by the appender thread
 * as it writes {@link CloseStarted} and {@link CloseCompleted}, and as it first writes to a cycle
 * file; one entry: {@code u8 kind (0 start, 1 end, 2 cycle) | i64 closeId (kind 2: the cycle) |
 * utf8 poolId (kind 2: empty) | i64 journal index (kind 2: the first this writer wrote in the cycle)}.
 * The cycle entries let a reader tell a cycle file that was removed from a day without events.
 */
public final class CloseIndex {
    private static final int START = 0;
    private static final int END = 1;
    private static final int CYCLE = 2;

    private CloseIndex() {
    }

    /** Where one close sits in the journal. {@code endIndex} is -1 while the close has no completion. */
    public record Span(long closeId, String poolId, long startIndex, long endIndex) {
    }

    static void append(ExcerptAppender appender, JournalEvent event, long journalIndex) {
        try (DocumentContext dc = appender.writingDocument()) {
            Bytes<?> b = dc.wire().bytes();
            b.writeUnsignedByte(event instanceof CloseStarted ? START : END);
            b.writeLong(event.closeId());
            b.writeUtf8(event.poolId());
            b.writeLong(journalIndex);
        }
    }

    static void appendCycle(ExcerptAppender appender, int cycle, long firstIndex) {
        try (DocumentContext dc = appender.writingDocument()) {
            Bytes<?> b = dc.wire().bytes();
            b.writeUnsignedByte(CYCLE);
            b.writeLong(cycle);
            b.writeUtf8("");
            b.writeLong(firstIndex);
        }
    }

    /**
     * One entry of the index, as written; {@code closeId} is the cycle for a cycle entry. {@code entryIndex} is the
     * entry's own index in the close index queue and {@code byteOffset} the position of its header in its file (where a
     * damaged entry is named).
     */
    public record Entry(int kind, long closeId, String poolId, long journalIndex, long entryIndex, long byteOffset) {
        public boolean isStart() {
            return kind == START;
        }

        public boolean isEnd() {
            return kind == END;
        }

        public boolean isCycle() {
            return kind == CYCLE;
        }
    }

    /**
     * Hands every entry of the index to {@code sink}, in the order written (a kind this build does
     * not know included). Returns false when the index is damaged (reading stopped there); true when
     * it was read whole, or the journal has none.
     */
    public static boolean read(Path journalDir, java.util.function.Consumer<Entry> sink) {
        Entries read = entries(journalDir);
        for (int i = 0; i < read.size; i++) {
            sink.accept(read.entry(i));
        }
        return read.whole;
    }

    /**
     * The index's entries, read once per process while its files stay as they are ({@link #lastRead}): with
     * {@link PlainExcerpts} when it fully understands the index, else with Chronicle's tailer (damage, a string beyond
     * ASCII, anything unexpected), each up to where it stops.
     */
    private static Entries entries(Path journalDir) {
        Path indexDir = journalDir.resolve(JournalSchema.CLOSE_INDEX_DIR);
        if (!java.nio.file.Files.isDirectory(indexDir)) {
            return Entries.NONE;
        }
        List<CycleFiles.CycleFile> files;
        try {
            files = CycleFiles.inspect(indexDir, java.util.Set.of());
        } catch (JournalException unlistable) {
            return new Entries();
        }
        Entries before = lastRead;
        if (before != null && indexDir.equals(before.indexDir) && files.equals(before.files)) {
            return before;
        }
        Entries read;
        if (files.stream().anyMatch(f -> !f.readable())) {
            read = new Entries(); // not whole: empty, zeroed, no store header: Chronicle's tailer would wait 25 s on it, then give up
        } else {
            read = PlainExcerpts.ENABLED ? readPlain(indexDir, files) : null;
            if (read == null) {
                read = readWithChronicle(journalDir, files);
            }
        }
        read.indexDir = indexDir;
        read.files = files;
        lastRead = read;
        return read;
    }

    private static Entries readWithChronicle(Path journalDir, List<CycleFiles.CycleFile> files) {
        SingleChronicleQueue q;
        try {
            q = JournalDirectory.openCloseIndexForRead(journalDir);
        } catch (RuntimeException damagedIndex) {
            return new Entries();
        }
        Entries out = new Entries();
        if (q == null) {
            out.whole = true;
            return out;
        }
        Map<Integer, Long> lastRead = new java.util.HashMap<>();
        try (q; ExcerptTailer tailer = q.createTailer()) {
            while (true) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent()) {
                        out.whole = readToTheirEnds(files, lastRead);
                        return out;
                    }
                    if (dc.isMetaData()) {
                        continue;
                    }
                    Bytes<?> b = dc.wire().bytes();
                    long header = b.readPosition() - 4; // a cycle file's bytes are addressed by file position
                    int kind = b.readUnsignedByte();
                    long closeId = b.readLong();
                    String pool = b.readUtf8();
                    long index = b.readLong();
                    lastRead.put(JournalDirectory.ROLL_CYCLE.toCycle(dc.index()),
                            JournalDirectory.ROLL_CYCLE.toSequenceNumber(dc.index()));
                    out.add(kind, closeId, pool, index, dc.index(), header);
                }
            }
        } catch (RuntimeException | InternalError damagedIndex) {
            out.whole = false;
            return out;
        }
    }

    /**
     * Each file was read to the last entry its store header records (Chronicle's tailer stops quietly where a cut or
     * zeroed region begins: an index that lost entries so must not read as whole).
     */
    private static boolean readToTheirEnds(List<CycleFiles.CycleFile> files, Map<Integer, Long> lastRead) {
        for (CycleFiles.CycleFile f : files) {
            if (f.lastSequence() >= 0 && lastRead.getOrDefault(f.cycle(), -1L) < f.lastSequence()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The entries read with {@link PlainExcerpts} (no Chronicle runtime), or null when it does not
     * fully understand the index (damage, a string beyond ASCII, anything unexpected): then
     * Chronicle's tailer reads it, as before.
     */
    static List<Entry> readPlain(Path journalDir) {
        Path indexDir = journalDir.resolve(JournalSchema.CLOSE_INDEX_DIR);
        if (!java.nio.file.Files.isDirectory(indexDir)) {
            return List.of();
        }
        Entries read;
        try {
            read = readPlain(indexDir, CycleFiles.inspect(indexDir, java.util.Set.of()));
        } catch (JournalException unlistable) {
            return null;
        }
        if (read == null) {
            return null;
        }
        List<Entry> out = new ArrayList<>(read.size);
        for (int i = 0; i < read.size; i++) {
            out.add(read.entry(i));
        }
        return out;
    }

    private static Entries readPlain(Path indexDir, List<CycleFiles.CycleFile> files) {
        TreeMap<Integer, CycleFiles.CycleFile> cycles = new TreeMap<>();
        for (CycleFiles.CycleFile f : files) {
            cycles.put(f.cycle(), f);
        }
        Entries out = new Entries();
        try (PlainExcerpts excerpts = new PlainExcerpts(cycles)) {
            excerpts.toStart();
            for (long i = excerpts.next(); i >= 0; i = excerpts.next()) {
                if (!out.add(excerpts.buffer(), excerpts.bodyOffset(), excerpts.bodyLength(), i,
                        excerpts.bodyEnd() - excerpts.bodyLength() - 4)) {
                    return null;
                }
            }
        } catch (PlainExcerpts.NotUnderstood notPlain) {
            return null;
        }
        out.whole = true;
        return out;
    }

    /**
     * The index's entries as read, in columns: no object per entry (a 10 M-event journal's index has ~31,000, and a
     * short command such as {@code show} reads them all once), and what the checks made of them ({@link #checked}),
     * kept with them. Also the files they were read from, as inspected then (each file's length and the position and
     * sequence of its last entry per its store header): entries are only ever appended, so unchanged files mean
     * unchanged entries, and a command that asks two or three times (the close's span, the cycles a reader checks,
     * the damage) reads them once.
     */
    private static final class Entries {
        /** A journal without an index. */
        static final Entries NONE = new Entries();

        static {
            NONE.whole = true;
        }

        Path indexDir;
        List<CycleFiles.CycleFile> files;
        /** Read to its end: Chronicle's tailer stopped at damage, or a file could not be read. */
        boolean whole;
        int size;
        private byte[] kinds = new byte[0];
        private long[] closeIds = new long[0];
        private long[] journalIndexes = new long[0];
        private long[] entryIndexes = new long[0];
        private long[] byteOffsets = new long[0];
        /** Entry i's pool id is the UTF-8 bytes {@code pools[poolEnds[i - 1], poolEnds[i])}; null when poolNull[i]. */
        private int[] poolEnds = new int[0];
        private boolean[] poolNull = new boolean[0];
        private byte[] pools = new byte[0];
        private Checked checked;

        int kind(int i) {
            return kinds[i] & 0xFF;
        }

        long closeId(int i) {
            return closeIds[i];
        }

        long journalIndex(int i) {
            return journalIndexes[i];
        }

        String pool(int i) {
            if (poolNull[i]) {
                return null;
            }
            int from = i == 0 ? 0 : poolEnds[i - 1];
            return new String(pools, from, poolEnds[i] - from, java.nio.charset.StandardCharsets.UTF_8);
        }

        Entry entry(int i) {
            return new Entry(kind(i), closeIds[i], pool(i), journalIndexes[i], entryIndexes[i], byteOffsets[i]);
        }

        /** One entry as {@link #append} wrote it; false unless the body is exactly that with an ASCII pool id. */
        boolean add(byte[] b, int at, int length, long entryIndex, long byteOffset) {
            int end = at + length;
            if (length < 1 + 8 + 1 + 8) {
                return false;
            }
            int p = at + 9;
            int n = b[p++];
            if (n < 0 || p + n + 8 != end) {
                return false; // a stop-bit length of 128 or more, the null marker, or not this layout
            }
            for (int i = p; i < p + n; i++) {
                if (b[i] < 0) {
                    return false;
                }
            }
            add(b[at] & 0xFF, FieldCursor.longAt(b, at + 1), b, p, n, false, FieldCursor.longAt(b, p + n), entryIndex,
                    byteOffset);
            return true;
        }

        void add(int kind, long closeId, String pool, long journalIndex, long entryIndex, long byteOffset) {
            byte[] utf8 = pool == null ? new byte[0] : pool.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            add(kind, closeId, utf8, 0, utf8.length, pool == null, journalIndex, entryIndex, byteOffset);
        }

        private void add(int kind, long closeId, byte[] pool, int poolAt, int poolLength, boolean noPool,
                long journalIndex, long entryIndex, long byteOffset) {
            if (size == kinds.length) {
                int n = Math.max(1024, size * 2);
                kinds = java.util.Arrays.copyOf(kinds, n);
                closeIds = java.util.Arrays.copyOf(closeIds, n);
                journalIndexes = java.util.Arrays.copyOf(journalIndexes, n);
                entryIndexes = java.util.Arrays.copyOf(entryIndexes, n);
                byteOffsets = java.util.Arrays.copyOf(byteOffsets, n);
                poolEnds = java.util.Arrays.copyOf(poolEnds, n);
                poolNull = java.util.Arrays.copyOf(poolNull, n);
            }
            int from = size == 0 ? 0 : poolEnds[size - 1];
            if (from + poolLength > pools.length) {
                pools = java.util.Arrays.copyOf(pools, Math.max(16 * 1024, Math.max(from + poolLength, pools.length * 2)));
            }
            System.arraycopy(pool, poolAt, pools, from, poolLength);
            kinds[size] = (byte) kind;
            closeIds[size] = closeId;
            journalIndexes[size] = journalIndex;
            entryIndexes[size] = entryIndex;
            byteOffsets[size] = byteOffset;
            poolEnds[size] = from + poolLength;
            poolNull[size] = noPool;
            size++;
        }
    }

    /** The entries of the last index read in this process ({@link Entries}). */
    private static volatile Entries lastRead;

    /**
     * What the index says about the journal: every cycle events were written to (its cycle entries, and the cycles of
     * the journal indexes of its close entries), up to its first damaged entry, and that entry named ({@code damage},
     * null when none). Empty without an index. From cycle {@code recordsFrom} on, a writer recorded every cycle it
     * wrote to (a cycle entry as it first writes to it): so when the index is {@code whole} (read to its end, no
     * damaged entry, no kind this build does not know), a cycle file there that it does not record holds events it
     * never wrote. {@code recordsFrom} is {@link Integer#MIN_VALUE} when the index's first entry is the cycle entry of
     * a journal's first event (sequence 0: every cycle is recorded), the cycle of its first cycle entry otherwise (an
     * index begun by a writer from before cycle entries, or begun again after it was removed), and
     * {@link Integer#MAX_VALUE} when it has none.
     */
    public record Written(java.util.Set<Integer> cycles, String damage, boolean whole, int recordsFrom) {
        /** True when a cycle file of {@code cycle} holding events must be one this index records. */
        public boolean mustRecord(int cycle) {
            return whole && cycle >= recordsFrom;
        }
    }

    /** {@link Written} of the journal in {@code journalDir}. */
    public static Written cyclesWritten(Path journalDir) {
        return checked(entries(journalDir)).written();
    }

    /** The index's first damaged entry named (as {@link Written#damage}), or null when it has none. */
    public static String damage(Path journalDir) {
        return checked(entries(journalDir)).written().damage();
    }

    /** The number of entries before the first damaged one, and what they say ({@link Written}). */
    private record Checked(int count, Written written) {
    }

    /**
     * The entries of the index up to its first damaged one, checked once per read of the index. The index has no
     * checksum, so an entry is called damaged when it cannot be what the writer wrote: the appender thread writes
     * entries in journal order (each journal index at or after the one before), a cycle entry names the cycle of its
     * own journal index, and, once a writer writes cycle entries, before the first close entry of each cycle; no index
     * lies in a cycle after today. An entry out of order is told from a neighbour raised by damage by the entry after
     * it. A garbled entry would otherwise make a reader name a cycle file that never existed as missing.
     */
    private static Checked checked(Entries all) {
        Checked done = all.checked;
        if (done == null) {
            done = check(all);
            if (all != Entries.NONE) {
                all.checked = done;
            }
        }
        return done;
    }

    private static Checked check(Entries all) {
        int today = (int) (System.currentTimeMillis() / JournalDirectory.ROLL_CYCLE.lengthInMillis());
        java.util.Set<Integer> cycles = new java.util.TreeSet<>();
        long previous = 0; // no journal index is negative: a garbled one that is must not make its predecessor look late
        int cycleEntered = Integer.MIN_VALUE;
        int lastCycle = Integer.MIN_VALUE;
        int recordsFrom = Integer.MAX_VALUE;
        boolean knownKinds = true;
        int n = all.size;
        for (int i = 0; i < n; i++) {
            long index = all.journalIndex(i);
            int kind = all.kind(i);
            int cycle = cycleOf(index);
            String why = null;
            if (cycle < 0) {
                why = "its journal index=" + hex(index) + " names no cycle";
            } else if (index < previous) {
                why = "its journal index=" + hex(index) + " is before the previous entry's " + hex(previous);
            } else if (i + 1 < n && all.journalIndex(i + 1) < index && all.journalIndex(i + 1) >= previous) {
                why = "its journal index=" + hex(index) + " is after the next entry's " + hex(all.journalIndex(i + 1));
            } else if (cycle > today + 1) {
                why = "its journal index=" + hex(index) + " lies in cycle " + cycle + ", after today's (" + today + ")";
            } else if (kind == CYCLE && all.closeId(i) != cycle) {
                why = "it is a cycle entry for cycle " + all.closeId(i) + " but its journal index=" + hex(index)
                        + " lies in cycle " + cycle;
            } else if (kind != CYCLE && cycleEntered != Integer.MIN_VALUE && cycle != cycleEntered) {
                why = "its journal index=" + hex(index) + " lies in cycle " + cycle
                        + ", but the last cycle entry before it is for cycle " + cycleEntered;
            }
            if (why != null) {
                Entry e = all.entry(i);
                String damage = "close index file=" + JournalSchema.CLOSE_INDEX_DIR + "/"
                        + CycleFiles.fileName(JournalDirectory.ROLL_CYCLE.toCycle(e.entryIndex()))
                        + " entry index=" + hex(e.entryIndex()) + " (byte=" + e.byteOffset() + ") is damaged: " + why;
                // what was read of a damaged index stays usable
                return new Checked(i, new Written(cycles, damage, false, recordsFrom));
            }
            previous = index;
            if (cycle != lastCycle) { // entries come in journal order: one set insertion per run of a cycle, not per entry
                cycles.add(cycle);
                lastCycle = cycle;
            }
            if (kind == CYCLE) {
                cycleEntered = cycle;
                if (recordsFrom == Integer.MAX_VALUE) {
                    boolean fromTheStart = i == 0 && JournalDirectory.ROLL_CYCLE.toSequenceNumber(index) == 0;
                    recordsFrom = fromTheStart ? Integer.MIN_VALUE : cycle;
                }
            }
            knownKinds &= kind == START || kind == END || kind == CYCLE;
        }
        return new Checked(n, new Written(cycles, null, all.whole && knownKinds, recordsFrom));
    }

    /**
     * The cycle of a journal index, or -1 when the index names none (a garbled entry: Chronicle's {@code toCycle}
     * throws ArithmeticException for it, which once reached the user as {@code ERR: unexpected
     * java.lang.ArithmeticException: Unsigned Int 31-bit -1598141994 out of range}).
     */
    private static int cycleOf(long index) {
        try {
            return JournalDirectory.ROLL_CYCLE.toCycle(index);
        } catch (ArithmeticException noCycle) {
            return -1;
        }
    }

    private static String hex(long index) {
        return "0x" + Long.toHexString(index);
    }

    /**
     * Every close the index knows, in start order; empty when the journal has no index (then a
     * reader falls back to a scan). Damage to the index only loses index entries, never events.
     */
    public static Map<Long, Span> load(Path journalDir) {
        Entries all = entries(journalDir);
        int count = checked(all).count();
        Map<Long, Span> spans = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            long id = all.closeId(i);
            if (all.kind(i) == START) {
                spans.put(id, new Span(id, all.pool(i), all.journalIndex(i), -1));
            } else if (all.kind(i) == END) {
                long end = all.journalIndex(i);
                spans.computeIfPresent(id, (k, s) -> new Span(k, s.poolId(), s.startIndex(), end));
            }
        }
        return spans; // the index is an accelerator only; what comes before the damage in a damaged one stays usable
    }

    /**
     * Where close {@code closeId} is, as {@link #load} has it, or null when the index does not know it; without the
     * map of every close (a journal of 10 M events has ~16,000).
     */
    public static Span span(Path journalDir, long closeId) {
        Entries all = entries(journalDir);
        int count = checked(all).count();
        int start = -1;
        long end = -1;
        for (int i = 0; i < count; i++) {
            if (all.closeId(i) != closeId) {
                continue;
            }
            if (all.kind(i) == START) {
                start = i;
                end = -1;
            } else if (all.kind(i) == END && start >= 0) {
                end = all.journalIndex(i);
            }
        }
        return start < 0 ? null : new Span(closeId, all.pool(start), all.journalIndex(start), end);
    }
}
