package dev.vigil.replay;

import java.nio.file.Path;

import dev.vigil.journal.CloseIndex;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.JournalCorruptException;
import dev.vigil.journal.JournalDirectory;
import dev.vigil.journal.JournalException;
import dev.vigil.journal.JournalReader;
import dev.vigil.replay.internal.JournalScan;
import dev.vigil.replay.internal.PoolStartLocator;
import dev.vigil.replay.source.EventSource;
import dev.vigil.replay.source.JournalDirectorySource;

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

    /** True when the source's journal holds the start of close {@code closeId}. */
    public static boolean holds(EventSource source, long closeId) {
        boolean[] found = {false};
        source.read(java.util.EnumSet.of(dev.vigil.journal.EventType.CLOSE_STARTED), (i, e) -> {
            found[0] = ((CloseStarted) e).closeId() == closeId;
            return !found[0];
        });
        return found[0];
    }

    /**
     * The close id and journal directory of a command taking {@code DIR CLOSE}, or {@code CLOSE} alone
     * with {@code --kafka}.
     */
    public record Target(Path dir, long closeId) {
        public static Target of(java.util.List<String> args, SourceOptions source) {
            int expected = source.fromKafka() ? 1 : 2;
            if (args.size() != expected) {
                throw new ReplayInputException(source.fromKafka() ? "with --kafka give the CLOSE id alone (no DIR)"
                        : "give a journal DIR and a CLOSE id (see: vigil-replay closes DIR)");
            }
            String id = args.get(expected - 1);
            try {
                return new Target(expected == 2 ? Path.of(args.get(0)) : null, Long.parseLong(id));
            } catch (NumberFormatException e) {
                throw new ReplayInputException("CLOSE must be a close id (a number, see: vigil-replay closes), not '" + id + "'");
            }
        }
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
        return rebuild(new JournalDirectorySource(dir), closeId, mapFile);
    }

    /**
     * Like {@link #rebuild(Path, long, Path)} over any source: a journal directory is read from where
     * the close's pool began (its close index), a shipped journal (Kafka) from its start.
     */
    public static Result rebuild(EventSource source, long closeId, Path mapFile) {
        Path dir = source.journalDir();
        long from = -1;
        if (dir != null) {
            JournalDirectory.validate(dir);
            CloseIndex.Span span = CloseIndex.span(dir, closeId);
            from = span == null ? -1 : PoolStartLocator.locate(dir, span.startIndex(), span.poolId());
        }
        int live = source.liveOrchestratorPid(); // before the read: see CloseReconstruction.finish(int)
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
            JournalReader.EventSink sink = (i, e) -> {
                fold.accept(i, e);
                return found[0] == null;
            };
            if (dir != null) {
                JournalScan.read(dir, from, CloseReconstruction.KINDS, sink);
            } else {
                source.read(CloseReconstruction.KINDS, sink);
            }
        } catch (JournalException e) {
            damage = e;
        }
        if (damage == null && dir != null && found[0] != null) {
            String indexDamage = CloseIndex.damage(dir); // the close was read from its events; its index is still damaged
            if (indexDamage != null) {
                damage = new JournalCorruptException("journal dir=" + dir + " " + indexDamage
                        + "; the close was rebuilt from the journal's events", -1, null);
            }
        }
        try (MailboxMapFile map = mapFile == null ? null : MailboxMapFile.open(mapFile)) {
            if (found[0] == null) {
                if (map != null && damage == null) {
                    fold.finishFromMap(map);
                }
                fold.finish(live);
            }
            if (map != null && found[0] != null) {
                for (ChildHistory c : found[0].children()) {
                    c.readFrom(map);
                }
            }
        }
        if (found[0] == null) {
            if (damage != null) {
                throw damage;
            }
            String known = closesSeen[0] == 0 ? "it holds no closes"
                    : "it holds " + closesSeen[0] + " closes, ids " + closesSeen[1] + ".." + closesSeen[2];
            throw new ReplayInputException("close id=" + closeId + " is not in " + source.describe() + " (" + known + ")");
        }
        return new Result(found[0], damage);
    }
}
