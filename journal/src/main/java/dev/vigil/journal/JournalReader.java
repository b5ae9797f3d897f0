package dev.vigil.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
    /** Chronicle's queue and tailer, opened on first need (see {@link PlainExcerpts}); null before. */
    private SingleChronicleQueue queue;
    private ExcerptTailer tailer;
    /** Whether the first cycle file is unreadable: Chronicle's tailer would wait on it. */
    private final boolean firstCycleUnreadable;
    /** The plain reader, which reads while {@link #onPlain}; Chronicle's tailer takes over where it stops understanding. */
    private final PlainExcerpts plain;
    private boolean onPlain;
    /** Where the plain read started (-1: the start), and the last excerpt it read whole (-1: none yet). */
    private long plainFrom = -1;
    private long plainDone = -1;
    private final EventDecoder decoder;
    /**
     * How long data past the point where Chronicle's tailer stops may stay undeliverable before it
     * is called damage: a live writer's excerpt becomes readable within microseconds, but a writer
     * thread can be descheduled on a busy machine.
     */
    private static final long SUSPECT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private long lastIndex = -1;
    /** Cycle and file position just past the body of the last data excerpt read; MIN_VALUE before any. */
    private int lastEndCycle = Integer.MIN_VALUE;
    private long lastEndPosition = -1;
    private long lastEndIndex = -1;
    private int cycleFileLengthCycle = Integer.MIN_VALUE;
    private long cycleFileLength;
    private long suspectSince;
    /** Reading to the end (not following): the queue's last index when the end was first reached. */
    private long endClaim;
    /** Every cycle as found when the reader opened (files checked with plain reads, missing ones named). */
    private final java.util.TreeMap<Integer, CycleFiles.CycleFile> cycles = new java.util.TreeMap<>();
    /** The cycle of the last excerpt read, and its sequence in that cycle; MIN_VALUE / -1 before any. */
    private int currentCycle = Integer.MIN_VALUE;
    private long currentSequence = -1;
    /** The last sequence the current cycle's store header records (-1: none, or not known). */
    private long currentLastSequence = -1;
    /**
     * The close index's first damaged entry, named by {@link CloseIndex#cyclesWritten} (null: none): the journal's
     * events are read to the end, then this is thrown (the cycles the index names after it are not checked).
     */
    private final String indexDamage;
    /** Damage found before reading could start there (the first cycle unreadable): thrown by the next read. */
    private JournalCorruptException pendingDamage;

    private JournalReader(Path dir) {
        this.dir = dir;
        JournalDirectory.validate(dir);
        CycleFiles.OfJournal found = CycleFiles.ofJournal(dir);
        this.indexDamage = found.index().damage();
        for (CycleFiles.CycleFile f : found.files()) {
            cycles.put(f.cycle(), f);
        }
        CycleFiles.CycleFile first = cycles.isEmpty() ? null : cycles.firstEntry().getValue();
        this.firstCycleUnreadable = first != null && !first.readable();
        if (firstCycleUnreadable) {
            this.pendingDamage = unreadableCycle(first, -1);
        }
        this.decoder = new EventDecoder(JournalDirectory.markerSchemaVersion(dir) < 2);
        this.plain = new PlainExcerpts(cycles);
        if (!firstCycleUnreadable) {
            startPlain();
        }
    }

    private void startPlain() {
        plainFrom = -1;
        plainDone = -1;
        if (!PlainExcerpts.ENABLED) {
            onPlain = true; // nothing read: the hand-over starts Chronicle's tailer at the start
            handOver();
            return;
        }
        try {
            plain.toStart();
            onPlain = true;
        } catch (PlainExcerpts.NotUnderstood e) {
            onPlain = true; // nothing read yet: the hand-over starts Chronicle's tailer at the start
            handOver();
        }
    }

    /** Chronicle's tailer, the queue opened on the first call. */
    private ExcerptTailer chronicle() {
        if (tailer == null) {
            try {
                queue = JournalDirectory.openForRead(dir);
            } catch (JournalException e) {
                throw e;
            } catch (RuntimeException | InternalError e) {
                throw new JournalException("cannot open journal dir=" + dir + ": " + JournalException.plain(e), e);
            }
            try {
                tailer = queue.createTailer(); // goes to the first cycle and reads its store header
            } catch (Exception | InternalError | AssertionError e) { // Chronicle throws checked ones unchecked, too
                // (StreamCorruptedException "Unexpected magic number": a damaged store header's length)
                throw new JournalCorruptException("journal dir=" + dir + " file=" + fileOfCycle(cycles.isEmpty() ? 0
                        : cycles.firstKey()) + ": Chronicle cannot read its store header (" + JournalException.plain(e)
                        + ")", -1, e);
            }
        }
        return tailer;
    }

    /**
     * The plain reader met something it does not fully understand (or damage): Chronicle's tailer
     * goes on from the last excerpt the plain reader read whole, so that whatever follows is read,
     * or named, exactly as Chronicle's path reads it.
     */
    private void handOver() {
        onPlain = false;
        ExcerptTailer t = chronicle();
        if (plainDone < 0) {
            if (plainFrom < 0) {
                currentCycle = Integer.MIN_VALUE;
                currentSequence = -1;
                lastEndCycle = Integer.MIN_VALUE;
                lastEndPosition = -1;
                lastEndIndex = -1;
                t.toStart();
            } else if (!chronicleFromIndex(plainFrom)) {
                throw new JournalException("journal dir=" + dir + " has no excerpt at index=" + hex(plainFrom));
            }
            return;
        }
        if (!chronicleFromIndex(plainDone)) {
            throw new JournalException("journal dir=" + dir + ": Chronicle finds no excerpt at index=" + hex(plainDone)
                    + ", which was read");
        }
        try (DocumentContext dc = t.readingDocument()) {
            if (!dc.isPresent() || dc.isMetaData() || dc.index() != plainDone) {
                throw new JournalException("journal dir=" + dir + ": Chronicle reads no excerpt at index=" + hex(plainDone)
                        + ", which was read");
            }
            currentSequence = JournalDirectory.ROLL_CYCLE.toSequenceNumber(plainDone);
            lastEndPosition = dc.wire().bytes().readLimit();
            lastEndCycle = t.cycle();
            lastEndIndex = plainDone;
        }
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
        currentCycle = Integer.MIN_VALUE;
        currentSequence = -1;
        pendingDamage = null;
        if (firstCycleUnreadable) {
            // Chronicle would wait on (or fault in) this file: nothing can be read before it anyway.
            pendingDamage = unreadableCycle(cycles.firstEntry().getValue(), -1);
            return this;
        }
        startPlain();
        return this;
    }

    /**
     * Positions the reader at {@code index} (as given by {@link EventSink}); false if absent. Throws
     * {@link JournalCorruptException} when the index lies in a cycle file nothing can be read from.
     */
    public boolean fromIndex(long index) {
        try {
            return positionAt(index);
        } catch (InternalError fault) {
            // A mapped page past the end of a cut file raises SIGBUS, which the JVM delivers as an InternalError at some
            // later instruction, inside the plain reader's or Chronicle's call or after it: it escaped now and then
            // (BadJournalInputTest's "cut before it", once in six runs under load).
            throw new JournalCorruptException("journal dir=" + dir + " file=" + fileOfCycle(JournalDirectory.ROLL_CYCLE
                    .toCycle(index)) + " index=" + hex(index) + ": memory fault reading the cycle file on the way to"
                    + " this index (cut short?): " + JournalException.plain(fault), index, fault);
        }
    }

    private boolean positionAt(long index) {
        int cycle = JournalDirectory.ROLL_CYCLE.toCycle(index);
        CycleFiles.CycleFile f = cycles.get(cycle);
        if (f != null && !f.readable()) {
            throw unreadableCycle(f, -1);
        }
        if (firstCycleUnreadable) {
            // Chronicle would wait on (or fault in) that file before it reached any index: the damage, not "absent".
            throw unreadableCycle(cycles.firstEntry().getValue(), -1);
        }
        pendingDamage = null;
        boolean found;
        try {
            found = PlainExcerpts.ENABLED && plain.toIndex(index);
        } catch (PlainExcerpts.CutShort e) {
            // Its store header says the file holds this index, its length says it does not: no hand-over to Chronicle's
            // tailer, whose memory fault past the end can surface outside any of this reader's calls.
            throw new JournalCorruptException("journal dir=" + dir + " file=" + fileOfCycle(cycle) + " index=" + hex(index)
                    + ": the cycle file is cut short before this index (" + e.getMessage() + ")", index, e);
        } catch (PlainExcerpts.Damaged e) {
            throw new JournalCorruptException("journal dir=" + dir + " " + e.getMessage(), e.index, e);
        } catch (PlainExcerpts.NotUnderstood e) {
            found = false;
        }
        if (found) {
            onPlain = true;
            plainFrom = index;
            plainDone = -1;
            currentCycle = cycle;
            currentSequence = JournalDirectory.ROLL_CYCLE.toSequenceNumber(index) - 1;
            currentLastSequence = f == null ? -1 : f.lastSequence();
            return true;
        }
        onPlain = false;
        return chronicleFromIndex(index);
    }

    private boolean chronicleFromIndex(long index) {
        int cycle = JournalDirectory.ROLL_CYCLE.toCycle(index);
        CycleFiles.CycleFile f = cycles.get(cycle);
        ExcerptTailer t = chronicle();
        boolean found;
        try {
            found = t.moveToIndex(index);
        } catch (Exception | InternalError | AssertionError e) {
            throw corrupt(index, "the queue's own index cannot be followed to it (" + JournalException.plain(e) + ")", e);
        }
        if (found) {
            currentCycle = cycle;
            currentSequence = JournalDirectory.ROLL_CYCLE.toSequenceNumber(index) - 1;
            currentLastSequence = f == null ? -1 : f.lastSequence();
        }
        return found;
    }

    /** The cycle files of the journal as checked when the reader opened, in cycle order. */
    public List<CycleFiles.CycleFile> cycleFiles() {
        return List.copyOf(cycles.values());
    }

    private JournalCorruptException unreadableCycle(CycleFiles.CycleFile f, long afterIndex) {
        return new JournalCorruptException("journal dir=" + dir + " file=" + f.file().getFileName() + " " + f.problem()
                + (afterIndex < 0 ? "; no event before it" : "; every event up to index=" + hex(afterIndex)
                + " was read"), JournalDirectory.ROLL_CYCLE.toIndex(f.cycle(), 0), null);
    }

    /**
     * Called with the cycle of each excerpt the tailer gives: when it moves on from a cycle, that
     * cycle must have been read to the last event its store recorded, and no cycle in between may
     * be missing or unreadable (Chronicle skips absent files silently).
     */
    private void enteringCycle(int cycle) {
        if (cycle == currentCycle) {
            return;
        }
        if (currentCycle != Integer.MIN_VALUE) {
            requireWhole(currentCycle);
        }
        int from = currentCycle == Integer.MIN_VALUE ? Integer.MIN_VALUE : currentCycle + 1;
        if (from < cycle) {
            for (CycleFiles.CycleFile f : cycles.subMap(from, true, cycle, false).values()) {
                if (!f.readable()) {
                    throw unreadableCycle(f, lastEndIndex);
                }
            }
        }
        currentCycle = cycle;
        currentSequence = -1;
        CycleFiles.CycleFile here = cycles.get(cycle);
        currentLastSequence = here == null ? -1 : here.lastSequence();
    }

    /** The cycle was read to its end: its store's last sequence must have been reached. */
    private void requireWhole(int cycle) {
        CycleFiles.CycleFile f = cycles.get(cycle);
        if (f == null || !f.readable() || f.lastSequence() < 0 || currentSequence >= f.lastSequence()) {
            return;
        }
        // Chronicle records the last event's position and sequence in the store header only once that event is
        // complete (its header written): an append in progress or one a killed writer left is past it, so an event
        // the store records and the read did not reach is damage, the last one too (its header zeroed).
        long lost = f.lastSequence() - currentSequence;
        long length = currentLength(f.file());
        if (length >= 0 && length < f.lastPosition() + 4) {
            throw new JournalCorruptException("journal dir=" + dir + " file=" + f.file().getFileName()
                    + " is truncated: its length=" + length + " ends before its last event at byte=" + f.lastPosition()
                    + " (index=" + hex(JournalDirectory.ROLL_CYCLE.toIndex(cycle, f.lastSequence())) + "); reading stops after index="
                    + hex(lastEndIndex) + ": " + lost + " events lost; every event before the cut was read",
                    lastEndIndex + 1, null);
        }
        throw new JournalCorruptException("journal dir=" + dir + " file=" + f.file().getFileName()
                + " ends early: its store header says the last event, index="
                + hex(JournalDirectory.ROLL_CYCLE.toIndex(cycle, f.lastSequence())) + ", was written at byte="
                + f.lastPosition() + ", but reading stops after index=" + hex(lastEndIndex) + " (byte=" + lastEndPosition
                + "): " + lost + " events unreadable (a zeroed or damaged region); every event before it was read",
                lastEndIndex + 1, null);
    }

    private static long currentLength(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * Before each read while not following: if the current cycle is read to its last event and the
     * next cycle is unreadable, stop here, before Chronicle opens that file (it would wait on it).
     */
    private void checkNextCycle() {
        if (currentCycle == Integer.MIN_VALUE || currentSequence < currentLastSequence) {
            return;
        }
        java.util.Map.Entry<Integer, CycleFiles.CycleFile> next = cycles.higherEntry(currentCycle);
        if (next != null && !next.getValue().readable()) {
            requireWhole(currentCycle);
            throw unreadableCycle(next.getValue(), lastEndIndex);
        }
    }

    /** Reads the next event, or returns null at the current end of the journal. */
    public JournalEvent next() {
        JournalEvent[] out = new JournalEvent[1];
        read(t -> true, (i, e) -> {
            out[0] = e;
            return false;
        }, null);
        return out[0];
    }

    /** Index of the last event returned. */
    public long lastIndex() {
        return lastIndex;
    }

    /** Reads every event from the current position to the current end. Returns how many were read. */
    public long readAll(EventSink sink) {
        return read(t -> true, sink, null);
    }

    /** Like {@link #readAll} but decodes only the kinds {@code filter} wants; others are skipped by header. */
    public long read(TypeFilter filter, EventSink sink) {
        return read(filter, sink, null);
    }

    /**
     * Reads events as they are appended, waiting at the end while {@code keepWaiting} says so.
     * The wait polls with short parks; it ends when the sink returns false or keepWaiting is false.
     */
    public long follow(EventSink sink, BooleanSupplier keepWaiting) {
        return read(t -> true, sink, keepWaiting);
    }

    /** {@code keepWaiting} null: to the end as it stands (the plain reader's part); else following. */
    private long read(TypeFilter filter, EventSink sink, BooleanSupplier keepWaiting) {
        if (pendingDamage != null) {
            throw pendingDamage;
        }
        long delivered = 0;
        if (onPlain) {
            if (keepWaiting == null) {
                long[] plainDelivered = {0};
                if (readPlain(filter, sink, plainDelivered)) {
                    return plainDelivered[0];
                }
                delivered = plainDelivered[0];
            } else {
                handOver();
            }
        }
        try {
            return delivered + readChecked(filter, sink, keepWaiting == null ? () -> false : keepWaiting);
        } catch (InternalError fault) {
            // A fault on a mapped page past the end of a cut file is delivered at some later
            // instruction of compiled code, not necessarily inside Chronicle's call.
            String truncation = truncationAfterLastEvent();
            throw corrupt(-1, truncation != null ? truncation : JournalException.plain(fault), fault);
        }
    }

    /**
     * Reads with the plain reader until the sink stops (true), the journal ends whole (true), or the
     * plain reader stops understanding (false: handed over to Chronicle, which reads on).
     */
    private boolean readPlain(TypeFilter filter, EventSink sink, long[] delivered) {
        while (true) {
            long index;
            JournalEvent event;
            try {
                index = plain.next();
                if (index < 0) {
                    endOfJournal();
                    return true;
                }
                int cycle = plain.cycle();
                enteringCycle(cycle);
                currentSequence = JournalDirectory.ROLL_CYCLE.toSequenceNumber(index);
                lastEndPosition = plain.bodyEnd();
                lastEndCycle = cycle;
                lastEndIndex = index;
                EventType type = decoder.readHeader(plain.buffer(), plain.bodyOffset(), plain.bodyLength());
                event = filter.wants(type) ? decoder.readBody(type) : null;
            } catch (PlainExcerpts.Damaged damaged) {
                throw new JournalCorruptException("journal dir=" + dir + " " + damaged.getMessage()
                        + "; every event before it was read", damaged.index, null);
            } catch (PlainExcerpts.NotUnderstood | EventCodec.UnreadableEventException | JournalException notPlain) {
                handOver();
                return false;
            }
            plainDone = index;
            if (event != null) {
                lastIndex = index;
                delivered[0]++;
                if (!sink.accept(index, event)) {
                    return true;
                }
            }
        }
    }

    private long readChecked(TypeFilter filter, EventSink sink, BooleanSupplier keepWaiting) {
        long delivered = 0;
        int endChecks = 0;
        endClaim = Long.MAX_VALUE;
        while (true) {
            checkNextCycle();
            long index = -1;
            EventType type;
            JournalEvent event = null;
            boolean atEnd = false;
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent()) {
                    atEnd = true;
                } else if (!dc.isMetaData()) {
                    index = dc.index();
                    Bytes<?> bytes = dc.wire().bytes();
                    long end = bytes.readLimit();
                    int cycle = tailer.cycle();
                    enteringCycle(cycle);
                    currentSequence = JournalDirectory.ROLL_CYCLE.toSequenceNumber(index);
                    if (end > cycleFileLength(cycle, end)) {
                        throw corrupt(index, "truncated: the excerpt ends at byte=" + end
                                + " past the end of the file, length=" + cycleFileLength, null);
                    }
                    lastEndPosition = end;
                    lastEndCycle = cycle;
                    lastEndIndex = index;
                    type = decoder.readHeader(bytes);
                    if (filter.wants(type)) {
                        event = decoder.readBody(type);
                    }
                }
            } catch (EventCodec.UnreadableEventException e) {
                throw corrupt(index, e.getMessage(), e);
            } catch (JournalException e) {
                throw e;
            } catch (Exception | AssertionError | InternalError e) {
                String truncation = truncationAfterLastEvent();
                throw corrupt(index, truncation != null ? truncation
                        : "unreadable excerpt (" + JournalException.plain(e) + ")", e);
            }
            if (atEnd) {
                boolean waiting = keepWaiting.getAsBoolean();
                if (!waiting) {
                    endOfJournal();
                }
                // Following a live journal, look for damage now and then rather than at every poll.
                if (!waiting || (++endChecks & 63) == 0) {
                    String suspicion = dataBeyondEnd(waiting);
                    if (suspicion != null) {
                        long now = System.nanoTime();
                        if (suspectSince == 0) {
                            suspectSince = now;
                        } else if (now - suspectSince > SUSPECT_NANOS) {
                            throw corrupt(tailer.index(), suspicion + " for "
                                    + TimeUnit.NANOSECONDS.toMillis(now - suspectSince) + " ms", null);
                        }
                        LockSupport.parkNanos(1_000_000);
                        continue;
                    }
                    suspectSince = 0;
                }
                if (!waiting) {
                    return delivered;
                }
                LockSupport.parkNanos(1_000_000);
                continue;
            }
            suspectSince = 0;
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
     * Why reading past the last event failed when the cycle file was cut short there (a mapped
     * page past the end of a file faults inside Chronicle), or null: looked up with plain reads.
     */
    private String truncationAfterLastEvent() {
        if (lastEndCycle == Integer.MIN_VALUE) {
            return null;
        }
        Path file = dir.resolve(fileOfCycle(lastEndCycle));
        if (!Files.isRegularFile(file)) {
            return null;
        }
        CycleFileTail.Finding f = CycleFileTail.inspect(file, lastEndPosition);
        return f.kind() == CycleFileTail.Kind.DAMAGED ? f.detail() : null;
    }

    /**
     * Length of the cycle's file, re-read only when an excerpt seems to end past it: a healthy
     * cycle file is preallocated well past its data, so this is a stat call per file growth, not
     * per event. A truncated file would otherwise hand out a half-present excerpt whose missing
     * tail reads as zeros from the last mapped page.
     */
    private long cycleFileLength(int cycle, long needed) {
        if (cycle != cycleFileLengthCycle || needed > cycleFileLength) {
            try {
                cycleFileLength = Files.size(dir.resolve(fileOfCycle(cycle)));
            } catch (IOException e) {
                // Not where the roll cycle's name says: the checks that need the file stand down.
                cycleFileLength = Long.MAX_VALUE;
            }
            cycleFileLengthCycle = cycle;
        }
        return cycleFileLength;
    }

    /**
     * Called where Chronicle's tailer finds nothing more. Throws when the cycle file is certainly
     * damaged there; returns what was seen when data seems to exist past this point (written
     * meanwhile, or damage if it lasts: the caller retries for a while), null at a clean end.
     */
    private String dataBeyondEnd(boolean following) {
        Path file = lastEndCycle == Integer.MIN_VALUE ? null : dir.resolve(fileOfCycle(lastEndCycle));
        if (file != null && Files.isRegularFile(file)) {
            CycleFileTail.Finding f = CycleFileTail.inspect(file, lastEndPosition);
            switch (f.kind()) {
                case DAMAGED:
                    throw new JournalCorruptException("journal dir=" + dir + " file=" + file.getFileName()
                            + " after index=" + hex(lastEndIndex) + ": " + f.detail()
                            + "; every whole event before it was delivered", tailer.index(), null);
                case SUSPECT:
                    return f.detail();
                default:
                    break;
            }
        }
        long last;
        try {
            last = queue.lastIndex();
        } catch (InternalError fault) {
            throw corrupt(tailer.index(), "memory fault reading the cycle file (truncated?): " + JournalException.plain(fault), fault);
        } catch (RuntimeException unknown) {
            return null;
        }
        if (!following) {
            // Reading to the end: the end is where the queue's index stood when it was first
            // reached, so that a busy writer cannot keep this read going for ever.
            if (endClaim == Long.MAX_VALUE) {
                endClaim = last;
            } else {
                last = Math.min(last, endClaim);
            }
        }
        if (last != -1 && last >= tailer.index()) {
            return "the queue's own index says events up to index=" + hex(last)
                    + " were written, but the excerpt at index=" + hex(tailer.index()) + " cannot be read"
                    + " (a damaged excerpt header)";
        }
        return null;
    }

    /**
     * The read reached the end (not following): the cycle it ends in must be whole, and no cycle
     * after it may be known but unreadable or missing.
     */
    private void endOfJournal() {
        if (currentCycle != Integer.MIN_VALUE) {
            requireWhole(currentCycle);
        }
        // Nothing read at all (currentCycle MIN_VALUE) checks every cycle: a journal whose every reader stops at
        // once (its first index array's header zeroed) must not read as an empty one. Read from an index, to the
        // end: the cycles before it were not this read's.
        boolean fromAnIndex = currentCycle == Integer.MIN_VALUE && lastEndIndex >= 0;
        for (CycleFiles.CycleFile f : fromAnIndex ? List.<CycleFiles.CycleFile>of()
                : cycles.tailMap(currentCycle, false).values()) {
            if (!f.readable()) {
                throw unreadableCycle(f, lastEndIndex);
            }
            if (f.lastSequence() >= 0) {
                throw new JournalCorruptException("journal dir=" + dir + " file=" + f.file().getFileName()
                        + " holds events (its store header says up to index="
                        + hex(JournalDirectory.ROLL_CYCLE.toIndex(f.cycle(), f.lastSequence()))
                        + ") that reading never reached" + (lastEndIndex < 0 ? "; no event before it"
                        : " after index=" + hex(lastEndIndex) + "; every event before it was read"),
                        JournalDirectory.ROLL_CYCLE.toIndex(f.cycle(), 0), null);
            }
        }
        if (indexDamage != null) {
            throw new JournalCorruptException("journal dir=" + dir + " " + indexDamage + (lastEndIndex < 0
                    ? "; no event read" : "; every event up to index=" + hex(lastEndIndex) + " was read"), -1, null);
        }
    }

    /**
     * Every event of one close, found through the close index (a scan only when the journal has
     * no index entry for it): from its {@link CloseStarted} up to and including its
     * {@link CloseCompleted}, or to the end of the journal if it never completed. Events of the
     * same pool without a close id (child spawn, transitions) inside that span are included.
     */
    public List<IndexedEvent> eventsOfClose(long closeId) {
        CloseIndex.Span span = CloseIndex.span(dir, closeId);
        List<IndexedEvent> out = new ArrayList<>();
        if (firstCycleUnreadable) {
            throw unreadableCycle(cycles.firstEntry().getValue(), -1);
        }
        if (span != null) {
            if (!fromIndex(span.startIndex())) {
                throw new JournalException("journal dir=" + dir + " close-index names index=" + span.startIndex()
                        + " for closeId=" + closeId + " but the journal has no such excerpt");
            }
        } else {
            fromStart();
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
        long at = index >= 0 ? index : tailer == null ? -1 : tailer.index();
        return new JournalCorruptException("journal dir=" + dir + " file=" + fileOf(at) + " index=" + hex(at)
                + ": " + what, at, cause);
    }

    private String fileOf(long index) {
        try {
            return fileOfCycle(queue.rollCycle().toCycle(index));
        } catch (RuntimeException e) {
            return "?";
        }
    }

    private String fileOfCycle(int cycle) {
        if (queue == null) {
            return CycleFiles.fileName(cycle);
        }
        try {
            RollCycle rc = queue.rollCycle();
            String pattern = rc.format();
            Instant start = Instant.ofEpochMilli(queue.epoch() + (long) cycle * rc.lengthInMillis());
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
        plain.close();
        if (tailer != null) {
            tailer.close();
        }
        if (queue != null) {
            queue.close();
        }
    }
}
