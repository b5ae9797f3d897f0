package dev.vigil.replay.internal;

import java.nio.file.Path;
import java.util.Set;

import dev.vigil.journal.EventType;
import dev.vigil.journal.JournalException;
import dev.vigil.journal.JournalReader;

/**
 * One pass over a journal for a replay command: decodes only the kinds the command needs (others
 * are skipped by their header), reports progress on a terminal, and lets damage surface as the
 * journal's own {@link JournalException} after every whole event before it was delivered. A read
 * that reaches the end also checks that no cycle file was cut short (Chronicle alone would take
 * the cut for the end of the journal).
 */
public final class JournalScan {
    private JournalScan() {
    }

    /**
     * Reads from {@code fromIndex} (or the start when negative) to the end, or until the sink
     * returns false. {@code kinds} null means every kind. Returns the number of excerpts read.
     */
    public static long read(Path dir, long fromIndex, Set<EventType> kinds, JournalReader.EventSink sink) {
        return read(dir, fromIndex, kinds == null ? t -> true : kinds::contains, sink);
    }

    /** Like {@link #read(Path, long, Set, JournalReader.EventSink)} with a filter of its own. */
    public static long read(Path dir, long fromIndex, JournalReader.TypeFilter filter, JournalReader.EventSink sink) {
        ScanProgress progress = ScanProgress.onTerminal();
        try (JournalReader reader = JournalReader.open(dir)) {
            if (fromIndex < 0) {
                reader.fromStart();
            } else if (!reader.fromIndex(fromIndex)) {
                throw new JournalException("journal dir=" + dir + " has no excerpt at index=0x"
                        + Long.toHexString(fromIndex));
            }
            boolean[] stopped = {false};
            reader.read(type -> {
                progress.tick();
                return filter.wants(type);
            }, (i, e) -> {
                stopped[0] = !sink.accept(i, e);
                return !stopped[0];
            });
            if (!stopped[0]) {
                CycleFileCheck.requireNotTruncated(dir);
            }
            return progress.excerpts();
        } finally {
            progress.done();
        }
    }

    /** Time of the journal's first event (the origin of relative times), or 0 for an empty journal. */
    public static long firstEventTime(Path dir) {
        try (JournalReader reader = JournalReader.open(dir)) {
            dev.vigil.journal.JournalEvent first = reader.fromStart().next();
            return first == null ? 0 : first.timeNanos();
        }
    }

    /** Reads every event of the kinds given, from the start. */
    public static long readAll(Path dir, Set<EventType> kinds, JournalReader.EventSink sink) {
        return read(dir, -1, kinds, sink);
    }
}
