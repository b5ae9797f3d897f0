package dev.vigil.journal;

import java.util.concurrent.locks.LockSupport;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;

/**
 * How the journal's appender thread waits for the next events: when it finds fewer than a batch ({@code minBatch}) it
 * naps {@value #BATCH_NAP_NANOS} ns first and then takes what there is; when it finds none it busy-spins for
 * {@code spinNanos} (the clock read every {@value #TRIES_PER_CLOCK_READ} tries), then blocks in {@code block} until a
 * publish signals it. No yield phase, and no spinning before the clock starts. A flush ({@link #wake}) ends a nap.
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
    /**
     * How long the appender naps when it finds fewer than a batch of events: tens of microseconds, in which a producer
     * appending back to back publishes hundreds (a flush ends the nap: {@link #wake}).
     */
    static final long BATCH_NAP_NANOS = 50_000;

    private final long spinNanos;
    /**
     * Fewer events than this found at once, the appender naps before it takes them, so that it does not run right behind
     * its producer: there it read the slots, bodies and availability flags the producer had just written (their cache
     * lines still in the producer's core), cleared slots beside the ones being written and read the ring's cursor
     * between two claims of it, a few to a few hundred events a batch, and both threads spent more CPU per event
     * (JournalBench, 3 JVMs a side, load 8-12: median 1,510 events a batch, appender 198 ns and producer 116 ns an
     * event; with the nap 16,129, 169 ns and 101 ns). Checked again in one JVM, the two journals taking turns
     * (JournalBench variants journal-no-nap and journal-paced-no-nap, 2026-12-04, load 9-16): at 1 M events/s offered,
     * writer CPU per event with the nap 0.89x of without it (quartiles of 11 rounds 0.86-1.01); flat out 0.95x, both
     * threads 1.00x, events/s 1.12x. It helps a little when the appender keeps up and costs nothing when it does not.
     */
    private final int minBatch;
    private final WaitStrategy block;
    /** Set by {@link #wake}: a flush waits, so the appender takes what is there without a nap. */
    private volatile boolean hurry;
    /**
     * The one producer whose publishes do not wake a blocked appender (the close engine's thread, which wakes it itself
     * within a bound of its own: {@link JournalWriter#holdWakesOf}); null: every publish wakes it.
     */
    private volatile Thread holder;
    /** When the holder's oldest publish that did not wake the appender was made; 0: none. Holder thread only. */
    private long heldSince;

    AppenderWait(long spinNanos, int minBatch, WaitStrategy block) {
        this.spinNanos = spinNanos;
        this.minBatch = minBatch;
        this.block = block;
    }

    @Override
    public long waitFor(long sequence, Sequence cursor, Sequence dependentSequence, SequenceBarrier barrier)
            throws AlertException, InterruptedException, TimeoutException {
        long available = dependentSequence.get();
        if (available >= sequence) {
            if (available < sequence + minBatch - 1 && !hurry) {
                LockSupport.parkNanos(BATCH_NAP_NANOS); // a part of a batch: let its producer write the rest
                available = dependentSequence.get();
            }
            if (hurry) {
                hurry = false;
            }
            return available;
        }
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
        hurry = true;
        block.signalAllWhenBlocking();
    }
}
