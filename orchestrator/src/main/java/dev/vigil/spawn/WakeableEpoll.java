package dev.vigil.spawn;

import dev.vigil.spawn.internal.Linux;
import dev.vigil.spawn.internal.LinuxCalls;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;

/**
 * One epoll set holding an eventfd: any thread {@link #wake}s the one thread that {@link #await}s the set. Its other
 * entries are pidfds, registered by {@link ChildProcess#registerPidfd} with their own number as data (never
 * negative), read back with {@link #data}. The reaper thread's set ({@link PidfdPollReaper}) and each
 * {@link ExitWatch}'s.
 */
final class WakeableEpoll implements AutoCloseable {
    /** The eventfd's epoll data. */
    static final long WAKE = -1;
    /** What {@link #await} returns when a signal interrupted the wait. */
    static final int INTERRUPTED = -1;
    private static final int MAX_EVENTS = 64;
    private static final byte[] ONE = {1, 0, 0, 0, 0, 0, 0, 0};

    private final LinuxCalls calls = Linux.calls();
    private final String owner;
    private final int epollFd;
    private final int wakeFd;
    private final Pointer events = Memory.allocateDirect(Linux.runtime(), (long) MAX_EVENTS * Linux.EPOLL_EVENT_SIZE);
    private final byte[] drain = new byte[8];

    private WakeableEpoll(String owner, int epollFd, int wakeFd) {
        this.owner = owner;
        this.epollFd = epollFd;
        this.wakeFd = wakeFd;
    }

    /** A new set with its eventfd in it; {@code owner} names the waiter in errors ("reaper", "exit watch"). */
    static WakeableEpoll open(String owner) {
        LinuxCalls calls = Linux.calls();
        int wake = calls.eventfd(0, Linux.EFD_CLOEXEC | Linux.EFD_NONBLOCK);
        if (wake < 0) {
            throw new NativePartUnavailableException("eventfd failed: errno=" + Linux.describeErrno(Linux.errno()));
        }
        int epoll = calls.epoll_create1(Linux.EPOLL_CLOEXEC);
        if (epoll < 0) {
            int errno = Linux.errno();
            calls.close(wake);
            throw new NativePartUnavailableException("epoll_create1 failed: errno=" + Linux.describeErrno(errno));
        }
        Pointer event = Memory.allocateDirect(Linux.runtime(), Linux.EPOLL_EVENT_SIZE);
        event.putInt(0, Linux.EPOLLIN);
        event.putLong(Linux.EPOLL_EVENT_DATA_OFFSET, WAKE);
        if (calls.epoll_ctl(epoll, Linux.EPOLL_CTL_ADD, wake, event) != 0) {
            int errno = Linux.errno();
            calls.close(epoll);
            calls.close(wake);
            throw new NativePartUnavailableException("epoll_ctl(ADD eventfd) failed: errno=" + Linux.describeErrno(errno));
        }
        return new WakeableEpoll(owner, epoll, wake);
    }

    /** The epoll descriptor, for registering pidfds. */
    int fd() {
        return epollFd;
    }

    /** Ends the waiter's {@link #await}; any thread. An eventfd counter only saturates after 2^64-2 writes. */
    void wake() {
        calls.write(wakeFd, ONE, ONE.length);
    }

    /**
     * Waits at most {@code timeoutMillis} (-1: no bound); returns how many entries are ready (0 on timeout, each read
     * with {@link #data}; the eventfd's, {@link #WAKE}, is drained already), or {@link #INTERRUPTED}.
     */
    int await(int timeoutMillis) {
        int n = calls.epoll_wait(epollFd, events, MAX_EVENTS, timeoutMillis);
        if (n < 0) {
            int errno = Linux.errno();
            if (errno == Linux.EINTR) {
                return INTERRUPTED;
            }
            throw new IllegalStateException(owner + " epoll_wait failed: errno=" + Linux.describeErrno(errno));
        }
        for (int i = 0; i < n; i++) {
            if (data(i) == WAKE) {
                calls.read(wakeFd, drain, drain.length);
            }
        }
        return n;
    }

    /** The data of ready entry {@code i} of the last {@link #await}: a pidfd, or {@link #WAKE}. */
    long data(int i) {
        return events.getLong((long) i * Linux.EPOLL_EVENT_SIZE + Linux.EPOLL_EVENT_DATA_OFFSET);
    }

    @Override
    public void close() {
        calls.close(epollFd);
        calls.close(wakeFd);
    }
}
