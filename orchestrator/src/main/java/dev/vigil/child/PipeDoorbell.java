package dev.vigil.child;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.concurrent.locks.LockSupport;

/**
 * A Java child's doorbell (docs/MAILBOX.md, "The doorbell"): a JVM cannot wait on a futex, so the parent gives it
 * the read end of a pipe as an inherited descriptor ({@code VIGIL_DOORBELL_FD}), reopened here through
 * {@code /proc/self/fd/N}. A daemon thread blocks reading it and unparks the serve loop on every byte; the serve
 * loop parks (bounded) after announcing its sleep. A ring that arrives before the park leaves the thread's permit,
 * so the park returns at once: no lost wake-up. End of file means every write end is closed: the parent is gone
 * (or the doorbell was never set up right); the loop then checks the parent at once and polls from then on.
 *
 * <p>The reader must be gone before the JVM exits: HotSpot's exit ({@code System.exit}, {@code Runtime.halt}) waits,
 * in 10 ms steps for at least 300 ms, for every thread blocked in a system call ({@code _thread_in_native}) before it
 * gives up on it ({@code VM_Exit::wait_for_threads_in_native_to_block}), so a reader left in its {@code read} adds
 * 0.3 s to every exit. {@link #close()} rings the pipe itself (a write end reopened through {@code /proc}) and waits
 * for the reader to leave; the serve loop calls it on its way out, a shutdown hook on a handler's own
 * {@code System.exit}.
 */
final class PipeDoorbell {
    /** How long {@link #close()} waits for the reader to leave its read; past it the exit pays HotSpot's wait. */
    static final long CLOSE_WAIT_MILLIS = 200;

    private final int fd;
    private final FileInputStream in;
    private final Thread sleeper;
    private volatile Thread reader;
    private volatile Thread exitHook;
    private volatile boolean broken;
    private volatile boolean closing;

    private PipeDoorbell(int fd, FileInputStream in, Thread sleeper) {
        this.fd = fd;
        this.in = in;
        this.sleeper = sleeper;
    }

    /** The doorbell on descriptor {@code fd}, its reader thread started, woken loop = the calling thread; null if it cannot be opened. */
    static PipeDoorbell open(int fd, java.io.PrintStream err) {
        FileInputStream in;
        try {
            in = new FileInputStream("/proc/self/fd/" + fd);
        } catch (IOException e) {
            err.println("vigil child: no doorbell, polling instead: fd=" + fd + " error=" + e.getMessage());
            return null;
        }
        PipeDoorbell doorbell = new PipeDoorbell(fd, in, Thread.currentThread());
        Thread reader = new Thread(doorbell::readLoop, "vigil-doorbell");
        reader.setDaemon(true);
        doorbell.reader = reader;
        reader.start();
        Thread hook = new Thread(doorbell::close, "vigil-doorbell-close");
        doorbell.exitHook = hook;
        Runtime.getRuntime().addShutdownHook(hook);
        return doorbell;
    }

    private void readLoop() {
        byte[] buffer = new byte[64];
        try {
            while (!closing && in.read(buffer) > 0) {
                LockSupport.unpark(sleeper);
            }
        } catch (IOException e) {
            // as end of file
        }
        broken = true;
        LockSupport.unpark(sleeper);
    }

    /**
     * Ends the reader thread, bounded by {@value #CLOSE_WAIT_MILLIS} ms: marks the doorbell closing, writes one byte
     * into the pipe through a write end of our own ({@code /proc/self/fd/N} opened for writing reaches the same
     * pipe; the read end we hold keeps the write from blocking or failing), and waits for the reader to leave.
     * Idempotent; the doorbell is unusable afterwards.
     */
    void close() {
        if (closing) {
            return;
        }
        closing = true;
        Thread hook = exitHook;
        if (hook != null && Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException exiting) {
                // the JVM is already exiting: the hook runs this again, as a no-op
            }
        }
        Thread r = reader;
        if (r == null || !r.isAlive()) {
            return;
        }
        try (FileOutputStream self = new FileOutputStream("/proc/self/fd/" + fd)) {
            self.write(0);
        } catch (IOException e) {
            System.err.println("vigil child: cannot end the doorbell reader, the exit waits for it: fd=" + fd + " error=" + e.getMessage());
            return;
        }
        try {
            r.join(CLOSE_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** False once the pipe reached end of file: the loop must not sleep on it any more. */
    boolean usable() {
        return !broken;
    }

    /** Parks the serve loop until a ring (or end of file), at most {@code nanos}. */
    void await(long nanos) {
        if (!broken) {
            LockSupport.parkNanos(this, Math.max(1, nanos));
        }
    }
}
