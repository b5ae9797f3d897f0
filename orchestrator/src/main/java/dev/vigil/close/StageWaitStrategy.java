package dev.vigil.close;

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
 * Here every stage, after handling an entry, publishes its sequence and calls
 * {@link #signalAllWhenBlocking()} ({@link CloseStage}), so waiters sleep until exactly then.
 * A bounded wait backs that up, should a wake-up ever be missed.
 */
final class StageWaitStrategy implements WaitStrategy {
    private static final long BACKSTOP_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition moved = lock.newCondition();

    @Override
    public long waitFor(long sequence, Sequence cursor, Sequence dependentSequence, SequenceBarrier barrier)
            throws AlertException, InterruptedException {
        long available = dependentSequence.get();
        if (available >= sequence) {
            return available;
        }
        lock.lock();
        try {
            while ((available = dependentSequence.get()) < sequence) {
                barrier.checkAlert();
                moved.awaitNanos(BACKSTOP_NANOS);
            }
        } finally {
            lock.unlock();
        }
        return available;
    }

    @Override
    public void signalAllWhenBlocking() {
        lock.lock();
        try {
            moved.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
