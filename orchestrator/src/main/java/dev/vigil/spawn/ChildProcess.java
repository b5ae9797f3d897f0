package dev.vigil.spawn;

import dev.vigil.journal.MonotonicClock;
import dev.vigil.spawn.internal.Linux;
import dev.vigil.spawn.internal.WaitStatus;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A running (or reaped) child started by a {@link Spawner}: its pid, its pidfd, its exit.
 *
 * <p>Signals go through the pidfd ({@code pidfd_send_signal}), never to a bare pid, and never
 * after the reap: the reap and every signal hold this child's lock, so a signal either reaches
 * this very process (alive or a zombie) or fails with {@link SignalException}; a recycled pid is
 * never hit. The child leads its own process group (the shim made it), so the group id is its pid.
 *
 * <p>{@link #onExit()} completes on the thread that collected the exit: the reaper thread, or one that waits on the
 * pidfd itself ({@link ExitWatch}: the close engine, for the children of its closes). Dependent stages added without
 * {@code *Async} run there and delay the next reap; keep them short.
 *
 * <p>The pidfd is in one epoll set at a time, the reaper's or an {@link ExitWatch}'s (moved under this child's lock),
 * so one thread wakes for an exit, and it leaves that set before the reap closes it.
 */
public final class ChildProcess {
    private static final int NO_PIDFD = -1;

    private final int pid;
    private final List<String> argv;
    private final long spawnedNanos;
    private final CompletableFuture<ExitStatus> exit = new CompletableFuture<>();
    private final Object lock = new Object();
    /** Guarded by {@link #lock}; closed (set to NO_PIDFD) by the reap. */
    private int pidfd;
    /** Guarded by {@link #lock}: the epoll set the pidfd is registered in (the reaper's or an ExitWatch's), or -1. */
    private int epollSet = -1;
    /** Guarded by {@link #lock}; set once, by the reap. */
    private ExitStatus status;
    /** Guarded by {@link #lock}; why our reap found no child (someone else collected it), else null. */
    private String lost;
    /** Guarded by {@link #lock}: the status the peek before the reap read; the reap sets {@link #status} from it. */
    private ExitStatus peeked;
    /** Test hook: runs right after the reap's waitpid returned (a fault raised there); null in production. */
    static volatile Runnable afterReapCall;

    /** Guarded by {@link #lock}: the write end of the child's doorbell pipe, or null; closed by the reap. */
    private java.io.FileOutputStream doorbell;

    ChildProcess(int pid, int pidfd, List<String> argv, long spawnedNanos) {
        this(pid, pidfd, argv, spawnedNanos, null);
    }

    ChildProcess(int pid, int pidfd, List<String> argv, long spawnedNanos, java.io.FileOutputStream doorbell) {
        this.pid = pid;
        this.pidfd = pidfd;
        this.doorbell = doorbell;
        this.argv = List.copyOf(argv);
        this.spawnedNanos = spawnedNanos;
    }

    public int pid() {
        return pid;
    }

    /** The child's process group: the shim made it the group leader, so this is its pid. */
    public int processGroupId() {
        return pid;
    }

    /** The command as requested (before the shim): argv[0] and its arguments. */
    public List<String> argv() {
        return argv;
    }

    /** CLOCK_MONOTONIC when posix_spawn returned. */
    public long spawnedNanos() {
        return spawnedNanos;
    }

    /** Completes with the exit status when the reaper collects it (on the reaper thread). */
    public CompletableFuture<ExitStatus> onExit() {
        return exit;
    }

    /** The exit status once reaped. */
    public Optional<ExitStatus> exitStatus() {
        synchronized (lock) {
            return Optional.ofNullable(status);
        }
    }

    public boolean isReaped() {
        synchronized (lock) {
            return status != null;
        }
    }

    /**
     * Sends {@code signal} to this child through its pidfd (kill(pid) only in the no-pidfd fallback,
     * which is safe for the same reason: the pid cannot be reused before our reap, and the reap
     * waits for this lock).
     *
     * @throws SignalException when the child is already reaped or the kernel refuses
     */
    public void signal(int signal) {
        synchronized (lock) {
            refuseIfReaped(signal);
            checkSent(pid, signal, pidfd == NO_PIDFD
                    ? Linux.calls().kill(pid, signal)
                    : Linux.calls().syscall(Linux.SYS_PIDFD_SEND_SIGNAL, pidfd, signal, null, 0));
        }
    }

    /**
     * Sends {@code signal} to the child's whole process group with kill(-pgid). Safe while the
     * leader is unreaped: a process group id is the leader's pid, and the kernel does not hand out
     * a pid (so not a group id either) that still names a process, even a zombie. Our leader stays
     * at least a zombie until our reap, which waits for this lock; after the reap this throws.
     *
     * @throws SignalException when the leader is already reaped or the kernel refuses
     */
    public void signalProcessGroup(int signal) {
        synchronized (lock) {
            refuseIfReaped(signal);
            checkSent(-pid, signal, Linux.calls().kill(-pid, signal));
        }
    }

    private void refuseIfReaped(int signal) {
        if (status != null) {
            throw new SignalException(pid, signal, "already reaped (" + status.describe() + "), its pid may name another process now");
        }
        if (lost != null) {
            throw new SignalException(pid, signal, lost + ", its pid may name another process now");
        }
    }

    /**
     * Collects the status if the child has exited and closes the pidfd; null while it runs. For this pid only, safe
     * because nothing else in the JVM reaps our children: first a peek ({@code waitid(P_PID, pid, WEXITED | WNOHANG |
     * WNOWAIT)}, the child stays waitable) whose status is kept, then the reap ({@code waitpid(pid, WNOHANG)}).
     * The peek is what makes a retry safe: a memory fault met earlier on this thread (a cut mapped file) is raised at its
     * next return from native code, which may be the reap's; the status the reap consumed is then still here, and the
     * retry's ECHILD is our own earlier reap, not a lost child.
     * Called by the reaper thread only; completing {@link #onExit()} is the caller's job, outside the lock.
     *
     * @throws ChildLostException when there is no such child before our reap: something else in the JVM collected it;
     *                            the pidfd is closed and signals are refused from then on
     */
    ExitStatus tryReap() {
        synchronized (lock) {
            if (status != null) {
                return status;
            }
            if (lost != null) {
                throw new ChildLostException(lost);
            }
            if (peeked == null) {
                int[] info = new int[WaitStatus.SIGINFO_INTS];
                if (Linux.calls().waitid(Linux.P_PID, pid, info, Linux.WEXITED | Linux.WNOHANG | Linux.WNOWAIT) != 0) {
                    return failedWait("waitid", Linux.errno());
                }
                if (!WaitStatus.infoNamesChild(info)) {
                    return null;
                }
                long now = MonotonicClock.nanos();
                peeked = WaitStatus.infoExited(info) ? ExitStatus.exited(WaitStatus.infoStatus(info), now)
                        : ExitStatus.killed(WaitStatus.infoStatus(info), now);
            }
            int rc = Linux.calls().waitpid(pid, new int[1], Linux.WNOHANG);
            Runnable hook = afterReapCall;
            if (hook != null) {
                hook.run();
            }
            if (rc == 0) {
                return null; // cannot be (the peek saw it waitable): looked at again
            }
            if (rc != pid) {
                int errno = Linux.errno();
                if (errno != Linux.ECHILD) {
                    return failedWait("waitpid", errno);
                }
                // ECHILD: the reap of an earlier try that a fault cut short consumed it; the peek has its status
            }
            status = peeked;
            closePidfd();
            return status;
        }
    }

    /** A wait that failed: null when it is to be tried again (EINTR), else the child is lost. */
    private ExitStatus failedWait(String call, int errno) {
        if (errno == Linux.EINTR) {
            return null;
        }
        lost = "exit status lost: pid=" + pid + " " + call + " errno=" + Linux.describeErrno(errno)
                + " (something else reaped this child: a waitpid(-1) or an ignored SIGCHLD elsewhere in the JVM?)";
        closePidfd();
        throw new ChildLostException(lost);
    }

    /** Reaper thread: the status was collected; complete the future (outside the lock). */
    void completeExit(ExitStatus collected) {
        exit.complete(collected);
    }

    int pidfd() {
        synchronized (lock) {
            return pidfd;
        }
    }

    /**
     * Registers the pidfd in epoll set {@code epfd} ({@code event}: one struct epoll_event of the caller's, its data set
     * here to the pidfd) unless it is in a set already ({@code move} false: the reaper's first look leaves it where an
     * ExitWatch took it), else moves it there from the set it was in: added first, then removed, so an exit is never
     * missed between the two (both may see it; the reap is exactly once, {@link Reaper#reapNow}). Returns the pidfd,
     * or -1 when there is none (reaped, lost, no pidfd) or the kernel refused (errno left as it said).
     */
    int registerPidfd(int epfd, jnr.ffi.Pointer event, boolean move) {
        synchronized (lock) {
            if (pidfd == NO_PIDFD) {
                return -1;
            }
            if (epollSet == epfd || (epollSet >= 0 && !move)) {
                return pidfd;
            }
            event.putInt(0, Linux.EPOLLIN);
            event.putLong(Linux.EPOLL_EVENT_DATA_OFFSET, pidfd);
            if (epfd >= 0 && Linux.calls().epoll_ctl(epfd, Linux.EPOLL_CTL_ADD, pidfd, event) != 0) {
                return -1;
            }
            if (epollSet >= 0) {
                Linux.calls().epoll_ctl(epollSet, Linux.EPOLL_CTL_DEL, pidfd, null);
            }
            epollSet = epfd;
            return pidfd;
        }
    }

    private void closePidfd() {
        if (pidfd != NO_PIDFD) {
            if (epollSet >= 0) {
                // out of its set first: a copy of the descriptor held by a process being spawned (until its exec) would
                // keep the registration, readable, after our close
                Linux.calls().epoll_ctl(epollSet, Linux.EPOLL_CTL_DEL, pidfd, null);
                epollSet = -1;
            }
            Linux.calls().close(pidfd);
            pidfd = NO_PIDFD;
        }
        if (doorbell != null) {
            try {
                doorbell.close();
            } catch (java.io.IOException ignored) {
                // a pipe's close does not fail in a way we could act on
            }
            doorbell = null;
        }
    }

    /** True when the child was spawned with a doorbell pipe ({@link SpawnRequest#withDoorbellPipe()}) and is not reaped. */
    public boolean hasDoorbellPipe() {
        synchronized (lock) {
            return doorbell != null;
        }
    }

    /**
     * Writes one byte into the child's doorbell pipe (its reader thread wakes the serve loop). A child that is gone
     * (EPIPE) or a pipe already closed by the reap is no error: there is nobody to wake. Never blocks long: the child
     * drains the pipe on every wake and the parent rings only when the child announced its sleep.
     */
    public void ringDoorbell() {
        synchronized (lock) {
            if (doorbell == null) {
                return;
            }
            try {
                doorbell.write(1);
            } catch (java.io.IOException gone) {
                // the child is gone: nobody to wake
            }
        }
    }

    @Override
    public String toString() {
        ExitStatus seen = exitStatus().orElse(null);
        return "child pid=" + pid + " command=" + String.join(" ", argv) + (seen == null ? " running" : " " + seen.describe());
    }

    private static void checkSent(int target, int signal, long rc) {
        if (rc != 0) {
            throw new SignalException(target, signal, "errno=" + Linux.describeErrno(Linux.errno()));
        }
    }
}
