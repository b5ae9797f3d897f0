package dev.vigil.spawn;

import dev.vigil.spawn.internal.Linux;
import dev.vigil.spawn.internal.LinuxCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;

/**
 * {@link ReapMode#PIDFD_POLL}: one poll(2) with no timeout over an eventfd (slot 0, written to
 * add children or stop) and every live child's pidfd. The kernel makes a pidfd readable when its
 * process exits; then only that child is waited for. No timer, no sleep: the thread uses CPU only
 * when something happened.
 */
final class PidfdPollReaper extends Reaper {
    private static final byte[] ONE = {1, 0, 0, 0, 0, 0, 0, 0};

    private final LinuxCalls calls = Linux.calls();
    private final Queue<ChildProcess> incoming = new ConcurrentLinkedQueue<>();
    private final int wakeFd;
    private volatile boolean stopping;

    /** Reaper thread only. */
    private final List<ChildProcess> watched = new ArrayList<>();
    private Pointer pollFds;
    private int pollCapacity;

    PidfdPollReaper() {
        super("vigil-reaper-pidfd");
        wakeFd = calls.eventfd(0, Linux.EFD_CLOEXEC | Linux.EFD_NONBLOCK);
        if (wakeFd < 0) {
            throw new NativePartUnavailableException("eventfd failed: errno=" + Linux.describeErrno(Linux.errno()));
        }
    }

    @Override
    public ReapMode mode() {
        return ReapMode.PIDFD_POLL;
    }

    @Override
    void enqueue(ChildProcess child) {
        incoming.add(child);
        wake();
    }

    @Override
    void requestStop() {
        stopping = true;
        wake();
    }

    private void wake() {
        // An eventfd counter only saturates after 2^64-2 writes; EAGAIN cannot happen in practice.
        calls.write(wakeFd, ONE, ONE.length);
    }

    @Override
    void run() {
        try {
            while (!stopping) {
                for (ChildProcess child; (child = incoming.poll()) != null; ) {
                    watched.add(child);
                }
                int slots = fillPollSet();
                int ready = calls.poll(pollFds, slots, -1);
                if (ready < 0) {
                    int errno = Linux.errno();
                    if (errno == Linux.EINTR) {
                        continue;
                    }
                    throw new IllegalStateException("reaper poll failed: errno=" + Linux.describeErrno(errno));
                }
                if (revents(0) != 0) {
                    calls.read(wakeFd, new byte[8], 8);
                }
                reapReady(slots);
            }
        } finally {
            calls.close(wakeFd);
        }
    }

    /** Slot 0 is the wake eventfd, slot i + 1 is watched child i. */
    private int fillPollSet() {
        int slots = watched.size() + 1;
        if (slots > pollCapacity) {
            pollCapacity = Math.max(slots, pollCapacity * 2);
            pollFds = Memory.allocateDirect(Linux.runtime(), (long) pollCapacity * Linux.POLLFD_SIZE);
        }
        setSlot(0, wakeFd);
        for (int i = 0; i < watched.size(); i++) {
            setSlot(i + 1, watched.get(i).pidfd());
        }
        return slots;
    }

    private void setSlot(int slot, int fd) {
        long at = (long) slot * Linux.POLLFD_SIZE;
        pollFds.putInt(at, fd);
        pollFds.putShort(at + Linux.POLLFD_EVENTS_OFFSET, Linux.POLLIN);
        pollFds.putShort(at + Linux.POLLFD_REVENTS_OFFSET, (short) 0);
    }

    private short revents(int slot) {
        return pollFds.getShort((long) slot * Linux.POLLFD_SIZE + Linux.POLLFD_REVENTS_OFFSET);
    }

    /** Collects every ready child first (each status stamped as collected), then tells the world. */
    private void reapReady(int slots) {
        List<ChildProcess> done = null;
        List<ExitStatus> statuses = null;
        for (int slot = 1; slot < slots; slot++) {
            if (revents(slot) == 0) {
                continue;
            }
            ChildProcess child = watched.get(slot - 1);
            ExitStatus status = tryReapOrFail(child);
            if (status != null || !isLive(child)) {
                if (done == null) {
                    done = new ArrayList<>();
                    statuses = new ArrayList<>();
                }
                done.add(child);
                statuses.add(status);
            }
        }
        if (done == null) {
            return;
        }
        watched.removeAll(done);
        for (int i = 0; i < done.size(); i++) {
            if (statuses.get(i) != null) {
                exited(done.get(i), statuses.get(i));
            }
        }
    }
}
