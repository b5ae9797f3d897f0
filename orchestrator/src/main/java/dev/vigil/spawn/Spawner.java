package dev.vigil.spawn;

import dev.vigil.journal.MonotonicClock;
import dev.vigil.spawn.internal.Linux;
import dev.vigil.spawn.internal.LinuxCalls;
import dev.vigil.spawn.internal.ShimProtocol;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import jnr.posix.POSIX;
import jnr.posix.POSIXFactory;
import jnr.posix.SpawnFileAction;

/**
 * Starts children and reaps them. Every child is started with jnr-posix posix_spawnp from the
 * JVM's one spawner thread, through vigil-spawn-shim (PDEATHSIG, parent re-check, own process
 * group, inherited descriptors closed; docs/SPAWNING.md), gets a pidfd at once, and is watched by
 * this spawner's {@link Reaper}. A failed exec comes back as a {@link SpawnException} with errno
 * and command, and nothing is left behind.
 *
 * <p>{@link #close()} kills (SIGKILL to the process group) and reaps the children still alive,
 * then stops the reaper: a spawner that must leave survivors running is simply not closed.
 */
public final class Spawner implements AutoCloseable {
    private static final long CLOSE_REAP_BOUND_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final int SIGKILL = 9;
    private static final int FILE_MODE = 0644;

    private final Path shim;
    private final POSIX posix;
    private final LinuxCalls calls = Linux.calls();
    private final boolean pidfds;
    private final Reaper reaper;
    private final int ownPid;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Spawner(Path shim, POSIX posix, boolean pidfds, Reaper reaper) {
        this.shim = shim;
        this.posix = posix;
        this.pidfds = pidfds;
        this.reaper = reaper;
        this.ownPid = calls.getpid();
    }

    /** A spawner with {@link SpawnerOptions#defaults()}. */
    public static Spawner start() {
        return start(SpawnerOptions.defaults());
    }

    /**
     * @throws NativePartUnavailableException when the shim is missing or not executable, or jnr-posix cannot load
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
        POSIX posix;
        try {
            posix = POSIXFactory.getNativePOSIX();
        } catch (RuntimeException | LinkageError e) {
            throw new NativePartUnavailableException("jnr-posix could not load libc: " + e, e);
        }
        boolean pidfds = pidfdsAvailable();
        Reaper reaper = pidfds && options.reapMode() == ReapMode.PIDFD_POLL ? new PidfdPollReaper() : new WaitpidBackoffReaper();
        reaper.start();
        return new Spawner(shim, posix, pidfds, reaper);
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
        return pidfds;
    }

    /** The shim binary this spawner starts children through. */
    public Path shim() {
        return shim;
    }

    /**
     * Starts a child and returns once it runs the requested command (its exec succeeded).
     *
     * @throws SpawnException when it could not be started; nothing of it is left
     * @throws IllegalStateException when this spawner is closed
     */
    public ChildProcess spawn(SpawnRequest request) {
        if (closed.get()) {
            throw new IllegalStateException("spawner closed: command=" + request.commandLine());
        }
        return SpawnThread.call(() -> spawnOnSpawnerThread(request));
    }

    private ChildProcess spawnOnSpawnerThread(SpawnRequest request) {
        String command = request.commandLine();
        int[] pipe = new int[2];
        if (calls.pipe2(pipe, Linux.O_CLOEXEC) != 0) {
            throw new SpawnException(command, Linux.errno(), "pipe2", null);
        }
        int readFd = pipe[0];
        int writeFd = pipe[1];
        try {
            if (writeFd == ShimProtocol.STATUS_FD) {
                // dup2(3, 3) would keep close-on-exec and the shim would lose its status fd: move it up.
                int moved = calls.fcntl(writeFd, Linux.F_DUPFD_CLOEXEC, ShimProtocol.STATUS_FD + 1);
                calls.close(writeFd);
                writeFd = moved;
                if (writeFd < 0) {
                    throw new SpawnException(command, Linux.errno(), "pipe2", "moving the status fd");
                }
            }
            long pid = posix.posix_spawnp(shim.toString(), fileActions(request, writeFd), shimArgv(request), environment(request));
            calls.close(writeFd);
            writeFd = -1;
            if (pid <= 0) {
                throw new SpawnException(command, SpawnException.UNKNOWN_ERRNO, "posix_spawn", "shim=" + shim
                        + " stdin=" + request.stdin() + " stdout=" + request.stdout() + " stderr=" + request.stderr()
                        + " (jnr-posix drops posix_spawnp's error code; a redirect file that cannot be opened fails here)");
            }
            return started((int) pid, MonotonicClock.nanos(), readFd, request);
        } finally {
            calls.close(readFd);
            if (writeFd >= 0) {
                calls.close(writeFd);
            }
        }
    }

    /** The shim runs: open its pidfd, learn from the status pipe whether the exec worked. */
    private ChildProcess started(int pid, long spawnedNanos, int readFd, SpawnRequest request) {
        String command = request.commandLine();
        int pidfd = -1;
        if (pidfds) {
            pidfd = (int) calls.syscall(Linux.SYS_PIDFD_OPEN, pid, 0);
            if (pidfd < 0) {
                int errno = Linux.errno();
                calls.kill(pid, SIGKILL); // unreaped, so the pid is still ours
                int shimStatus = waitForShim(pid);
                throw new SpawnException(command, errno, "pidfd_open", "pid=" + pid + " shim_status=" + shimStatus);
            }
        }
        int[] report = readReport(readFd);
        if (report != null) {
            int shimStatus = waitForShim(pid);
            if (pidfd >= 0) {
                calls.close(pidfd);
            }
            String detail = "pid=" + pid + " shim_exit=" + (shimStatus >> 8 & 0xff);
            if (report[0] == ShimProtocol.STAGE_CHDIR) {
                detail += " dir=" + request.workDir();
            }
            throw new SpawnException(command, report[1], ShimProtocol.stageName(report[0]), detail);
        }
        ChildProcess child = new ChildProcess(pid, pidfd, request.argv(), spawnedNanos);
        reaper.register(child);
        return child;
    }

    /** {stage, errno} when the shim reported a failure; null at end of file (the exec succeeded). */
    private int[] readReport(int readFd) {
        byte[] buffer = new byte[ShimProtocol.REPORT_LENGTH];
        byte[] chunk = new byte[ShimProtocol.REPORT_LENGTH];
        int filled = 0;
        while (filled < buffer.length) {
            long n = calls.read(readFd, chunk, buffer.length - filled);
            if (n < 0) {
                if (Linux.errno() == Linux.EINTR) {
                    continue;
                }
                return new int[] {ShimProtocol.STAGE_USAGE, Linux.errno()};
            }
            if (n == 0) {
                break;
            }
            System.arraycopy(chunk, 0, buffer, filled, (int) n);
            filled += (int) n;
        }
        if (filled == 0) {
            return null;
        }
        ByteBuffer words = ByteBuffer.wrap(buffer).order(ByteOrder.nativeOrder());
        return filled == buffer.length ? new int[] {words.getInt(0), words.getInt(4)} : new int[] {ShimProtocol.STAGE_USAGE, 0};
    }

    /** Reaps a shim that reported a failure (it exits right after). Blocking, for that pid only. */
    private int waitForShim(int pid) {
        int[] status = new int[1];
        while (calls.waitpid(pid, status, 0) != pid) {
            int errno = Linux.errno();
            if (errno != Linux.EINTR) {
                throw new IllegalStateException("waitpid of a failed shim failed: pid=" + pid + " errno=" + Linux.describeErrno(errno));
            }
        }
        return status[0];
    }

    private List<SpawnFileAction> fileActions(SpawnRequest request, int statusWriteFd) {
        List<SpawnFileAction> actions = new ArrayList<>(4);
        redirect(actions, 0, request.stdin());
        redirect(actions, 1, request.stdout());
        redirect(actions, 2, request.stderr());
        actions.add(SpawnFileAction.dup(statusWriteFd, ShimProtocol.STATUS_FD));
        return actions;
    }

    private static void redirect(List<SpawnFileAction> actions, int fd, Redirect redirect) {
        switch (redirect.kind()) {
            case INHERIT:
                return;
            case DISCARD:
                actions.add(SpawnFileAction.open("/dev/null", fd, fd == 0 ? Linux.O_RDONLY : Linux.O_WRONLY, 0));
                return;
            case READ:
                actions.add(SpawnFileAction.open(redirect.file().toString(), fd, Linux.O_RDONLY, 0));
                return;
            case WRITE:
                actions.add(SpawnFileAction.open(redirect.file().toString(), fd, Linux.O_WRONLY | Linux.O_CREAT | Linux.O_TRUNC, FILE_MODE));
                return;
            case APPEND:
                actions.add(SpawnFileAction.open(redirect.file().toString(), fd, Linux.O_WRONLY | Linux.O_CREAT | Linux.O_APPEND, FILE_MODE));
                return;
            default:
                throw new IllegalArgumentException("redirect kind=" + redirect.kind());
        }
    }

    private List<String> shimArgv(SpawnRequest request) {
        List<String> argv = new ArrayList<>(request.argv().size() + 6);
        argv.add(shim.toString());
        argv.add(Integer.toString(ownPid));
        argv.add(Integer.toString(ShimProtocol.STATUS_FD));
        if (request.workDir() != null) {
            argv.add("--cwd");
            argv.add(request.workDir().toString());
        }
        argv.add("--");
        argv.addAll(request.argv());
        return argv;
    }

    private static List<String> environment(SpawnRequest request) {
        Map<String, String> env = request.environment() == null ? System.getenv() : request.environment();
        List<String> entries = new ArrayList<>(env.size());
        env.forEach((name, value) -> entries.add(name + "=" + value));
        return entries;
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
        for (ChildProcess child : left) {
            try {
                child.signalProcessGroup(SIGKILL);
            } catch (SignalException alreadyReaped) {
                // Expected race: it exited and was reaped between liveChildren() and here.
                if (!child.isReaped()) {
                    throw alreadyReaped;
                }
            }
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
            throw new IllegalStateException("spawner closed with children it could not reap after SIGKILL: " + unreaped);
        }
    }
}
