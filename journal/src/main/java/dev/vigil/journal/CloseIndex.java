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

    /** One entry of the index, as written; {@code closeId} is the cycle for a cycle entry. */
    public record Entry(int kind, long closeId, String poolId, long journalIndex) {
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
        try (q; ExcerptTailer tailer = q.createTailer()) {
            while (true) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent()) {
                        return true;
                    }
                    if (dc.isMetaData()) {
                        continue;
                    }
                    Bytes<?> b = dc.wire().bytes();
                    int kind = b.readUnsignedByte();
                    long closeId = b.readLong();
                    String pool = b.readUtf8();
                    long index = b.readLong();
                    sink.accept(new Entry(kind, closeId, pool, index));
                }
            }
        } catch (RuntimeException | InternalError damagedIndex) {
            return false;
        }
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
                Entry e = entry(excerpts.buffer(), excerpts.bodyOffset(), excerpts.bodyLength());
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
    private static Entry entry(byte[] b, int at, int length) {
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
                FieldCursor.longAt(b, p + n));
    }


    /**
     * Every cycle the index says events were written to: its cycle entries, and the cycles of the
     * journal indexes of its close entries. Empty without an index; a damaged index gives what was read.
     */
    public static java.util.Set<Integer> cyclesWritten(Path journalDir) {
        java.util.Set<Integer> cycles = new java.util.TreeSet<>();
        int[] last = {Integer.MIN_VALUE};
        read(journalDir, e -> {
            int cycle = e.isCycle() ? (int) e.closeId() : JournalDirectory.ROLL_CYCLE.toCycle(e.journalIndex());
            if (cycle != last[0]) { // entries come in journal order: one set insertion per run of a cycle, not per entry
                cycles.add(cycle);
                last[0] = cycle;
            }
        });
        return cycles; // an accelerator and a cross-check only: what was read of a damaged index stays usable
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
        read(journalDir, e -> {
            if (!wanted.test(e.closeId())) {
                return;
            }
            if (e.isStart()) {
                spans.put(e.closeId(), new Span(e.closeId(), e.poolId(), e.journalIndex(), -1));
            } else if (e.isEnd()) {
                spans.computeIfPresent(e.closeId(), (id, s) -> new Span(id, s.poolId(), s.startIndex(), e.journalIndex()));
            }
        });
        return spans; // the index is an accelerator only; whatever was read of a damaged one stays usable
    }
}
