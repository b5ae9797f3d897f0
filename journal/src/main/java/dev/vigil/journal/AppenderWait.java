package dev.vigil.journal;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;

/**
 * How the journal's appender thread waits for the next event: it busy-spins for {@code spinNanos} (the clock read every
 * {@value #TRIES_PER_CLOCK_READ} tries), then blocks in {@code block} until a publish signals it. No yield phase, and
 * no spinning before the clock starts.
 *
 * <p>Why not Disruptor's {@code PhasedBackoffWaitStrategy}: it spins 10,000 tries before it starts its clock and then
 * reads the clock only every 10,000 tries, so "spin 20 us, yield 200 us" kept the appender on a core for ~240 us after
 * every burst. On a machine whose cores are all busy (the ring bench: a parent thread and a C child spinning on the 2
 * cores) that time is taken from the threads that do the work, at every burst the ring drainer journals
 * (docs/BENCHMARKS.md, "Transition ring flow control"). A short spin still catches the next event of a burst (a
 * producer appending back to back publishes every few microseconds at most), and a blocked appender costs its producer
 * one signal (a futex wake) per burst, not per event: Disruptor's lite blocking strategies signal only a waiter that
 * announced itself.
 */
final class AppenderWait implements WaitStrategy {
    static final int TRIES_PER_CLOCK_READ = 64;

    private final long spinNanos;
    private final WaitStrategy block;
    /**
     * The one producer whose publishes do not wake a blocked appender (the close engine's thread, which wakes it itself
     * within a bound of its own: {@link JournalWriter#holdWakesOf}); null: every publish wakes it.
     */
    private volatile Thread holder;
    /** When the holder's oldest publish that did not wake the appender was made; 0: none. Holder thread only. */
    private long heldSince;

    AppenderWait(long spinNanos, WaitStrategy block) {
        this.spinNanos = spinNanos;
        this.block = block;
    }

    @Override
    public long waitFor(long sequence, Sequence cursor, Sequence dependentSequence, SequenceBarrier barrier)
            throws AlertException, InterruptedException, TimeoutException {
        long available;
        long start = 0;
        int tries = 0;
        while ((available = dependentSequence.get()) < sequence) {
            if (++tries == TRIES_PER_CLOCK_READ) {
                tries = 0;
                barrier.checkAlert();
                long now = System.nanoTime();
                if (start == 0) {
                    start = now;
                } else if (now - start >= spinNanos) {
                    return block.waitFor(sequence, cursor, dependentSequence, barrier);
                }
            }
            Thread.onSpinWait();
        }
        return available;
    }

    @Override
    public void signalAllWhenBlocking() {
        if (Thread.currentThread() == holder) {
            if (heldSince == 0) {
                heldSince = System.nanoTime();
            }
            return;
        }
        block.signalAllWhenBlocking();
    }

    void holdWakesOf(Thread producer) {
        holder = producer;
    }

    /** Holder thread: nanoseconds since its oldest publish that did not wake the appender, or -1 when none. */
    long heldNanos() {
        return heldSince == 0 ? -1 : Math.max(0, System.nanoTime() - heldSince);
    }

    /** Wakes a blocked appender (any thread); on the holder's thread, what it held is released with it. */
    void wake() {
        if (Thread.currentThread() == holder) {
            heldSince = 0;
        }
        block.signalAllWhenBlocking();
    }
}
