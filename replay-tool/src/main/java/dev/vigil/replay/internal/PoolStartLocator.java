package dev.vigil.replay.internal;

import java.nio.file.Path;

import dev.vigil.journal.ChildSpawned;
import dev.vigil.journal.CycleFiles;
import dev.vigil.journal.EventDecoder;
import dev.vigil.journal.EventType;
import dev.vigil.journal.JournalDirectory;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.PoolStarted;
import dev.vigil.journal.SpawnFailed;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.TailerDirection;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * Finds where a pool's story begins, reading backwards from one of its closes: the earliest spawn
 * of the children its PoolStarted counts. Rebuilding a close then reads forward from there instead
 * of from the start of a long journal. The result is only an accelerator: on any doubt (no
 * PoolStarted, damage) it answers -1 and the caller reads from the start.
 */
public final class PoolStartLocator {
    private PoolStartLocator() {
    }

    /** Index to start a rebuild of {@code poolId} from, or -1 for "from the start of the journal". */
    public static long locate(Path dir, long closeStartIndex, String poolId) {
        JournalDirectory.validate(dir);
        int startCycle = JournalDirectory.ROLL_CYCLE.toCycle(closeStartIndex);
        for (CycleFiles.CycleFile f : CycleFiles.inspect(dir, JournalDirectory.ROLL_CYCLE, 0, java.util.Set.of())) {
            if (f.cycle() <= startCycle && !f.readable()) {
                return -1; // reading backwards would open it; the forward read names the damage
            }
        }
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir.toFile()).readOnly(true).build();
                ExcerptTailer tailer = q.createTailer()) {
            tailer.direction(TailerDirection.BACKWARD);
            if (!tailer.moveToIndex(closeStartIndex)) {
                return -1;
            }
            EventDecoder decoder = new EventDecoder(JournalDirectory.markerSchemaVersion(dir) < 2);
            long earliest = -1;
            int spawnsExpected = -1;
            int spawnsSeen = 0;
            while (true) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent()) {
                        return -1;
                    }
                    if (dc.isMetaData()) {
                        continue;
                    }
                    Bytes<?> bytes = dc.wire().bytes();
                    EventType type = decoder.readHeader(bytes);
                    if (type != EventType.POOL_STARTED && type != EventType.CHILD_SPAWNED
                            && type != EventType.SPAWN_FAILED) {
                        continue;
                    }
                    JournalEvent e = decoder.readBody(type);
                    if (!poolId.equals(e.poolId())) {
                        continue;
                    }
                    if (e instanceof PoolStarted ps) {
                        if (spawnsExpected < 0) {
                            spawnsExpected = ps.children();
                        }
                    } else if (spawnsExpected >= 0 && (e instanceof ChildSpawned || e instanceof SpawnFailed)) {
                        spawnsSeen++;
                    }
                    earliest = dc.index();
                    if (spawnsExpected >= 0 && spawnsSeen >= spawnsExpected) {
                        return earliest;
                    }
                }
            }
        } catch (RuntimeException | InternalError damageOrDoubt) {
            return -1; // the forward read from the start reports damage with its own clear message
        }
    }
}
