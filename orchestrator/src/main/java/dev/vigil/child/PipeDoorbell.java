package dev.vigil.child;

import java.io.FileInputStream;
import java.io.IOException;
import java.util.concurrent.locks.LockSupport;

/**
 * A Java child's doorbell (docs/MAILBOX.md, "The doorbell"): a JVM cannot wait on a futex, so the parent gives it
 * the read end of a pipe as an inherited descriptor ({@code VIGIL_DOORBELL_FD}), reopened here through
 * {@code /proc/self/fd/N}. A daemon thread blocks reading it and unparks the serve loop on every byte; the serve
 * loop parks (bounded) after announcing its sleep. A ring that arrives before the park leaves the thread's permit,
 * so the park returns at once: no lost wake-up. End of file means every write end is closed: the parent is gone
 * (or the doorbell was never set up right); the loop then checks the parent at once and polls from then on.
 */
final class PipeDoorbell {
    private final FileInputStream in;
    private final Thread sleeper;
    private volatile boolean broken;

    private PipeDoorbell(FileInputStream in, Thread sleeper) {
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
        PipeDoorbell doorbell = new PipeDoorbell(in, Thread.currentThread());
        Thread reader = new Thread(doorbell::readLoop, "vigil-doorbell");
        reader.setDaemon(true);
        reader.start();
        return doorbell;
    }

    private void readLoop() {
        byte[] buffer = new byte[64];
        try {
            while (in.read(buffer) > 0) {
                LockSupport.unpark(sleeper);
            }
        } catch (IOException e) {
            // as end of file
        }
        broken = true;
        LockSupport.unpark(sleeper);
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
