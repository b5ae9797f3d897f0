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
        Path indexDir = journalDir.resolve(JournalSchema.CLOSE_INDEX_DIR);
        if (!java.nio.file.Files.isDirectory(indexDir)) {
            return true;
        }
        List<CycleFiles.CycleFile> files;
        try {
            files = CycleFiles.inspect(indexDir, JournalDirectory.ROLL_CYCLE, 0, java.util.Set.of());
        } catch (JournalException unlistable) {
            return false;
        }
        if (files.stream().anyMatch(f -> !f.readable())) {
            return false; // empty, zeroed, no store header: Chronicle's tailer would wait 25 s on it, then give up
        }
        List<Entry> plain = PlainExcerpts.ENABLED ? readPlain(indexDir, files) : null;
        if (plain != null) {
            plain.forEach(sink);
            return true;
        }
        SingleChronicleQueue q;
        try {
            q = JournalDirectory.openCloseIndexForRead(journalDir);
        } catch (RuntimeException damagedIndex) {
            return false;
        }
        if (q == null) {
            return true;
        }
        Map<Integer, Long> lastRead = new java.util.HashMap<>();
        try (q; ExcerptTailer tailer = q.createTailer()) {
            while (true) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent()) {
                        return readToTheirEnds(files, lastRead);
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
                    sink.accept(new Entry(kind, closeId, pool, index, dc.index(), header));
                }
            }
        } catch (RuntimeException | InternalError damagedIndex) {
            return false;
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
        try {
            return readPlain(indexDir, CycleFiles.inspect(indexDir, JournalDirectory.ROLL_CYCLE, 0, java.util.Set.of()));
        } catch (JournalException unlistable) {
            return null;
        }
    }

    private static List<Entry> readPlain(Path indexDir, List<CycleFiles.CycleFile> files) {
        TreeMap<Integer, CycleFiles.CycleFile> cycles = new TreeMap<>();
        for (CycleFiles.CycleFile f : files) {
            cycles.put(f.cycle(), f);
        }
        ReadBefore before = lastRead;
        if (before != null && before.indexDir.equals(indexDir) && before.files.equals(files)) {
            return before.entries;
        }
        List<Entry> out = new ArrayList<>();
        try (PlainExcerpts excerpts = new PlainExcerpts(cycles)) {
            excerpts.toStart();
            for (long i = excerpts.next(); i >= 0; i = excerpts.next()) {
                Entry e = entry(excerpts.buffer(), excerpts.bodyOffset(), excerpts.bodyLength(), i,
                        excerpts.bodyEnd() - excerpts.bodyLength() - 4);
                if (e == null) {
                    return null;
                }
                out.add(e);
            }
        } catch (PlainExcerpts.NotUnderstood notPlain) {
            return null;
        }
        lastRead = new ReadBefore(indexDir, files, List.copyOf(out));
        return lastRead.entries;
    }

    /**
     * The entries of the last index read whole in this process, and its files as inspected then (each
     * file's length and the position and sequence of its last entry per its store header): a command
     * reads the index two or three times (the close's span, the cycles a reader checks); entries are
     * only ever appended, so unchanged files mean unchanged entries.
     */
    private record ReadBefore(Path indexDir, List<CycleFiles.CycleFile> files, List<Entry> entries) {
    }

    private static volatile ReadBefore lastRead;

    /** One entry as {@link #append} wrote it, or null unless the body is exactly that with an ASCII pool id. */
    private static Entry entry(byte[] b, int at, int length, long entryIndex, long byteOffset) {
        int end = at + length;
        if (length < 1 + 8 + 1 + 8) {
            return null;
        }
        int kind = b[at] & 0xFF;
        long closeId = FieldCursor.longAt(b, at + 1);
        int p = at + 9;
        int n = b[p++];
        if (n < 0 || p + n + 8 != end) {
            return null; // a stop-bit length of 128 or more, the null marker, or not this layout
        }
        for (int i = p; i < p + n; i++) {
            if (b[i] < 0) {
                return null;
            }
        }
        return new Entry(kind, closeId, new String(b, p, n, java.nio.charset.StandardCharsets.US_ASCII),
                FieldCursor.longAt(b, p + n), entryIndex, byteOffset);
    }


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
        java.util.Set<Integer> cycles = new java.util.TreeSet<>();
        Checked checked = checked(journalDir);
        int last = Integer.MIN_VALUE;
        int recordsFrom = Integer.MAX_VALUE;
        boolean knownKinds = true;
        for (Entry e : checked.entries()) {
            int cycle = JournalDirectory.ROLL_CYCLE.toCycle(e.journalIndex());
            if (cycle != last) { // entries come in journal order: one set insertion per run of a cycle, not per entry
                cycles.add(cycle);
                last = cycle;
            }
            if (e.isCycle() && recordsFrom == Integer.MAX_VALUE) {
                boolean fromTheStart = cycles.size() == 1 && JournalDirectory.ROLL_CYCLE.toSequenceNumber(e.journalIndex()) == 0
                        && e == checked.entries().get(0);
                recordsFrom = fromTheStart ? Integer.MIN_VALUE : cycle;
            }
            knownKinds &= e.isStart() || e.isEnd() || e.isCycle();
        }
        // what was read of a damaged index stays usable
        return new Written(cycles, checked.damage(), checked.whole() && checked.damage() == null && knownKinds,
                recordsFrom);
    }

    /** The index's first damaged entry named (as {@link Written#damage}), or null when it has none. */
    public static String damage(Path journalDir) {
        return checked(journalDir).damage();
    }

    /** The entries before the first damaged one, and that one named (null when none); whole: read to its end. */
    private record Checked(List<Entry> entries, String damage, boolean whole) {
    }

    /**
     * The entries of the index up to its first damaged one. The index has no checksum, so an entry is called damaged
     * when it cannot be what the writer wrote: the appender thread writes entries in journal order (each journal index
     * at or after the one before), a cycle entry names the cycle of its own journal index, and, once a writer writes
     * cycle entries, before the first close entry of each cycle; no index lies in a cycle after today. An entry out of
     * order is told from a neighbour raised by damage by the entry after it. A garbled entry would otherwise make a
     * reader name a cycle file that never existed as missing.
     */
    private static Checked checked(Path journalDir) {
        List<Entry> all = new ArrayList<>();
        boolean whole = read(journalDir, all::add);
        int today = (int) (System.currentTimeMillis() / JournalDirectory.ROLL_CYCLE.lengthInMillis());
        long previous = Long.MIN_VALUE;
        int cycleEntered = Integer.MIN_VALUE;
        for (int i = 0; i < all.size(); i++) {
            Entry e = all.get(i);
            int cycle = JournalDirectory.ROLL_CYCLE.toCycle(e.journalIndex());
            String why = null;
            if (e.journalIndex() < previous) {
                why = "its journal index=" + hex(e.journalIndex()) + " is before the previous entry's " + hex(previous);
            } else if (i + 1 < all.size() && all.get(i + 1).journalIndex() < e.journalIndex()
                    && all.get(i + 1).journalIndex() >= previous) {
                why = "its journal index=" + hex(e.journalIndex()) + " is after the next entry's "
                        + hex(all.get(i + 1).journalIndex());
            } else if (cycle > today + 1) {
                why = "its journal index=" + hex(e.journalIndex()) + " lies in cycle " + cycle + ", after today's (" + today
                        + ")";
            } else if (e.isCycle() && e.closeId() != cycle) {
                why = "it is a cycle entry for cycle " + e.closeId() + " but its journal index=" + hex(e.journalIndex())
                        + " lies in cycle " + cycle;
            } else if (!e.isCycle() && cycleEntered != Integer.MIN_VALUE && cycle != cycleEntered) {
                why = "its journal index=" + hex(e.journalIndex()) + " lies in cycle " + cycle
                        + ", but the last cycle entry before it is for cycle " + cycleEntered;
            }
            if (why != null) {
                return new Checked(all.subList(0, i), "close index file=" + JournalSchema.CLOSE_INDEX_DIR + "/"
                        + CycleFiles.fileName(JournalDirectory.ROLL_CYCLE.toCycle(e.entryIndex()), JournalDirectory.ROLL_CYCLE, 0)
                        + " entry index=" + hex(e.entryIndex()) + " (byte=" + e.byteOffset() + ") is damaged: " + why, whole);
            }
            previous = e.journalIndex();
            if (e.isCycle()) {
                cycleEntered = cycle;
            }
        }
        return new Checked(all, null, whole);
    }

    private static String hex(long index) {
        return "0x" + Long.toHexString(index);
    }

    /**
     * Every close the index knows, in start order; empty when the journal has no index (then a
     * reader falls back to a scan). Damage to the index only loses index entries, never events.
     */
    public static Map<Long, Span> load(Path journalDir) {
        return spans(journalDir, id -> true);
    }

    /**
     * Where close {@code closeId} is, as {@link #load} has it, or null when the index does not know it; without the
     * map of every close (a journal of 10 M events has ~16,000).
     */
    public static Span span(Path journalDir, long closeId) {
        return spans(journalDir, id -> id == closeId).get(closeId);
    }

    private static Map<Long, Span> spans(Path journalDir, java.util.function.LongPredicate wanted) {
        Map<Long, Span> spans = new LinkedHashMap<>();
        checked(journalDir).entries().forEach(e -> {
            if (!wanted.test(e.closeId())) {
                return;
            }
            if (e.isStart()) {
                spans.put(e.closeId(), new Span(e.closeId(), e.poolId(), e.journalIndex(), -1));
            } else if (e.isEnd()) {
                spans.computeIfPresent(e.closeId(), (id, s) -> new Span(id, s.poolId(), s.startIndex(), e.journalIndex()));
            }
        });
        return spans; // the index is an accelerator only; what comes before the damage in a damaged one stays usable
    }
}
