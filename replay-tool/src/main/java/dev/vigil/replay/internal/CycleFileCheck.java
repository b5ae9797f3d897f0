package dev.vigil.replay.internal;

import java.io.File;
import java.nio.file.Path;

import dev.vigil.journal.JournalException;

import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueStore;

/**
 * Detects cycle files cut short. A Chronicle reader treats the end of a truncated file as the end
 * of the journal and says nothing; the store header still records where the last excerpt was
 * written, so a file that ends before that position lost its tail.
 */
public final class CycleFileCheck {
    private CycleFileCheck() {
    }

    /** Throws {@link JournalException} naming the first truncated cycle file of the journal in {@code dir}. */
    public static void requireNotTruncated(Path dir) {
        String problem;
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir.toFile()).readOnly(true).build()) {
            problem = firstTruncated(q);
        } catch (RuntimeException | InternalError unreadableHeader) {
            problem = "journal dir=" + dir + " has an unreadable cycle file header: " + unreadableHeader;
        }
        if (problem != null) {
            throw new JournalException(problem);
        }
    }

    private static String firstTruncated(SingleChronicleQueue q) {
        int first = q.firstCycle();
        int last = q.lastCycle();
        if (first == Integer.MAX_VALUE || last == Integer.MIN_VALUE) {
            return null;
        }
        for (int cycle = first; cycle <= last; cycle++) {
            SingleChronicleQueueStore store = q.storeForCycle(cycle, q.epoch(), false, null);
            if (store == null) {
                continue;
            }
            try {
                File f = store.file();
                long writePosition = store.writePosition();
                if (f != null && f.length() <= writePosition) {
                    return "journal dir=" + q.file() + " file=" + f.getName() + " is truncated: its length=" + f.length()
                            + " ends before its last excerpt at writePosition=" + writePosition
                            + "; events after the cut are lost";
                }
            } finally {
                store.close();
            }
        }
        return null;
    }
}
