package dev.vigil.spawn;

import dev.vigil.spawn.internal.Linux;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;

/**
 * {@link ReapMode#PIDFD_POLL}: one epoll set holding an eventfd (written to add children or stop) and every live
 * child's pidfd, each added once; an epoll_wait with no timeout returns only the ready ones. The kernel makes a pidfd
 * readable when its process exits; then only that child is waited for. No timer, no sleep: the thread uses CPU only
 * when something happened, and only for what happened (a poll(2) over every pidfd cost each exit a pass over all of
 * them: 15 ms of this thread's CPU for a 256-child close, against the children's own exits on the same cores).
 */
final class PidfdPollReaper extends Reaper {
    private final Queue<ChildProcess> incoming = new ConcurrentLinkedQueue<>();
    private final WakeableEpoll epoll;
    private volatile boolean stopping;

    /** Reaper thread only: the watched children by the pidfd registered for them. */
    private final Map<Integer, ChildProcess> watched = new HashMap<>();
    private final Pointer one = Memory.allocateDirect(Linux.runtime(), Linux.EPOLL_EVENT_SIZE);

    PidfdPollReaper() {
        super("vigil-reaper-pidfd");
        epoll = WakeableEpoll.open("reaper");
    }

    @Override
    public ReapMode mode() {
        return ReapMode.PIDFD_POLL;
    }

    @Override
    void enqueue(ChildProcess child) {
        incoming.add(child);
        epoll.wake();
    }

    @Override
    void requestStop() {
        stopping = true;
        epoll.wake();
    }

    @Override
    int epollSet() {
        return epoll.fd();
    }

    @Override
    void run() {
        try {
            while (!stopping) {
                for (ChildProcess child; (child = incoming.poll()) != null; ) {
                    watch(child);
                }
                int ready = epoll.await(-1);
                if (ready != WakeableEpoll.INTERRUPTED) {
                    reapReady(ready);
                }
            }
        } finally {
            epoll.close();
        }
    }

    /** Adds a new child's pidfd to the set; one that exited already is readable at once, so nothing is missed. */
    private void watch(ChildProcess child) {
        // into this set unless an ExitWatch took it first (it hands it back here)
        int fd = child.registerPidfd(epoll.fd(), one, false);
        if (fd < 0) {
            // no pidfd (closed: reaped or lost meanwhile) or the set refused it: look at it now, as a ready one
            int errno = child.pidfd() < 0 ? 0 : Linux.errno();
            ExitStatus status = tryReapOrFail(child);
            if (status != null) {
                exited(child, status);
            } else if (isLive(child)) {
                throw new IllegalStateException("reaper cannot watch pid=" + child.pid() + " pidfd=" + fd
                        + ": epoll_ctl errno=" + Linux.describeErrno(errno));
            }
            return;
        }
        watched.put(fd, child);
    }

    /**
     * Collects every ready child first (each status stamped as collected), then tells the world. A ready pidfd leaves
     * the set before the child's status is collected, as the reap closes it ({@link ChildProcess#registerPidfd}):
     * closing alone takes it out only once no copy of the descriptor is left (a process being spawned holds one until
     * its exec), and until then each wake-up would report it again. An event read before an ExitWatch took the child
     * (or reaped it) finds it running (watched on there) or reaped (nothing to tell: {@link #exited} is once).
     */
    private void reapReady(int ready) {
        List<ChildProcess> done = null;
        List<ExitStatus> statuses = null;
        for (int i = 0; i < ready; i++) {
            long data = epoll.data(i);
            if (data == WakeableEpoll.WAKE) {
                continue;
            }
            int fd = (int) data;
            ChildProcess child = watched.remove(fd);
            if (child == null) {
                continue;
            }
            ExitStatus status = tryReapOrFail(child);
            if (status != null || !isLive(child)) {
                if (done == null) {
                    done = new ArrayList<>();
                    statuses = new ArrayList<>();
                }
                done.add(child);
                statuses.add(status);
            } else {
                watched.put(fd, child); // not reapable yet (an interrupted waitpid, or taken by an ExitWatch): kept
            }
        }
        if (done == null) {
            return;
        }
        for (int i = 0; i < done.size(); i++) {
            if (statuses.get(i) != null) {
                exited(done.get(i), statuses.get(i));
            }
        }
    }
}
