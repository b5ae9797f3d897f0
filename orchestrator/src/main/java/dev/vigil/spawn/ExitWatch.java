package dev.vigil.spawn;

import dev.vigil.spawn.internal.Linux;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;

/**
 * A thread that waits for the exits of some children itself, instead of being told by the reaper thread: the close
 * engine, for the children of its closes (one hand-off fewer per exit, and no reaper thread waking beside the exiting
 * children). One epoll set holding an eventfd ({@link #wake}, from any thread) and the pidfds {@link #watch}ed,
 * each moved here out of the reaper's set (a pidfd is in one set at a time: one thread wakes per exit) and back by
 * {@link #unwatch} / {@link #close}. A ready child is collected on the owner's thread through {@link Reaper#reapNow}:
 * exactly once, whichever of the two threads collects it, its {@link ChildProcess#onExit()} completing there.
 *
 * <p>Owner thread only, but {@link #wake}. Children without a pidfd (the waitpid fallback) are not watched: the
 * reaper tells of their exits as before.
 */
public final class ExitWatch implements AutoCloseable {
    private final Reaper reaper;
    private final WakeableEpoll epoll;
    private final Pointer one = Memory.allocateDirect(Linux.runtime(), Linux.EPOLL_EVENT_SIZE);
    private final Map<Integer, ChildProcess> byFd = new HashMap<>();
    private final Map<ChildProcess, Integer> fds = new IdentityHashMap<>();
    private final List<ChildProcess> ready = new ArrayList<>();
    private boolean closed;

    private ExitWatch(Reaper reaper, WakeableEpoll epoll) {
        this.reaper = reaper;
        this.epoll = epoll;
    }

    /** A watch handing exits over through {@code reaper}'s {@link Reaper#reapNow}. */
    public static ExitWatch open(Reaper reaper) {
        return new ExitWatch(reaper, WakeableEpoll.open("exit watch"));
    }

    /**
     * Waits for {@code child}'s exit here from now on (its pidfd moved out of the reaper's set); false when it has no
     * pidfd to watch (reaped already, or the waitpid fallback): then the reaper tells of its exit.
     */
    public boolean watch(ChildProcess child) {
        if (closed) {
            return false;
        }
        int fd = child.registerPidfd(epoll.fd(), one, true);
        if (fd < 0) {
            return false;
        }
        byFd.put(fd, child);
        fds.put(child, fd);
        return true;
    }

    /** Hands {@code child} back to the reaper (its pidfd into the reaper's set), if it is still watched here. */
    public void unwatch(ChildProcess child) {
        Integer fd = fds.remove(child);
        if (fd == null) {
            return;
        }
        if (byFd.get(fd) == child) {
            byFd.remove(fd);
        }
        child.registerPidfd(reaper.epollSet(), one, true); // -1 (the waitpid reaper): only out of this set
    }

    /** True while a child is watched here. */
    public boolean watching() {
        return !fds.isEmpty();
    }

    /** Wakes the owner from {@link #await}; any thread. */
    public void wake() {
        epoll.wake();
    }

    /**
     * Waits at most {@code timeoutMillis} (-1: until something happens) for a watched exit or a {@link #wake}; returns
     * how many watched children are ready to be collected ({@link #reapReady}), 0 after a wake-up, -1 on timeout.
     */
    public int await(int timeoutMillis) {
        int n = epoll.await(timeoutMillis);
        if (n == WakeableEpoll.INTERRUPTED) {
            return 0;
        }
        if (n == 0) {
            return -1;
        }
        int children = 0;
        for (int i = 0; i < n; i++) {
            long data = epoll.data(i);
            if (data == WakeableEpoll.WAKE) {
                continue;
            }
            // every ready child first: collecting one runs its onExit stages, which may watch others
            ChildProcess child = byFd.remove((int) data);
            if (child != null) {
                fds.remove(child);
                ready.add(child);
                children++;
            }
        }
        return children;
    }

    /**
     * Collects the exits {@link #await} found ready, on this thread ({@link Reaper#reapNow}: their onExit stages run
     * here, unless the reaper collected one first); returns how many. One still running (an interrupted waitpid) is
     * watched on.
     */
    public int reapReady() {
        int n = ready.size();
        for (int i = 0; i < n; i++) {
            ChildProcess child = ready.get(i);
            if (reaper.reapNow(child) == null && !child.isReaped() && reaper.isLive(child)) {
                watch(child);
            }
        }
        ready.clear();
        return n;
    }

    /** Hands every child still watched back to the reaper and closes the set; the owner thread has stopped. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ChildProcess child : new ArrayList<>(fds.keySet())) {
            unwatch(child);
        }
        epoll.close();
    }
}
