package dev.vigil.mailbox;

import java.util.concurrent.locks.LockSupport;

/**
 * How a waiter on a mailbox word idles: busy-spin for {@code spinNanos} (a round trip stays in the
 * microseconds), then yield for {@code yieldNanos}, then park with a doubling sleep capped at
 * {@code maxParkNanos} (an idle child costs almost nothing). {@link #reset()} after every useful step.
 * One instance per waiting thread.
 */
public final class IdleBackoff {
    /**
     * Default spin phase: long enough to cover the other side's turnaround (a round trip is ~0.7 us when
     * both sides run), short enough that a waiter whose peer was descheduled yields the core soon. Measured
     * (docs/BENCHMARKS.md, Mailbox): 50 us made round trips on a shared core cost ~100 us; 0.5-2 us made
     * waiters yield before an answer from another core arrived.
     */
    public static final long DEFAULT_SPIN_NANOS = 10_000;
    public static final long DEFAULT_YIELD_NANOS = 200_000;
    public static final long DEFAULT_MAX_PARK_NANOS = 1_000_000;

    private final long spinNanos;
    private final long yieldNanos;
    private final long maxParkNanos;
    private long idleSince;
    private long parkNanos;

    public IdleBackoff(long spinNanos, long yieldNanos, long maxParkNanos) {
        this.spinNanos = spinNanos;
        this.yieldNanos = yieldNanos;
        this.maxParkNanos = Math.max(1_000, maxParkNanos);
        reset();
    }

    public IdleBackoff() {
        this(DEFAULT_SPIN_NANOS, DEFAULT_YIELD_NANOS, DEFAULT_MAX_PARK_NANOS);
    }

    /**
     * The parent's wait for a child it has just rung awake: no spin phase, yield at once (for as long as the spin and
     * yield phases together), then park. A woken child needs 10-15 us to run at all, and on a loaded machine it is
     * often woken onto the parent's own core, where a spinning parent only delays it (docs/MAILBOX.md, "The doorbell").
     */
    public static IdleBackoff afterRing() {
        return new IdleBackoff(0, DEFAULT_SPIN_NANOS + DEFAULT_YIELD_NANOS, DEFAULT_MAX_PARK_NANOS);
    }

    public void reset() {
        idleSince = 0;
        parkNanos = 1_000;
    }

    /**
     * True once this idle stretch is past the spin and yield phases: a waiter with a doorbell sleeps on it from here
     * on instead of parking in steps (docs/MAILBOX.md, "The doorbell"). Starts the stretch like {@link #idle()}.
     */
    public boolean drowsy() {
        long now = System.nanoTime();
        if (idleSince == 0) {
            idleSince = now;
        }
        return now - idleSince >= spinNanos + yieldNanos;
    }

    /** One idle step. */
    public void idle() {
        long now = System.nanoTime();
        if (idleSince == 0) {
            idleSince = now;
        }
        long idleFor = now - idleSince;
        if (idleFor < spinNanos) {
            Thread.onSpinWait();
        } else if (idleFor < spinNanos + yieldNanos) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(maxParkNanos, parkNanos * 2);
        }
    }
}
