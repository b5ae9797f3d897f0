package dev.vigil.spawn;

import static dev.vigil.close.decision.EscalationStep.SIGKILL;

import dev.vigil.journal.MonotonicClock;
import dev.vigil.spawn.internal.Linux;
import dev.vigil.spawn.internal.LinuxCalls;
import dev.vigil.spawn.internal.ShimProtocol;
import dev.vigil.spawn.internal.SpawnCalls;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;

/**
 * One spawn in two steps: {@link #fork} on a spawner thread (status pipe, posix_spawnp of the shim with the
 * redirections, pidfd), then {@link #verdict} on the waiting thread (the shim's report from the pipe: end of file =
 * exec succeeded). A child that fails on the way is reaped here and comes back as a {@link SpawnException}; nothing
 * is left behind.
 */
final class ShimLauncher {
    private static final int FILE_MODE = 0644;

    private final Path shim;
    private final boolean pidfds;
    private final LinuxCalls calls = Linux.calls();
    private final int ownPid;

    /** libvigil-spawn next to the shim, or null: posix_spawnp then (a child copies the whole descriptor table). */
    private final SpawnCalls spawnCalls;

    ShimLauncher(Path shim, boolean pidfds) {
        this.shim = shim;
        this.pidfds = pidfds;
        this.ownPid = calls.getpid();
        this.spawnCalls = SpawnCalls.in(shim.getParent());
    }

    /** Whether the shim is started with libvigil-spawn (a child keeps copies of the few lowest descriptors only). */
    boolean spawnsWithSmallTables() {
        return spawnCalls != null;
    }

    Path shim() {
        return shim;
    }

    boolean usesPidfds() {
        return pidfds;
    }

    /**
     * A shim that runs (posix_spawnp returned, its pidfd is open) and whose verdict (exec or failure report) is still
     * in its status pipe: {@link #verdict} must follow, on any thread, or the child is watched by nobody.
     */
    record Forked(SpawnRequest request, int pid, int pidfd, long spawnedNanos, int statusReadFd, FileOutputStream ring) {
    }

    /**
     * Spawner thread only (PDEATHSIG names this thread): the status pipe, posix_spawnp of the shim (it returns once the
     * shim runs), the pidfd. Does not wait for the shim's exec: {@link #verdict} reads that, so the spawner thread
     * starts the next child meanwhile.
     */
    Forked fork(SpawnRequest request) {
        String command = request.commandLine();
        int[] pipe = new int[2];
        if (calls.pipe2(pipe, Linux.O_CLOEXEC) != 0) {
            throw new SpawnException(command, Linux.errno(), "pipe2", null);
        }
        int readFd = pipe[0];
        int writeFd = pipe[1];
        int[] doorbell = {-1, -1};
        boolean handedOver = false;
        try {
            if (request.doorbellPipe()) {
                doorbell = doorbellPipe(command);
            }
            if (writeFd == ShimProtocol.STATUS_FD) {
                // dup2(3, 3) would keep close-on-exec and the shim would lose its status fd: move it up.
                int moved = calls.fcntl(writeFd, Linux.F_DUPFD_CLOEXEC, ShimProtocol.STATUS_FD + 1);
                calls.close(writeFd);
                writeFd = moved;
                if (writeFd < 0) {
                    throw new SpawnException(command, Linux.errno(), "pipe2", "moving the status fd");
                }
            }
            int[] spawned = {-1};
            int error = spawn(request, writeFd, doorbell[0], spawned);
            calls.close(writeFd);
            writeFd = -1;
            if (error != 0) {
                throw new SpawnException(command, error, "posix_spawn", error == ExecLimits.E2BIG
                        ? ExecLimits.describe(request.argv(), request.environment())
                        : "shim=" + shim + redirectFiles(request));
            }
            long pid = spawned[0];
            long spawnedNanos = MonotonicClock.nanos();
            // Reopened while our read end still counts as a reader (an open for writing would wait for one).
            FileOutputStream ring = doorbell[1] < 0 ? null : openDoorbell(doorbell[1]);
            int pidfd = -1;
            if (pidfds) {
                pidfd = (int) calls.syscall(Linux.SYS_PIDFD_OPEN, pid, 0);
                if (pidfd < 0) {
                    int errno = Linux.errno();
                    closeQuietly(ring);
                    killAndReap((int) pid, -1);
                    throw new SpawnException(command, errno, "pidfd_open", "pid=" + pid);
                }
            }
            handedOver = true;
            return new Forked(request, (int) pid, pidfd, spawnedNanos, readFd, ring);
        } finally {
            if (!handedOver) {
                calls.close(readFd);
            }
            if (writeFd >= 0) {
                calls.close(writeFd);
            }
            for (int fd : doorbell) {
                if (fd >= 0) {
                    calls.close(fd);
                }
            }
        }
    }

    /**
     * Any thread, once per {@link Forked}: learns from the status pipe whether the exec worked (end of file) and
     * returns the child; on a failure report (or an unreadable pipe) the shim is reaped here and nothing is left.
     * The caller hands the child to the reaper.
     */
    ChildProcess verdict(Forked forked) {
        SpawnRequest request = forked.request();
        String command = request.commandLine();
        int pid = forked.pid();
        int pidfd = forked.pidfd();
        FileOutputStream ring = forked.ring();
        int[] report;
        try {
            report = readReport(forked.statusReadFd(), command);
        } catch (SpawnException unreadable) {
            // We cannot tell whether the exec happened: do not leave a child nobody knows of.
            closeQuietly(ring);
            killAndReap(pid, pidfd);
            throw unreadable;
        } finally {
            calls.close(forked.statusReadFd());
        }
        if (report != null) {
            int shimStatus = waitForShim(pid);
            if (pidfd >= 0) {
                calls.close(pidfd);
            }
            String detail = "pid=" + pid + " shim_exit=" + (shimStatus >> 8 & 0xff);
            if (report[0] == ShimProtocol.STAGE_CHDIR) {
                detail += " dir=" + request.workDir();
            }
            if (report[0] == ShimProtocol.STAGE_LOG) {
                detail += " log=" + request.log().stdout() + "," + request.log().stderr();
            }
            if (report[0] == ShimProtocol.STAGE_CGROUP) {
                detail += " cgroup=" + request.cgroup();
            }
            closeQuietly(ring);
            throw new SpawnException(command, report[1], ShimProtocol.stageName(report[0]), detail);
        }
        return new ChildProcess(pid, pidfd, request.argv(), forked.spawnedNanos(), ring);
    }

    /** {read, write}, both close-on-exec, the read end moved above the descriptors the file actions write (3, 4). */
    private int[] doorbellPipe(String command) {
        int[] fds = new int[2];
        if (calls.pipe2(fds, Linux.O_CLOEXEC) != 0) {
            throw new SpawnException(command, Linux.errno(), "pipe2", "doorbell pipe");
        }
        int moved = calls.fcntl(fds[0], Linux.F_DUPFD_CLOEXEC, ShimProtocol.DOORBELL_FD + 1);
        int errno = Linux.errno();
        calls.close(fds[0]);
        if (moved < 0) {
            calls.close(fds[1]);
            throw new SpawnException(command, errno, "pipe2", "moving the doorbell fd");
        }
        return new int[] {moved, fds[1]};
    }

    /**
     * The write end as a stream of its own (a fresh open of the pipe through /proc/self/fd): Java then owns its
     * descriptor, so a ring after the child's reap can never write into a reused descriptor number. Not an
     * interruptible channel: an interrupted ringing thread must not close it.
     */
    private static FileOutputStream openDoorbell(int writeFd) {
        try {
            return new FileOutputStream("/proc/self/fd/" + writeFd);
        } catch (IOException e) {
            throw new SpawnException("doorbell", SpawnException.UNKNOWN_ERRNO, "doorbell-open", "reopening the doorbell pipe failed: " + e.getMessage());
        }
    }

    private static void closeQuietly(FileOutputStream ring) {
        if (ring != null) {
            try {
                ring.close();
            } catch (IOException ignored) {
                // nothing was written through it
            }
        }
    }

    /** A child we will not hand out: SIGKILL (its pid is still ours, it is unreaped), reap, close its pidfd. */
    private void killAndReap(int pid, int pidfd) {
        calls.kill(pid, SIGKILL);
        waitForShim(pid);
        if (pidfd >= 0) {
            calls.close(pidfd);
        }
    }

    /** {stage, errno} when the shim reported a failure; null at end of file (the exec succeeded). */
    private int[] readReport(int readFd, String command) {
        byte[] buffer = new byte[ShimProtocol.REPORT_LENGTH];
        byte[] chunk = new byte[ShimProtocol.REPORT_LENGTH];
        int filled = 0;
        while (filled < buffer.length) {
            long n = calls.read(readFd, chunk, buffer.length - filled);
            if (n < 0) {
                int errno = Linux.errno();
                if (errno == Linux.EINTR) {
                    continue;
                }
                throw new SpawnException(command, errno, "status-pipe", "reading the shim's report failed");
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
        // 8 bytes are below PIPE_BUF: the shim's one write arrives whole or not at all.
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

    /**
     * posix_spawnp of the shim with the request's redirections and the status (and doorbell) pipe on their fixed
     * descriptors: 0 with the pid in {@code pid[0]}, or the error number of the step that failed.
     */
    private int spawn(SpawnRequest request, int statusWriteFd, int doorbellReadFd, int[] pid) {
        if (spawnCalls != null) {
            int[] slots = Slots.ofThisThread();
            if (slots != null) {
                return spawnKeepingSlots(request, statusWriteFd, doorbellReadFd, pid, slots);
            }
        }
        Pointer actions = Memory.allocateDirect(Linux.runtime(), Linux.POSIX_SPAWN_FILE_ACTIONS_SIZE);
        int error = calls.posix_spawn_file_actions_init(actions);
        if (error != 0) {
            return error;
        }
        try {
            for (Open o : opens(request)) {
                error = error != 0 ? error : calls.posix_spawn_file_actions_addopen(actions, o.fd(), o.path(), o.flags(),
                        FILE_MODE);
            }
            error = error != 0 ? error : calls.posix_spawn_file_actions_adddup2(actions, statusWriteFd, ShimProtocol.STATUS_FD);
            if (error == 0 && doorbellReadFd >= 0) {
                error = calls.posix_spawn_file_actions_adddup2(actions, doorbellReadFd, ShimProtocol.DOORBELL_FD);
            }
            return error != 0 ? error : calls.posix_spawnp(pid, shim.toString(), actions, null,
                    shimArgv(request).toArray(new CharSequence[0]), environment(request));
        } finally {
            calls.posix_spawn_file_actions_destroy(actions);
        }
    }

    /** An open the child makes before its exec: {@code path} with {@code flags} as descriptor {@code fd}. */
    private record Open(int fd, String path, int flags) {
    }

    /** The opens that make 0, 1 and 2 the request's redirect files (none for INHERIT, 1 and 2 none with a log). */
    private static List<Open> opens(SpawnRequest request) {
        List<Open> out = new ArrayList<>(3);
        addOpen(out, 0, request.stdin());
        if (request.log() == null) { // with a log the shim makes 1 and 2 its log writer's pipes
            addOpen(out, 1, request.stdout());
            addOpen(out, 2, request.stderr());
        }
        return out;
    }

    private static void addOpen(List<Open> out, int fd, Redirect redirect) {
        switch (redirect.kind()) {
            case INHERIT -> {
            }
            case DISCARD -> out.add(new Open(fd, "/dev/null", fd == 0 ? Linux.O_RDONLY : Linux.O_WRONLY));
            case READ -> out.add(new Open(fd, redirect.file().toString(), Linux.O_RDONLY));
            case WRITE -> out.add(new Open(fd, redirect.file().toString(), Linux.O_WRONLY | Linux.O_CREAT | Linux.O_TRUNC));
            case APPEND -> out.add(new Open(fd, redirect.file().toString(), Linux.O_WRONLY | Linux.O_CREAT | Linux.O_APPEND));
        }
    }

    /**
     * {@link #spawn} through libvigil-spawn: the status (and doorbell) pipe ends are put in this thread's slots, low
     * descriptors reserved early, and the child keeps copies of the descriptors up to its slots only; the slots get
     * their placeholder back afterwards (the pipe ends must not stay open here).
     */
    private int spawnKeepingSlots(SpawnRequest request, int statusWriteFd, int doorbellReadFd, int[] pid, int[] slots) {
        try {
            if (calls.dup3(statusWriteFd, slots[0], Linux.O_CLOEXEC) < 0
                    || doorbellReadFd >= 0 && calls.dup3(doorbellReadFd, slots[1], Linux.O_CLOEXEC) < 0) {
                return Linux.errno();
            }
            List<Open> opens = opens(request);
            int n = opens.size();
            int[] openFd = new int[n];
            CharSequence[] openPath = new CharSequence[n];
            int[] openFlags = new int[n];
            int[] openMode = new int[n];
            for (int i = 0; i < n; i++) {
                openFd[i] = opens.get(i).fd();
                openPath[i] = opens.get(i).path();
                openFlags[i] = opens.get(i).flags();
                openMode[i] = FILE_MODE;
            }
            int[] dupFrom = doorbellReadFd >= 0 ? new int[] {slots[0], slots[1]} : new int[] {slots[0]};
            int[] dupTo = doorbellReadFd >= 0 ? new int[] {ShimProtocol.STATUS_FD, ShimProtocol.DOORBELL_FD}
                    : new int[] {ShimProtocol.STATUS_FD};
            return spawnCalls.vigil_spawn(pid, shim.toString(), shimArgv(request).toArray(new CharSequence[0]),
                    environment(request), slots[1] + 1, openFd, openPath, openFlags, openMode, n, dupFrom, dupTo,
                    dupFrom.length);
        } finally {
            Slots.release(slots);
        }
    }

    /**
     * Two low descriptors per spawning thread (status pipe, doorbell pipe), close-on-exec copies of /dev/null, put
     * back so after each spawn: reserved for each spawner thread as they start ({@link SpawnThread}, at the first spawn,
     * while the table is small), else at a thread's first spawn. Null when none could be reserved below {@link #MOST}:
     * posix_spawnp then.
     */
    static final class Slots {
        /** Past this a slot saves too little: the child would copy that many descriptors anyway. */
        static final int MOST = 1024;
        private static final int PLACEHOLDER = Linux.calls().open("/dev/null", Linux.O_RDONLY | Linux.O_CLOEXEC, 0);
        private static final ThreadLocal<int[]> OF_THREAD = ThreadLocal.withInitial(Slots::reserve);

        private Slots() {
        }

        static int[] ofThisThread() {
            return OF_THREAD.get();
        }

        /** Makes {@code slots} (from {@link #reserve}) this thread's. */
        static void adopt(int[] slots) {
            OF_THREAD.set(slots);
        }

        static int[] reserve() {
            if (PLACEHOLDER < 0) {
                return null;
            }
            LinuxCalls calls = Linux.calls();
            // above DOORBELL_FD: a slot must never be a descriptor the child dup2s onto
            int status = calls.fcntl(PLACEHOLDER, Linux.F_DUPFD_CLOEXEC, ShimProtocol.DOORBELL_FD + 1);
            int doorbell = status < 0 ? -1 : calls.fcntl(PLACEHOLDER, Linux.F_DUPFD_CLOEXEC, status + 1);
            if (doorbell >= 0 && doorbell < MOST) {
                return new int[] {status, doorbell};
            }
            for (int fd : new int[] {status, doorbell}) {
                if (fd >= 0) {
                    calls.close(fd);
                }
            }
            return null;
        }

        static void release(int[] slots) {
            for (int fd : slots) {
                Linux.calls().dup3(PLACEHOLDER, fd, Linux.O_CLOEXEC);
            }
        }
    }

    private List<String> shimArgv(SpawnRequest request) {
        List<String> argv = new ArrayList<>(request.argv().size() + 6);
        argv.add(shim.toString());
        argv.add(Integer.toString(ownPid));
        argv.add(Integer.toString(ShimProtocol.STATUS_FD));
        if (request.outlivesParent()) {
            argv.add("--outlive-parent");
        }
        if (request.cgroup() != null) {
            argv.add("--cgroup");
            argv.add(request.cgroup().toString());
        }
        if (request.workDir() != null) {
            argv.add("--cwd");
            argv.add(request.workDir().toString());
        }
        if (request.doorbellPipe()) {
            argv.add("--keep-fd");
            argv.add(Integer.toString(ShimProtocol.DOORBELL_FD));
        }
        ChildLog log = request.log();
        if (log != null) {
            argv.add("--log");
            argv.add(log.stdout().toString());
            argv.add(log.stderr().toString());
            argv.add(Long.toString(log.maxBytes()));
            argv.add(Integer.toString(log.keep()));
        }
        argv.add("--");
        argv.addAll(request.argv());
        return argv;
    }

    private static CharSequence[] environment(SpawnRequest request) {
        Map<String, String> env = request.environment() == null ? System.getenv() : request.environment();
        List<String> entries = new ArrayList<>(env.size());
        env.forEach((name, value) -> entries.add(name + "=" + value));
        return entries.toArray(new CharSequence[0]);
    }

    /** The redirects that name files (a file that cannot be opened fails posix_spawn), or nothing. */
    private static String redirectFiles(SpawnRequest request) {
        StringBuilder sb = new StringBuilder();
        Redirect[] r = {request.stdin(), request.stdout(), request.stderr()};
        String[] names = {"stdin", "stdout", "stderr"};
        for (int i = 0; i < r.length; i++) {
            if (r[i] != null && r[i].file() != null) {
                sb.append(' ').append(names[i]).append('=').append(r[i].file());
            }
        }
        return sb.length() == 0 ? "" : sb.append(" (a redirect file that cannot be opened fails here)").toString();
    }
}
