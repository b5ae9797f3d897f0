package dev.vigil.replay.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.vigil.journal.ChildSpawned;
import dev.vigil.journal.CycleFiles;
import dev.vigil.journal.EventDecoder;
import dev.vigil.journal.EventType;
import dev.vigil.journal.JournalDirectory;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalReader;
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
 *
 * <p>Within the close's cycle it reads blocks of {@link #BLOCK} excerpts forward, each block before
 * the last ({@link JournalReader#fromIndex} lands on them through the cycle's own index, without
 * Chronicle's runtime); a pool that began in an earlier cycle is looked for with Chronicle's
 * backward tailer.
 */
public final class PoolStartLocator {
    /** Chronicle's index spacing of the journal's roll cycle: every block starts at an indexed excerpt. */
    static final int BLOCK = 256;
    private static final java.util.Set<EventType> SPAWN_KINDS = java.util.EnumSet.of(EventType.POOL_STARTED,
            EventType.CHILD_SPAWNED, EventType.SPAWN_FAILED);

    private PoolStartLocator() {
    }

    /** Index to start a rebuild of {@code poolId} from, or -1 for "from the start of the journal". */
    public static long locate(Path dir, long closeStartIndex, String poolId) {
        JournalDirectory.validate(dir);
        int startCycle = JournalDirectory.ROLL_CYCLE.toCycle(closeStartIndex);
        for (CycleFiles.CycleFile f : CycleFiles.inspect(dir, java.util.Set.of())) {
            if (f.cycle() <= startCycle && !f.readable()) {
                return -1; // reading backwards would open it; the forward read names the damage
            }
        }
        try {
            Backwards search = new Backwards(poolId);
            long found = inCycle(dir, closeStartIndex, search);
            return found != Long.MIN_VALUE ? found : withChronicle(dir, closeStartIndex, new Backwards(poolId));
        } catch (RuntimeException | InternalError damageOrDoubt) {
            return -1; // the forward read from the start reports damage with its own clear message
        }
    }

    /** The answer within the close's cycle, -1 for none, or MIN_VALUE when the search reached the cycle's start. */
    private static long inCycle(Path dir, long closeStartIndex, Backwards search) {
        int cycle = JournalDirectory.ROLL_CYCLE.toCycle(closeStartIndex);
        long last = JournalDirectory.ROLL_CYCLE.toSequenceNumber(closeStartIndex);
        try (JournalReader reader = JournalReader.open(dir)) {
            while (last >= 0) {
                long first = last - last % BLOCK;
                long end = JournalDirectory.ROLL_CYCLE.toIndex(cycle, last);
                if (!reader.fromIndex(JournalDirectory.ROLL_CYCLE.toIndex(cycle, first))) {
                    return -1;
                }
                List<Object[]> block = new ArrayList<>();
                long excerpts = last - first + 1;
                long[] seen = {0};
                // decodes only the kinds the search needs, and the first excerpt past the block (to stop there)
                reader.read(type -> ++seen[0] > excerpts || SPAWN_KINDS.contains(type), (i, e) -> {
                    if (i > end) {
                        return false;
                    }
                    block.add(new Object[] {i, e});
                    return i < end;
                });
                for (int k = block.size() - 1; k >= 0; k--) {
                    if (search.offer((Long) block.get(k)[0], (JournalEvent) block.get(k)[1])) {
                        return search.earliest;
                    }
                }
                last = first - 1;
            }
        }
        return Long.MIN_VALUE;
    }

    private static long withChronicle(Path dir, long closeStartIndex, Backwards search) {
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir.toFile()).readOnly(true).build();
                ExcerptTailer tailer = q.createTailer()) {
            tailer.direction(TailerDirection.BACKWARD);
            if (!tailer.moveToIndex(closeStartIndex)) {
                return -1;
            }
            EventDecoder decoder = new EventDecoder(JournalDirectory.markerSchemaVersion(dir) < 2);
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
                    if (!SPAWN_KINDS.contains(type)) {
                        continue;
                    }
                    if (search.offer(dc.index(), decoder.readBody(type))) {
                        return search.earliest;
                    }
                }
            }
        }
    }

    /** The search, fed events from the close backwards: its PoolStarted, then as many spawns as it counts. */
    private static final class Backwards {
        final String poolId;
        long earliest = -1;
        int spawnsExpected = -1;
        int spawnsSeen;

        Backwards(String poolId) {
            this.poolId = poolId;
        }

        /** @return true when the pool's start has been found (at {@link #earliest}) */
        boolean offer(long index, JournalEvent e) {
            if (!(e instanceof PoolStarted || e instanceof ChildSpawned || e instanceof SpawnFailed)
                    || !poolId.equals(e.poolId())) {
                return false;
            }
            if (e instanceof PoolStarted ps) {
                if (spawnsExpected < 0) {
                    spawnsExpected = ps.children();
                }
            } else if (spawnsExpected >= 0) {
                spawnsSeen++;
            }
            earliest = index;
            return spawnsExpected >= 0 && spawnsSeen >= spawnsExpected;
        }
    }
}
