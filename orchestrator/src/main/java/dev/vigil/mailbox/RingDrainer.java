package dev.vigil.mailbox;

import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.RingOverrun;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Moves mailbox transition rings into the journal: every record once, as a {@link MailboxTransition}
 * (time = the writer's own CLOCK_MONOTONIC stamp), in state-word sequence order per mailbox; any sequence
 * it can never see becomes a {@link RingOverrun} naming the gap.
 *
 * <p>How order and gaps are decided. A writer first wins its state-word CAS, then claims a ring ticket
 * (fetch-and-add on the ring head) and publishes the record; so tickets can be claimed out of seq order and
 * a record can be claimed but not yet published. The drainer reads tickets in order, holds records back
 * while the seq right after the last journaled one is missing, and releases them in (seq, ticket) order. A
 * missing seq is declared lost (RingOverrun) when its ring slot was overwritten (the ring lapped), or it
 * stayed missing for {@code stallNanos} (a writer died between its CAS and its record), or on
 * {@link #drainFinal}. In legacy mode two records may carry the same seq (two writers computed seq n+1 from
 * one read; one store erased the other): both are journaled, the second's {@code from} differing from the
 * first's {@code to}; that is the evidence of the lost update. A lost record whose seq was journaled anyway
 * (legacy only) is reported as RingOverrun with firstLostSeq == lastLostSeq == that seq.
 *
 * <p>Thread-safe; draining one mailbox from several threads serializes on its cursor.
 */
public final class RingDrainer implements AutoCloseable {
    public static final Duration DEFAULT_STALL = Duration.ofSeconds(1);
    private static final int ORCHESTRATOR_PID = (int) ProcessHandle.current().pid();
    private static final Comparator<TransitionRecord> SEQ_ORDER =
            Comparator.comparingLong(TransitionRecord::seq).thenComparingLong(TransitionRecord::ticket);

    private final Consumer<? super JournalEvent> sink;
    private final long stallNanos;
    private final Map<MailboxHandle, Cursor> cursors = new ConcurrentHashMap<>();
    private volatile Thread background;

    /** A drainer that journals into {@code sink} (e.g. {@code journalWriter::append}). */
    public RingDrainer(Consumer<? super JournalEvent> sink) {
        this(sink, DEFAULT_STALL);
    }

    public RingDrainer(Consumer<? super JournalEvent> sink, Duration stall) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.stallNanos = stall.toNanos();
    }

    /** Starts tracking a mailbox from its first transition (seq 1, ticket 0). */
    public void register(MailboxHandle handle) {
        cursors.computeIfAbsent(handle, h -> new Cursor());
    }

    /** Stops tracking a mailbox (after its final drain, before it is released). */
    public void forget(MailboxHandle handle) {
        cursors.remove(handle);
    }

    /** Journals what is new and complete in the ring of {@code handle} (registering it if needed); returns the number of events. */
    public int drain(MailboxHandle handle, long closeId) {
        return cursorOf(handle).drain(handle, closeId, false);
    }

    /**
     * Journals everything left: records claimed but never published and sequence numbers the state word has
     * reached but no record shows become RingOverrun events. Call once the child is gone (reaped) or at the end of a run.
     */
    public int drainFinal(MailboxHandle handle, long closeId) {
        return cursorOf(handle).drain(handle, closeId, true);
    }

    /** {@link #drain} over every registered mailbox. */
    public int drainAll(long closeId) {
        int events = 0;
        for (MailboxHandle handle : cursors.keySet()) {
            events += drain(handle, closeId);
        }
        return events;
    }

    /** The last seq journaled for a mailbox (0 if none). */
    public long lastSeq(MailboxHandle handle) {
        Cursor cursor = cursors.get(handle);
        if (cursor == null) {
            return 0;
        }
        synchronized (cursor) {
            return cursor.lastSeq;
        }
    }

    /** Drains every registered mailbox every {@code period} on a daemon thread until {@link #stop()}. */
    public synchronized void start(Duration period, LongSupplier closeId) {
        if (background != null) {
            throw new MailboxException("ring drainer already started");
        }
        long periodNanos = period.toNanos();
        Thread thread = new Thread(() -> {
            long failures = 0;
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    drainAll(closeId.getAsLong());
                } catch (RuntimeException e) { // e.g. the journal refused an event: keep draining, say so (rarely)
                    if (Long.bitCount(++failures) == 1) {
                        System.err.println("vigil ring drainer: drain failed: failures=" + failures + " error=" + e);
                    }
                }
                java.util.concurrent.locks.LockSupport.parkNanos(periodNanos);
            }
        }, "vigil-ring-drainer");
        thread.setDaemon(true);
        background = thread;
        thread.start();
    }

    /** {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /** Stops the background thread, if any (does not drain; call {@link #drainFinal} per mailbox afterwards). */
    public synchronized void stop() {
        Thread thread = background;
        background = null;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Cursor cursorOf(MailboxHandle handle) {
        return cursors.computeIfAbsent(handle, h -> new Cursor());
    }

    private final class Cursor {
        long nextTicket;
        long lastSeq;
        long lostTickets;
        long stalledSince;
        long gapSince;
        final TreeSet<TransitionRecord> held = new TreeSet<>(SEQ_ORDER);

        synchronized int drain(MailboxHandle handle, long closeId, boolean force) {
            MappedMailbox mailbox = handle.mailbox();
            long now = System.nanoTime();
            long head = mailbox.ringHeadAcquire();
            if (head - nextTicket > MailboxDescriptor.RING_CAPACITY) {
                lostTickets += head - MailboxDescriptor.RING_CAPACITY - nextTicket;
                nextTicket = head - MailboxDescriptor.RING_CAPACITY;
            }
            while (nextTicket < head) {
                TransitionRecord record = mailbox.readRing(nextTicket);
                if (record.readable()) {
                    held.add(record);
                } else if (record == TransitionRecord.OVERWRITTEN) {
                    lostTickets++;
                } else if (force || (stalledSince != 0 && now - stalledSince > stallNanos)) {
                    lostTickets++; // claimed, never published: its writer died between CAS and record
                } else {
                    if (stalledSince == 0) {
                        stalledSince = now;
                    }
                    break;
                }
                stalledSince = 0;
                nextTicket++;
            }
            int events = release(handle, closeId, now, force);
            if (force && held.isEmpty() && nextTicket == head) {
                long stateSeq = MailboxDescriptor.seq(mailbox.stateAcquire());
                if (stateSeq > lastSeq) {
                    overrun(handle, closeId, lastSeq + 1, stateSeq);
                    lastSeq = stateSeq;
                    events++;
                } else if (lostTickets > 0) {
                    overrun(handle, closeId, lastSeq, lastSeq);
                    events++;
                }
                lostTickets = 0;
            }
            return events;
        }

        private int release(MailboxHandle handle, long closeId, long now, boolean force) {
            int events = 0;
            while (!held.isEmpty()) {
                TransitionRecord first = held.first();
                if (first.seq() <= lastSeq + 1) {
                    if (lostTickets > 0 && first.seq() <= lastSeq) {
                        // legacy duplicate after a loss: we cannot tell which records of this seq were lost
                        overrun(handle, closeId, first.seq(), first.seq());
                        lostTickets = 0;
                        events++;
                    }
                    held.pollFirst();
                    transition(handle, closeId, first);
                    lastSeq = Math.max(lastSeq, first.seq());
                    gapSince = 0;
                    events++;
                    continue;
                }
                if (lostTickets > 0 || force || (gapSince != 0 && now - gapSince > stallNanos)) {
                    overrun(handle, closeId, lastSeq + 1, first.seq() - 1);
                    lastSeq = first.seq() - 1;
                    lostTickets = 0;
                    gapSince = 0;
                    events++;
                    continue;
                }
                if (gapSince == 0) {
                    gapSince = now;
                }
                break;
            }
            return events;
        }

        private void transition(MailboxHandle handle, long closeId, TransitionRecord record) {
            MailboxId id = handle.id();
            sink.accept(new MailboxTransition(record.timeNanos(), ORCHESTRATOR_PID, id.poolId(), closeId, id.group(), id.index(),
                    record.seq(), record.fromState(), record.toState(), WriterRole.nameOf(record.writerCode()), record.writerPid()));
        }

        private void overrun(MailboxHandle handle, long closeId, long firstLost, long lastLost) {
            MailboxId id = handle.id();
            sink.accept(new RingOverrun(System.nanoTime(), ORCHESTRATOR_PID, id.poolId(), closeId, id.group(), id.index(), firstLost, lastLost));
        }
    }
}
