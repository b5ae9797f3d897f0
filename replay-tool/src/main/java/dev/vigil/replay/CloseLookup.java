package dev.vigil.replay;

import java.nio.file.Path;
import java.util.Map;

import dev.vigil.journal.CloseIndex;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.JournalDirectory;
import dev.vigil.journal.JournalException;
import dev.vigil.replay.internal.JournalScan;
import dev.vigil.replay.internal.PoolStartLocator;

/**
 * Rebuilds one close in detail. Uses the journal's close index to find the close, and reads
 * forward from where its pool began (so only that stretch of a long journal is decoded); without
 * an index entry it reads from the start.
 */
public final class CloseLookup {
    private CloseLookup() {
    }

    /**
     * The close, or a partial one plus the damage that stopped the read.
     * @param damage null when the journal was read without trouble
     */
    public record Result(RebuiltClose close, JournalException damage) {
    }

    /** Throws {@link ReplayInputException} when the journal holds no close with this id. */
    public static Result rebuild(Path dir, long closeId) {
        return rebuild(dir, closeId, null);
    }

    /**
     * Like {@link #rebuild(Path, long)}; with a mailbox map file, also the final words of every
     * child's mailbox, and for a close the journal ends inside (the orchestrator died), the ring
     * records it never drained.
     */
    public static Result rebuild(Path dir, long closeId, Path mapFile) {
        JournalDirectory.validate(dir);
        Map<Long, CloseIndex.Span> spans = CloseIndex.load(dir);
        CloseIndex.Span span = spans.get(closeId);
        long from = span == null ? -1 : PoolStartLocator.locate(dir, span.startIndex(), span.poolId());
        RebuiltClose[] found = new RebuiltClose[1];
        long[] closesSeen = {0, Long.MAX_VALUE, Long.MIN_VALUE};
        CloseReconstruction fold = new CloseReconstruction(new CloseReconstruction.Listener() {
            @Override
            public void closeStarted(CloseStarted started, long index) {
                closesSeen[0]++;
                closesSeen[1] = Math.min(closesSeen[1], started.closeId());
                closesSeen[2] = Math.max(closesSeen[2], started.closeId());
            }

            @Override
            public void closeRebuilt(RebuiltClose close) {
                if (close.closeId() == closeId && found[0] == null) {
                    found[0] = close;
                }
            }
        }, closeId);
        JournalException damage = null;
        try {
            JournalScan.read(dir, from, CloseReconstruction.KINDS, (i, e) -> {
                fold.accept(i, e);
                return found[0] == null;
            });
        } catch (JournalException e) {
            damage = e;
        }
        try (MailboxMapFile map = mapFile == null ? null : MailboxMapFile.open(mapFile)) {
            if (found[0] == null) {
                if (map != null && damage == null) {
                    fold.finishFromMap(map);
                }
                fold.finish();
            }
            if (map != null && found[0] != null) {
                for (ChildHistory c : found[0].children()) {
                    if (c.finalWords == null && c.mailboxOffset() >= 0) {
                        c.finalWords = map.read(c.mailboxOffset());
                    }
                }
            }
        }
        if (found[0] == null) {
            if (damage != null) {
                throw damage;
            }
            String known = closesSeen[0] == 0 ? "it holds no closes"
                    : "it holds " + closesSeen[0] + " closes, ids " + closesSeen[1] + ".." + closesSeen[2];
            throw new ReplayInputException("close id=" + closeId + " is not in journal dir=" + dir + " (" + known + ")");
        }
        return new Result(found[0], damage);
    }
}
