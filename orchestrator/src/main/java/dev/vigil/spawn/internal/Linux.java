package dev.vigil.spawn.internal;

import jnr.constants.platform.Errno;
import jnr.ffi.LastError;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

/** The loaded {@link LinuxCalls}, errno access, and the Linux constants they are called with. */
public final class Linux {
    public static final long SYS_PIDFD_SEND_SIGNAL = 424;
    public static final long SYS_PIDFD_OPEN = 434;

    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_CREAT = 0100;
    public static final int O_TRUNC = 01000;
    public static final int O_APPEND = 02000;
    public static final int O_CLOEXEC = 02000000;
    public static final int EFD_NONBLOCK = 04000;
    public static final int EFD_CLOEXEC = 02000000;
    public static final int F_DUPFD_CLOEXEC = 1030;

    public static final short POLLIN = 0x001;
    /** struct pollfd { int fd; short events; short revents; }: 8 bytes on every Linux ABI. */
    public static final int POLLFD_SIZE = 8;
    public static final int POLLFD_EVENTS_OFFSET = 4;
    public static final int POLLFD_REVENTS_OFFSET = 6;

    public static final int EPOLL_CLOEXEC = 02000000;
    public static final int EPOLL_CTL_ADD = 1;
    public static final int EPOLL_CTL_DEL = 2;
    public static final int EPOLLIN = 0x001;
    /**
     * struct epoll_event { uint32_t events; epoll_data_t data; }: packed on x86-64 (12 bytes, data at 4), naturally
     * aligned elsewhere (16 bytes, data at 8).
     */
    public static final int EPOLL_EVENT_SIZE = java.util.Set.of("amd64", "x86_64").contains(System.getProperty("os.arch")) ? 12 : 16;
    public static final int EPOLL_EVENT_DATA_OFFSET = EPOLL_EVENT_SIZE == 12 ? 4 : 8;

    public static final int WNOHANG = 1;
    /** waitid(2): wait for exited children; leave the child waitable (a peek); the id is a pid. */
    public static final int WEXITED = 4;
    public static final int WNOWAIT = 0x01000000;
    public static final int P_PID = 1;

    public static final int RLIMIT_NOFILE = 7;
    /** sizeof(posix_spawn_file_actions_t): 80 bytes in glibc on every 64-bit ABI (jnr-posix allocates the same). */
    public static final int POSIX_SPAWN_FILE_ACTIONS_SIZE = 80;

    public static final int EINTR = 4;
    public static final int ESRCH = 3;
    public static final int ECHILD = 10;
    public static final int ENOSYS = 38;

    private static final LinuxCalls CALLS = LibraryLoader.create(LinuxCalls.class).load("c");
    private static final Runtime RUNTIME = Runtime.getRuntime(CALLS);

    private Linux() {
    }

    public static LinuxCalls calls() {
        return CALLS;
    }

    public static Runtime runtime() {
        return RUNTIME;
    }

    /** errno of the last failing {@link LinuxCalls} call on this thread. */
    public static int errno() {
        return LastError.getLastError(RUNTIME);
    }

    /** {@code 2 (No such file or directory)}: the number and libc's words for it. */
    public static String describeErrno(int errno) {
        Errno known = Errno.valueOf(errno);
        String text = known == null || !known.defined() ? "unknown error" : known.description();
        return errno + " (" + text + ")";
    }
}
