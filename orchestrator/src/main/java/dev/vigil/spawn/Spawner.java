package dev.vigil.spawn;

import static dev.vigil.close.decision.EscalationStep.SIGKILL;

import dev.vigil.journal.JournalException;

import dev.vigil.spawn.internal.Linux;
import dev.vigil.spawn.internal.LinuxCalls;
import dev.vigil.spawn.internal.ShimProtocol;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starts children and reaps them. Every child is started with libc's posix_spawnp from one of the
 * JVM's spawner threads, through vigil-spawn-shim (PDEATHSIG, parent re-check, own process
 * group, inherited descriptors closed; docs/SPAWNING.md), gets a pidfd at once, and is watched by
 * this spawner's {@link Reaper}. A failed exec comes back as a {@link SpawnException} with errno
 * and command, and nothing is left behind.
 *
 * <p>{@link #close()} kills (SIGKILL to the process group) and reaps the children still alive,
 * then stops the reaper: a spawner that must leave survivors running is simply not closed.
 */
public final class Spawner implements AutoCloseable {
    private static final long CLOSE_REAP_BOUND_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final ShimLauncher launcher;
    private final Reaper reaper;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Spawner(ShimLauncher launcher, Reaper reaper) {
        this.launcher = launcher;
        this.reaper = reaper;
    }

    /** A spawner with {@link SpawnerOptions#defaults()}. */
    public static Spawner start() {
        return start(SpawnerOptions.defaults());
    }

    /**
     * @throws NativePartUnavailableException when the shim is missing or not executable, or libc cannot be bound
     */
    public static Spawner start(SpawnerOptions options) {
        Path shim = options.nativeDir().resolve(ShimProtocol.SHIM_BINARY).toAbsolutePath();
        if (!Files.isRegularFile(shim)) {
            throw new NativePartUnavailableException("the spawn shim is missing: path=" + shim
                    + " (build native/ with make, or point -Dvigil.native.dir / VIGIL_NATIVE_DIR at its build directory)");
        }
        if (!Files.isExecutable(shim)) {
            throw new NativePartUnavailableException("the spawn shim is not executable: path=" + shim);
        }
        try {
            Linux.calls();
        } catch (RuntimeException | LinkageError e) {
            throw new NativePartUnavailableException("jnr-ffi could not bind libc: " + JournalException.plain(e), e);
        }
        raiseOpenFileLimit();
        boolean pidfds = pidfdsAvailable();
        Reaper reaper = pidfds && options.reapMode() == ReapMode.PIDFD_POLL ? new PidfdPollReaper() : new WaitpidBackoffReaper();
        reaper.start();
        return new Spawner(new ShimLauncher(shim, pidfds), reaper);
    }

    /**
     * Every child holds descriptors in the orchestrator (its pidfd; a Java child's doorbell pipe; a spawn's status pipe
     * for a moment): raise the soft RLIMIT_NOFILE to the hard one, as HotSpot's MaxFDLimit already does unless it was
     * turned off. Past the hard limit a spawn fails naming pipe2 / pidfd_open and errno 24 (Too many open files).
     */
    private static void raiseOpenFileLimit() {
        try {
            long[] limit = new long[2]; // {soft, hard}
            if (Linux.calls().getrlimit(Linux.RLIMIT_NOFILE, limit) == 0 && Long.compareUnsigned(limit[0], limit[1]) < 0) {
                Linux.calls().setrlimit(Linux.RLIMIT_NOFILE, new long[] {limit[1], limit[1]});
            }
        } catch (RuntimeException | LinkageError e) {
            // the JVM's own default raise stands; a spawn past the limit names EMFILE
        }
    }

    /** Opens a pidfd of our own process to see whether the kernel has pidfd_open (Linux 5.3+). */
    private static boolean pidfdsAvailable() {
        LinuxCalls calls = Linux.calls();
        long fd = calls.syscall(Linux.SYS_PIDFD_OPEN, calls.getpid(), 0);
        if (fd < 0) {
            int errno = Linux.errno();
            if (errno == Linux.ENOSYS) {
                return false;
            }
            throw new NativePartUnavailableException("pidfd_open of our own pid failed: errno=" + Linux.describeErrno(errno));
        }
        calls.close((int) fd);
        return true;
    }

    public Reaper reaper() {
        return reaper;
    }

    /** Whether children get pidfds (signals through pidfd_send_signal); false only on kernels without pidfd_open. */
    public boolean usesPidfds() {
        return launcher.usesPidfds();
    }

    /**
     * Whether this process has room under RLIMIT_NOFILE for the descriptors a start of {@code children} children,
     * {@code doorbells} of them with a doorbell pipe, spawned {@code batch} at once, holds: null when it has (or the
     * limit cannot be read), else one line with the figures and how to raise the limit. Measured (/proc/self/fd
     * before and after a start): each child holds one, its pidfd, until its reap, a doorbell child one more (the
     * pipe's write end); a batch holds each child's status pipe read end until its exec verdict, and the one being
     * spawned its two pipes at once.
     */
    public String openFileShortfall(long children, long doorbells, int batch) {
        long needed = (launcher.usesPidfds() ? children : 0) + doorbells + Math.min(children, batch) + 4;
        long[] limit = new long[2]; // {soft, hard}
        long open;
        try {
            if (Linux.calls().getrlimit(Linux.RLIMIT_NOFILE, limit) != 0) {
                return null;
            }
        } catch (RuntimeException | LinkageError e) {
            return null; // the spawn itself still fails naming EMFILE
        }
        try (java.util.stream.Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            open = fds.count() - 1; // less the listing's own
        } catch (java.nio.file.NoSuchFileException | java.nio.file.AccessDeniedException | RuntimeException e) {
            return null; // no /proc to count in: the spawn itself still fails naming EMFILE
        } catch (java.io.IOException e) {
            // At the limit the listing's own descriptor is refused (EMFILE): every one is taken. (Before, the check
            // gave up here and the spawn failed naming only errno=24 and stage=pipe2.)
            open = limit[0];
        }
        if (limit[0] < 0 || open + needed <= limit[0]) { // < 0: RLIM_INFINITY read as a signed long
            return null;
        }
        return children + (children == 1 ? " child needs " : " children need ") + needed + " more open files, " + open + " are open, RLIMIT_NOFILE is soft="
                + limit[0] + " hard=" + limit[1] + ": raise it (ulimit -n N under the hard limit; the hard one as root,"
                + " LimitNOFILE= of a systemd unit, /etc/security/limits.conf) or start fewer children";
    }

    /** The shim binary this spawner starts children through. */
    public Path shim() {
        return launcher.shim();
    }

    /**
     * Starts a child and returns once it runs the requested command (its exec succeeded).
     *
     * @throws SpawnException when it could not be started; nothing of it is left
     * @throws IllegalStateException when this spawner is closed
     */
    public ChildProcess spawn(SpawnRequest request) {
        return spawnAll(List.of(request)).get(0).childOrThrow();
    }

    /**
     * Starts every child of {@code requests} at once and returns, in their order, once each one runs its command or
     * failed. The spawner threads start the shims one after another without waiting for any shim's exec; this thread
     * then reads each one's verdict, so the execs, cgroup joins and child start-ups of the batch overlap. A failed one
     * leaves nothing behind and does not stop the others: the caller decides (a pool's start rolls the started ones
     * back). Each child is with the reaper before this returns.
     *
     * @throws IllegalStateException when this spawner is closed (nothing started)
     */
    public List<Spawned> spawnAll(List<SpawnRequest> requests) {
        if (closed.get()) {
            throw new IllegalStateException("spawner closed: command=" + requests.get(0).commandLine());
        }
        List<FutureTask<ShimLauncher.Forked>> forks = new ArrayList<>(requests.size());
        for (SpawnRequest request : requests) {
            forks.add(SpawnThread.submit(() -> launcher.fork(request)));
        }
        // Every fork is joined and every verdict read, whatever fails: a shim nobody reads would go unwatched.
        List<Spawned> out = new ArrayList<>(requests.size());
        for (int i = 0; i < forks.size(); i++) {
            try {
                ChildProcess child = launcher.verdict(SpawnThread.join(forks.get(i)));
                reaper.register(child);
                out.add(new Spawned(requests.get(i), child, null));
            } catch (RuntimeException e) {
                out.add(new Spawned(requests.get(i), null, e));
            }
        }
        return out;
    }

    /** One request of {@link #spawnAll}: its child, or why it did not start (then nothing of it is left). */
    public record Spawned(SpawnRequest request, ChildProcess child, RuntimeException failure) {
        /** The child, or the failure thrown. */
        public ChildProcess childOrThrow() {
            if (failure != null) {
                throw failure;
            }
            return child;
        }
    }

    /**
     * Kills the children still alive (SIGKILL to each one's process group), reaps them (bounded,
     * 5 s), and stops the reaper. Idempotent.
     *
     * @throws IllegalStateException naming the children that could not be reaped in time (still tracked by nobody),
     *                               or when called on the reaper thread
     */
    @Override
    public void close() {
        if (reaper.isReaperThread()) {
            throw new IllegalStateException("Spawner.close() called on the reaper thread (an exit listener or onExit stage):"
                    + " it would wait for exits only this thread can collect");
        }
        if (closed.getAndSet(true)) {
            return;
        }
        List<ChildProcess> left = reaper.liveChildren();
        List<SignalException> refused = new ArrayList<>();
        for (ChildProcess child : left) {
            killForClose(child, refused);
        }
        long deadline = System.nanoTime() + CLOSE_REAP_BOUND_NANOS;
        List<ChildProcess> unreaped = new ArrayList<>();
        for (ChildProcess child : left) {
            try {
                child.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                unreaped.add(child);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                unreaped.add(child);
            }
        }
        try {
            reaper.stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!unreaped.isEmpty()) {
            IllegalStateException failure = new IllegalStateException(
                    "spawner closed with children it could not reap after SIGKILL: " + unreaped);
            refused.forEach(failure::addSuppressed);
            throw failure;
        }
    }

    /**
     * SIGKILL to the child's process group (its own children too) and to the child itself through
     * its pidfd (it may have left its group). A refusal because it was reaped meanwhile is the
     * expected race; any other refusal is kept for the close failure it will cause.
     */
    private static void killForClose(ChildProcess child, List<SignalException> refused) {
        try {
            child.signalProcessGroup(SIGKILL);
        } catch (SignalException e) {
            refused.add(e); // the group may be empty if the child left it; the pidfd kill below still counts
        }
        try {
            child.signal(SIGKILL);
        } catch (SignalException e) {
            if (!child.isReaped()) {
                refused.add(e);
            }
        }
    }
}
