package dev.vigil.replay.internal;

import java.util.PriorityQueue;

import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalReader;

/**
 * Hands events on in the order of their times rather than the journal's: events are journaled
 * after they happen (ring records drain late, a shutdown is stamped at its CAS and journaled after
 * it), so journal order can put an effect before its cause. Events wait in a buffer until the
 * journal has moved {@link #WINDOW_NANOS} past their time; ties keep journal order. An event
 * journaled more than the window after its time is handed on when it arrives. Call {@link #finish}
 * at the end of the journal.
 */
public final class TimeOrderedSink implements JournalReader.EventSink {
    /** How far journal order may lag behind time and still be put right. */
    public static final long WINDOW_NANOS = 2_000_000_000L;

    private record Pending(long index, JournalEvent event) {
    }

    private final JournalReader.EventSink next;
    private final PriorityQueue<Pending> pending = new PriorityQueue<>((a, b) -> {
        int byTime = Long.compare(a.event.timeNanos(), b.event.timeNanos());
        return byTime != 0 ? byTime : Long.compare(a.index, b.index);
    });
    private long latest = Long.MIN_VALUE;
    private boolean stopped;

    public TimeOrderedSink(JournalReader.EventSink next) {
        this.next = next;
    }

    @Override
    public boolean accept(long index, JournalEvent event) {
        if (stopped) {
            return false;
        }
        pending.add(new Pending(index, event));
        latest = Math.max(latest, event.timeNanos());
        while (!pending.isEmpty() && pending.peek().event.timeNanos() <= latest - WINDOW_NANOS) {
            Pending p = pending.poll();
            if (!next.accept(p.index, p.event)) {
                stopped = true;
                return false;
            }
        }
        return true;
    }

    /** Hands on everything still waiting (the journal ended, or reading stopped at damage). */
    public void finish() {
        while (!stopped && !pending.isEmpty()) {
            Pending p = pending.poll();
            stopped = !next.accept(p.index, p.event);
        }
        pending.clear();
    }
}
