package dev.vigil.child;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A Java child's doorbell (docs/MAILBOX.md, "The doorbell"): a JVM cannot wait on a futex, so the parent gives it
 * the read end of a pipe as an inherited descriptor ({@code VIGIL_DOORBELL_FD}), reopened here through
 * {@code /proc/self/fd/N}. The serve loop blocks reading it itself, after announcing its sleep and re-checking for
 * work: a ring is one thread's wake-up, not a reader thread's and then the loop's (a second wake-up cost the round
 * trip from asleep 20-40 us on the loaded 2-core machine). A ring that arrives before the read leaves its byte in
 * the pipe, so the read returns at once: no lost wake-up. End of file means every write end is closed: the parent
 * is gone (or the doorbell was never set up right); the loop then checks the parent at once and polls from then on.
 *
 * <p>A pipe read has no timeout, so a daemon thread keeps the sleep's bound: every {@code boundNanos} it beats the
 * heartbeat for a loop that is asleep in its read (asleep is not wedged: a loop stuck in a handler is not in the
 * read and gets no beat), and if a request or shutdown is waiting in the mailbox all the same (a ring that never
 * came) it rings the pipe itself, so such a request waits at most one bound, as it did with the loop's own bounded
 * sleep. That is one wake-up per bound, as before.
 *
 * <p>The loop must not be in its read when the JVM exits: HotSpot's exit ({@code System.exit}, {@code Runtime.halt})
 * waits, in 10 ms steps for at least 300 ms, for every thread in a system call ({@code _thread_in_native}) before it
 * gives up on it ({@code VM_Exit::wait_for_threads_in_native_to_block}). The loop leaves its read before it returns;
 * for an exit from elsewhere (a handler's own {@code System.exit}, a signal) a shutdown hook runs {@link #close()}:
 * it rings the pipe itself (a write end reopened through {@code /proc}) and waits for the loop to leave the read.
 */
final class PipeDoorbell {
    /** How long {@link #close()} waits for the loop to leave its read; past it the exit pays HotSpot's wait. */
    static final long CLOSE_WAIT_MILLIS = 200;

    private final int fd;
    private final FileInputStream in;
    private final byte[] buffer = new byte[64];
    private volatile Thread bound;
    private volatile Thread exitHook;
    private volatile boolean broken;
    private volatile boolean closing;
    /** The loop is in its read (or about to enter it: set before the last look at {@link #closing}). */
    private volatile boolean reading;

    private PipeDoorbell(int fd, FileInputStream in) {
        this.fd = fd;
        this.in = in;
    }

    /**
     * The doorbell on descriptor {@code fd}, with its bound thread started ({@code beat} runs every {@code boundNanos}
     * while the loop is asleep in its read); null if it cannot be opened.
     */
    static PipeDoorbell open(int fd, long boundNanos, Runnable beat, BooleanSupplier workWaiting, java.io.PrintStream err) {
        FileInputStream in;
        try {
            in = new FileInputStream("/proc/self/fd/" + fd);
        } catch (IOException e) {
            err.println("vigil child: no doorbell, polling instead: fd=" + fd + " error=" + e.getMessage());
            return null;
        }
        PipeDoorbell doorbell = new PipeDoorbell(fd, in);
        Thread bound = new Thread(() -> doorbell.keepBound(Math.max(1, boundNanos), beat, workWaiting), "vigil-doorbell-bound");
        bound.setDaemon(true);
        doorbell.bound = bound;
        bound.start();
        Thread hook = new Thread(doorbell::close, "vigil-doorbell-close");
        doorbell.exitHook = hook;
        Runtime.getRuntime().addShutdownHook(hook);
        return doorbell;
    }

    private void keepBound(long boundNanos, Runnable beat, BooleanSupplier workWaiting) {
        while (!closing && !broken) {
            LockSupport.parkNanos(this, boundNanos);
            if (reading && !closing) {
                beat.run();
                if (workWaiting.getAsBoolean()) {
                    ringSelf();
                }
            }
        }
    }

    /** One byte into the pipe through a write end of our own ({@code /proc/self/fd/N} opened for writing reaches the same pipe). */
    private boolean ringSelf() {
        try (FileOutputStream self = new FileOutputStream("/proc/self/fd/" + fd)) {
            self.write(0);
            return true;
        } catch (IOException e) {
            System.err.println("vigil child: cannot ring its own doorbell: fd=" + fd + " error=" + e.getMessage());
            return false;
        }
    }

    /**
     * Blocks the calling serve loop in the pipe's read until a ring (or end of file). Once the doorbell is closing it
     * parks {@code closingNanos} instead (the JVM is on its way out).
     */
    void await(long closingNanos) {
        if (broken) {
            return;
        }
        reading = true;
        try {
            if (closing) { // after announcing the read: close() sets closing, then looks at reading
                LockSupport.parkNanos(this, Math.max(1, closingNanos));
                return;
            }
            if (in.read(buffer) < 0) {
                broken = true;
            }
        } catch (IOException e) {
            broken = true; // as end of file
        } finally {
            reading = false;
        }
    }

    /**
     * Makes sure the loop is out of its read, bounded by {@value #CLOSE_WAIT_MILLIS} ms: marks the doorbell closing
     * (the loop does not read again), and if the loop is in its read rings the pipe itself (the read end we hold keeps
     * the write from blocking or failing) and waits for it to leave. Idempotent; the doorbell is unusable afterwards.
     */
    void close() {
        if (closing) {
            return;
        }
        closing = true;
        Thread b = bound;
        if (b != null) {
            LockSupport.unpark(b);
        }
        Thread hook = exitHook;
        if (hook != null && Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException exiting) {
                // the JVM is already exiting: the hook runs this again, as a no-op
            }
        }
        if (!reading) {
            return;
        }
        if (!ringSelf()) {
            return; // the exit pays HotSpot's wait for the loop in its read
        }
        long deadline = System.nanoTime() + CLOSE_WAIT_MILLIS * 1_000_000L;
        while (reading && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** False once the pipe reached end of file: the loop must not sleep on it any more. */
    boolean usable() {
        return !broken;
    }
}
