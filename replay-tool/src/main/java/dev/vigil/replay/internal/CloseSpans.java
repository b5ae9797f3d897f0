package dev.vigil.replay.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.vigil.journal.JournalSchema;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * The stretches of a journal that hold closes, from its close index (the small queue beside the
 * journal, see {@link dev.vigil.journal.CloseIndex}): overlapping close spans merged into ranges of
 * journal indices. A command that needs only the events of closes (stats) reads these ranges and
 * skips the rest of a long journal.
 *
 * <p>Strict where {@code CloseIndex.load} is forgiving: any doubt (no index, an unreadable entry,
 * indices out of journal order) answers null, and the caller reads the whole journal. The last
 * range runs to the end of the journal, so a close whose index entry a crash kept from being
 * written is still read.
 */
public final class CloseSpans {
    private static final int START = 0;
    private static final int END = 1;

    private CloseSpans() {
    }

    /** {@code [first, last]} journal index pairs in journal order, or null to read everything. */
    public static List<long[]> ranges(Path journalDir) {
        Path indexDir = journalDir.resolve(JournalSchema.CLOSE_INDEX_DIR);
        if (!Files.isDirectory(indexDir)) {
            return null;
        }
        List<long[]> spans = new ArrayList<>();
        Map<Long, long[]> open = new HashMap<>();
        long previous = Long.MIN_VALUE;
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(indexDir.toFile()).readOnly(true).build();
                ExcerptTailer tailer = q.createTailer()) {
            while (true) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent()) {
                        break;
                    }
                    if (dc.isMetaData()) {
                        continue;
                    }
                    Bytes<?> b = dc.wire().bytes();
                    int kind = b.readUnsignedByte();
                    long closeId = b.readLong();
                    b.readUtf8();
                    long index = b.readLong();
                    if (index <= previous || (kind != START && kind != END)) {
                        return null;
                    }
                    previous = index;
                    if (kind == START) {
                        long[] span = {index, Long.MAX_VALUE};
                        open.put(closeId, span);
                        spans.add(span);
                    } else {
                        long[] span = open.remove(closeId);
                        if (span == null) {
                            return null;
                        }
                        span[1] = index;
                    }
                }
            }
        } catch (RuntimeException | InternalError damaged) {
            return null;
        }
        if (spans.isEmpty()) {
            return null;
        }
        List<long[]> ranges = new ArrayList<>();
        long[] current = null;
        for (long[] s : spans) {
            if (current != null && s[0] <= current[1]) {
                current[1] = Math.max(current[1], s[1]);
            } else {
                current = new long[] {s[0], s[1]};
                ranges.add(current);
            }
        }
        ranges.get(ranges.size() - 1)[1] = Long.MAX_VALUE;
        return ranges;
    }
}
