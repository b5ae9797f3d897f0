package dev.vigil.replay.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.vigil.journal.CloseIndex;
import dev.vigil.journal.JournalSchema;

/**
 * The stretches of a journal that hold closes, from its close index (the small queue beside the
 * journal, see {@link dev.vigil.journal.CloseIndex}): overlapping close spans merged into ranges of
 * journal indices. A command that needs only the events of closes (stats) reads these ranges and
 * skips the rest of a long journal.
 *
 * <p>Strict where {@code CloseIndex.load} is forgiving: any doubt (no index, an unreadable entry,
 * an entry of a kind this build does not know, indices out of journal order) answers null, and the
 * caller reads the whole journal. The index's cycle entries name no close and are passed over. The
 * last range runs to the end of the journal, so a close whose index entry a crash kept from being
 * written is still read.
 */
public final class CloseSpans {
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
        long[] previous = {Long.MIN_VALUE};
        boolean[] inOrder = {true};
        boolean whole = CloseIndex.read(journalDir, e -> {
            if (e.journalIndex() <= previous[0] || !e.isStart() && !e.isEnd() && !e.isCycle()) {
                inOrder[0] = false;
            }
            previous[0] = e.journalIndex();
            if (e.isStart()) {
                long[] span = {e.journalIndex(), Long.MAX_VALUE};
                open.put(e.closeId(), span);
                spans.add(span);
            } else if (e.isEnd()) {
                long[] span = open.remove(e.closeId());
                if (span == null) {
                    inOrder[0] = false;
                } else {
                    span[1] = e.journalIndex();
                }
            }
        });
        if (!whole || !inOrder[0]) {
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
