package dev.vigil.journal;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * Reads a journal written by {@link JournalWriter}: from the start or from an index, a live
 * journal followed as it grows, or the events of one close through the {@link CloseIndex}.
 *
 * <p>Damage (a truncated or garbled cycle file, an event from a newer schema) ends reading with a
 * {@link JournalCorruptException} naming the file and index; every whole event before it has been
 * delivered. A reader never waits for data unless asked to {@link #follow}.
 */
public final class JournalReader implements AutoCloseable {
    private final Path dir;
    private final SingleChronicleQueue queue;
    private final ExcerptTailer tailer;
    private long lastIndex = -1;

    private JournalReader(Path dir) {
        this.dir = dir;
        try {
            this.queue = JournalDirectory.openForRead(dir);
        } catch (JournalException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new JournalException("cannot open journal dir=" + dir + ": " + e, e);
        }
        this.tailer = queue.createTailer();
    }

    /** Opens an existing journal; fails with a clear message if {@code dir} is not one. */
    public static JournalReader open(Path dir) {
        return new JournalReader(dir);
    }

    /** Receives one event and the Chronicle index it was read from. */
    @FunctionalInterface
    public interface EventSink {
        /** @return false to stop reading */
        boolean accept(long index, JournalEvent event);
    }

    /** Receives the header of each excerpt; the body is decoded only when the filter wants it. */
    @FunctionalInterface
    public interface TypeFilter {
        boolean wants(EventType type);
    }

    public JournalReader fromStart() {
        tailer.toStart();
        return this;
    }

    /** Positions the reader at {@code index} (as given by {@link EventSink}); false if absent. */
    public boolean fromIndex(long index) {
        return tailer.moveToIndex(index);
    }

    /** Reads the next event, or returns null at the current end of the journal. */
    public JournalEvent next() {
        JournalEvent[] out = new JournalEvent[1];
        read(t -> true, (i, e) -> {
            out[0] = e;
            return false;
        }, () -> false);
        return out[0];
    }

    /** Index of the last event returned. */
    public long lastIndex() {
        return lastIndex;
    }

    /** Reads every event from the current position to the current end. Returns how many were read. */
    public long readAll(EventSink sink) {
        return read(t -> true, sink, () -> false);
    }

    /** Like {@link #readAll} but decodes only the kinds {@code filter} wants; others are skipped by header. */
    public long read(TypeFilter filter, EventSink sink) {
        return read(filter, sink, () -> false);
    }

    /**
     * Reads events as they are appended, waiting at the end while {@code keepWaiting} says so.
     * The wait polls with short parks; it ends when the sink returns false or keepWaiting is false.
     */
    public long follow(EventSink sink, BooleanSupplier keepWaiting) {
        return read(t -> true, sink, keepWaiting);
    }

    private long read(TypeFilter filter, EventSink sink, BooleanSupplier keepWaiting) {
        long delivered = 0;
        while (true) {
            long index = -1;
            EventType type;
            JournalEvent event = null;
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent()) {
                    if (keepWaiting.getAsBoolean()) {
                        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                        continue;
                    }
                    return delivered;
                }
                if (dc.isMetaData()) {
                    continue;
                }
                index = dc.index();
                Bytes<?> bytes = dc.wire().bytes();
                type = EventCodec.readHeader(bytes);
                if (filter.wants(type)) {
                    event = EventCodec.readBody(type, bytes);
                }
            } catch (EventCodec.UnsupportedSchemaException e) {
                throw corrupt(index, e.getMessage(), e);
            } catch (JournalException e) {
                throw e;
            } catch (RuntimeException | AssertionError | InternalError e) {
                throw corrupt(index, "unreadable excerpt: " + e, e);
            }
            if (event != null) {
                lastIndex = index;
                delivered++;
                if (!sink.accept(index, event)) {
                    return delivered;
                }
            }
        }
    }

    /**
     * Every event of one close, found through the close index (a scan only when the journal has
     * no index entry for it): from its {@link CloseStarted} up to and including its
     * {@link CloseCompleted}, or to the end of the journal if it never completed. Events of the
     * same pool without a close id (child spawn, transitions) inside that span are included.
     */
    public List<IndexedEvent> eventsOfClose(long closeId) {
        Map<Long, CloseIndex.Span> spans = CloseIndex.load(dir);
        CloseIndex.Span span = spans.get(closeId);
        List<IndexedEvent> out = new ArrayList<>();
        if (span != null) {
            if (!tailer.moveToIndex(span.startIndex())) {
                throw new JournalException("journal dir=" + dir + " close-index names index=" + span.startIndex()
                        + " for closeId=" + closeId + " but the journal has no such excerpt");
            }
        } else {
            tailer.toStart();
        }
        String[] pool = {span == null ? null : span.poolId()};
        readAll((i, e) -> {
            if (e.closeId() == closeId) {
                pool[0] = e.poolId();
                out.add(new IndexedEvent(i, e));
                return !(e instanceof CloseCompleted);
            }
            if (pool[0] != null && pool[0].equals(e.poolId()) && e.closeId() == 0) {
                out.add(new IndexedEvent(i, e));
            }
            return true;
        });
        return out;
    }

    /** An event with the Chronicle index it was read from. */
    public record IndexedEvent(long index, JournalEvent event) {
    }

    private JournalCorruptException corrupt(long index, String what, Throwable cause) {
        long at = index >= 0 ? index : tailer.index();
        return new JournalCorruptException("journal dir=" + dir + " file=" + fileOf(at) + " index=" + hex(at)
                + ": " + what, at, cause);
    }

    private String fileOf(long index) {
        try {
            RollCycle rc = queue.rollCycle();
            int cycle = rc.toCycle(index);
            String pattern = rc.format();
            Instant start = Instant.ofEpochMilli((long) cycle * rc.lengthInMillis());
            return DateTimeFormatter.ofPattern(pattern).withZone(ZoneOffset.UTC).format(start) + ".cq4";
        } catch (RuntimeException e) {
            return "?";
        }
    }

    private static String hex(long index) {
        return "0x" + Long.toHexString(index);
    }

    @Override
    public void close() {
        tailer.close();
        queue.close();
    }
}
