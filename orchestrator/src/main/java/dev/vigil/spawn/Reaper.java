package dev.vigil.spawn;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The one thread that collects the exits of a {@link Spawner}'s children, as they happen, each
 * child's status on its own (never waitpid(-1)), and tells {@link ExitListener}s and
 * {@link ChildProcess#onExit()}. Two ways to learn of exits: {@link ReapMode}.
 */
public abstract sealed class Reaper permits PidfdPollReaper, WaitpidBackoffReaper {
    private final List<ExitListener> listeners = new CopyOnWriteArrayList<>();
    private final Set<ChildProcess> live = ConcurrentHashMap.newKeySet();
    private final Thread thread;

    Reaper(String threadName) {
        thread = new Thread(this::runAndFailLeftoversOnDeath, threadName);
        thread.setDaemon(true);
    }

    /** Starts the thread; called once by the spawner after construction. */
    final void start() {
        thread.start();
    }

    public abstract ReapMode mode();

    public final void addExitListener(ExitListener listener) {
        listeners.add(listener);
    }

    public final void removeExitListener(ExitListener listener) {
        listeners.remove(listener);
    }

    /** Children spawned and not yet reaped, in no particular order. */
    public final List<ChildProcess> liveChildren() {
        return new ArrayList<>(live);
    }

    /** CPU time the reaper thread has used so far (ThreadMXBean), -1 where the JVM cannot tell. */
    public final long cpuTimeNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        return threads.isThreadCpuTimeSupported() ? threads.getThreadCpuTime(thread.getId()) : -1;
    }

    /** The reaper thread's name, e.g. for thread dumps. */
    public final String threadName() {
        return thread.getName();
    }

    /** Whether the caller runs on this reaper's thread (in a listener or an onExit stage). */
    final boolean isReaperThread() {
        return Thread.currentThread() == thread;
    }

    /** Spawner thread: a new child to watch. */
    final void register(ChildProcess child) {
        live.add(child);
        enqueue(child);
    }

    abstract void enqueue(ChildProcess child);

    abstract void run();

    /** A reaper that dies (a failed poll) must not leave callers waiting forever on onExit(). */
    private void runAndFailLeftoversOnDeath() {
        try {
            run();
        } catch (RuntimeException | Error e) {
            for (ChildProcess child : live) {
                child.onExit().completeExceptionally(new IllegalStateException(
                        "reaper thread died, child pid=" + child.pid() + " is no longer watched", e));
            }
            throw e;
        }
    }

    /** Asks the thread to stop and waits for it; children still live stay unreaped. */
    final void stop() throws InterruptedException {
        requestStop();
        thread.join();
    }

    abstract void requestStop();

    /**
     * Reaper thread: {@link ChildProcess#tryReap()} of one child. A lost child (its status taken by
     * someone else) gets its future failed and is reported (not swallowed); the caller stops watching
     * it ({@link #isLive} turns false). Returns the status, or null while the child runs or when it was lost.
     */
    final ExitStatus tryReapOrFail(ChildProcess child) {
        try {
            return child.tryReap();
        } catch (ChildLostException e) {
            if (live.remove(child)) {
                child.onExit().completeExceptionally(e);
                thread.getUncaughtExceptionHandler().uncaughtException(thread, e);
            }
            return null;
        }
    }

    /**
     * Collects {@code child}'s exit now, on the calling thread, if it has exited: for a thread that waits on the pidfd
     * itself ({@link ExitWatch}). Exactly once whichever thread gets there first: the first to collect completes
     * {@link ChildProcess#onExit()} and tells the listeners (on its own thread); the other only sees the status.
     * Returns the status, or null while the child runs (or when it was lost: its future failed).
     */
    public final ExitStatus reapNow(ChildProcess child) {
        ExitStatus status = tryReapOrFail(child);
        if (status != null) {
            exited(child, status);
        }
        return status;
    }

    /** The epoll set the reaper waits on, where an {@link ExitWatch} hands a child back; -1 when it has none. */
    int epollSet() {
        return -1;
    }

    /** Whether the child is still to be watched: spawned, neither reaped nor lost. */
    final boolean isLive(ChildProcess child) {
        return live.contains(child);
    }

    /**
     * A child's status was collected (by the reaper thread or {@link #reapNow}); the first call for it completes its
     * future and tells the listeners, a later one does nothing.
     */
    final void exited(ChildProcess child, ExitStatus status) {
        if (!live.remove(child)) {
            return;
        }
        child.completeExit(status);
        for (ExitListener listener : listeners) {
            try {
                listener.childExited(child, status);
            } catch (RuntimeException | Error e) {
                // Not swallowed: the thread's handler reports it; one bad listener must not stop reaping.
                thread.getUncaughtExceptionHandler().uncaughtException(thread, e);
            }
        }
    }
}
