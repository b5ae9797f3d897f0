package dev.vigil.close;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.WaitStrategy;

/**
 * Blocks on the ring cursor AND on the previous stage. The Disruptor's own blocking strategies
 * block only until the cursor moves and then busy-spin on the dependent stage's sequence: with a
 * reap stage that waits out a multi-second budget, the five stages behind it would each burn a core.
 * Here every waiting stage thread sleeps on a condition of its own; a stage that has handled an entry
 * publishes its sequence and {@link #wake wakes} only its successor ({@link CloseStage}), so a
 * hand-off costs one thread wake-up, not one per stage thread of every lane. A publish to the ring
 * (a new close) or an alert wakes everyone ({@link #signalAllWhenBlocking()}). A bounded wait backs
 * this up, should a wake-up ever be missed.
 */
final class StageWaitStrategy implements WaitStrategy {
    private static final long BACKSTOP_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final ReentrantLock lock = new ReentrantLock();
    /** One condition per stage thread that has ever waited; guarded by {@link #lock}. */
    private final Map<Thread, Condition> sleepers = new HashMap<>();

    @Override
    public long waitFor(long sequence, Sequence cursor, Sequence dependentSequence, SequenceBarrier barrier)
            throws AlertException, InterruptedException {
        long available = dependentSequence.get();
        if (available >= sequence) {
            return available;
        }
        lock.lock();
        try {
            Condition mine = sleepers.computeIfAbsent(Thread.currentThread(), t -> lock.newCondition());
            while ((available = dependentSequence.get()) < sequence) {
                barrier.checkAlert();
                mine.awaitNanos(BACKSTOP_NANOS);
            }
        } finally {
            lock.unlock();
        }
        return available;
    }

    /** Wakes the stage running on {@code thread} (its predecessor just moved); everyone if it is not known yet. */
    void wake(Thread thread) {
        lock.lock();
        try {
            Condition c = thread == null ? null : sleepers.get(thread);
            if (c == null) {
                signalAll();
            } else {
                c.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void signalAllWhenBlocking() {
        lock.lock();
        try {
            signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Caller holds {@link #lock}, so the map cannot change while it is walked. */
    private void signalAll() {
        for (Condition c : sleepers.values()) {
            c.signal();
        }
    }
}
