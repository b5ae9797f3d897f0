package dev.vigil.spawn;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@link ReapMode#WAITPID_BACKOFF}, the fallback where pidfd_open is missing (Linux before 5.3):
 * waitpid(pid, WNOHANG) for each live child, then a pause that starts at 1 ms after any exit or
 * new child and doubles up to 50 ms while nothing happens. With no children it parks until one
 * is registered. Exit detection is therefore late by up to the current pause.
 */
final class WaitpidBackoffReaper extends Reaper {
    static final long MIN_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final Queue<ChildProcess> incoming = new ConcurrentLinkedQueue<>();
    private volatile boolean stopping;
    private volatile Thread runner;

    /** Reaper thread only. */
    private final List<ChildProcess> watched = new ArrayList<>();

    WaitpidBackoffReaper() {
        super("vigil-reaper-waitpid");
    }

    @Override
    public ReapMode mode() {
        return ReapMode.WAITPID_BACKOFF;
    }

    @Override
    void enqueue(ChildProcess child) {
        incoming.add(child);
        LockSupport.unpark(runner);
    }

    @Override
    void requestStop() {
        stopping = true;
        LockSupport.unpark(runner);
    }

    @Override
    void run() {
        runner = Thread.currentThread();
        long pause = MIN_PAUSE_NANOS;
        while (!stopping) {
            boolean changed = false;
            for (ChildProcess child; (child = incoming.poll()) != null; ) {
                watched.add(child);
                changed = true;
            }
            for (Iterator<ChildProcess> it = watched.iterator(); it.hasNext(); ) {
                ChildProcess child = it.next();
                ExitStatus status = tryReapOrFail(child);
                if (status != null) {
                    it.remove();
                    exited(child, status);
                    changed = true;
                } else if (!isLive(child)) {
                    it.remove();
                }
            }
            if (watched.isEmpty()) {
                // Parks until a child is registered (or stop): no polling without children.
                LockSupport.park(this);
                pause = MIN_PAUSE_NANOS;
                continue;
            }
            pause = changed ? MIN_PAUSE_NANOS : Math.min(pause * 2, MAX_PAUSE_NANOS);
            LockSupport.parkNanos(this, pause);
        }
    }
}
