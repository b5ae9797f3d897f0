package dev.vigil.replay.internal;

import java.nio.file.Path;

import dev.vigil.journal.CycleFiles;
import dev.vigil.journal.JournalException;

/**
 * Detects cycle files cut short. A Chronicle reader treats the end of a truncated file as the end
 * of the journal and says nothing; the store header still records where the last excerpt was
 * written, so a file that ends before that position lost its tail. Read with plain file reads
 * ({@link CycleFiles}), so a command that never needs Chronicle's runtime does not start it here.
 */
public final class CycleFileCheck {
    private CycleFileCheck() {
    }

    /**
     * Throws {@link JournalException} naming the first truncated or unreadable cycle file of the journal in {@code dir}
     * (missing, or of another journal, per its close index: {@link CycleFiles#ofJournal}).
     */
    public static void requireNotTruncated(Path dir) {
        for (CycleFiles.CycleFile f : CycleFiles.ofJournal(dir).files()) {
            if (!f.readable()) {
                throw new JournalException("journal dir=" + dir + " file=" + f.file().getFileName() + " " + f.problem());
            }
            if (f.lastPosition() > 0 && f.length() <= f.lastPosition()) {
                throw new JournalException("journal dir=" + dir + " file=" + f.file().getFileName() + " is truncated: its length="
                        + f.length() + " ends before its last excerpt at writePosition=" + f.lastPosition()
                        + "; events after the cut are lost");
            }
        }
    }
}
