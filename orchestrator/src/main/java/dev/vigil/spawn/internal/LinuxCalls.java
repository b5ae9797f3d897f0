package dev.vigil.spawn.internal;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.annotations.SaveError;

/**
 * The libc calls the spawner and the reapers need, bound through jnr-ffi (one small binding, made on the preload
 * thread: jnr-posix's would generate its whole libc interface on the way to the first child).
 * Every call saves errno; read it with {@link Linux#errno()} right after a failing call on the
 * same thread. Syscall arguments are passed as {@code long} so no register carries stale upper bits.
 */
@SaveError
public interface LinuxCalls {
    /** {@code syscall(number, a1, a2)}, e.g. pidfd_open(pid, flags). */
    long syscall(long number, long arg1, long arg2);

    /** {@code syscall(number, a1, a2, a3, a4)}, e.g. pidfd_send_signal(pidfd, sig, info, flags). */
    long syscall(long number, long arg1, long arg2, Pointer arg3, long arg4);

    int poll(Pointer fds, long nfds, int timeoutMillis);

    int eventfd(int initialValue, int flags);

    int epoll_create1(int flags);

    /** {@code event}: one struct epoll_event ({@link Linux#EPOLL_EVENT_SIZE}); null for EPOLL_CTL_DEL. */
    int epoll_ctl(int epfd, int op, int fd, Pointer event);

    int epoll_wait(int epfd, Pointer events, int maxEvents, int timeoutMillis);

    long read(int fd, @Out byte[] buffer, long count);

    long write(int fd, byte[] buffer, long count);

    int close(int fd);

    int pipe2(@Out int[] fds, int flags);

    int fcntl(int fd, int command, int argument);

    int dup3(int oldFd, int newFd, int flags);

    int open(CharSequence path, int flags, int mode);

    int kill(int pid, int signal);

    int waitpid(int pid, @Out int[] status, int options);

    /** {@code waitid(idtype, id, infop, options)}: {@code info} is a siginfo_t ({@link WaitStatus#SIGINFO_INTS} ints). */
    int waitid(int idtype, int id, @Out int[] info, int options);

    int getpid();

    /**
     * {@code posix_spawnp(3)}: 0 with the child's pid in {@code pid[0]}, or the error number (returned, not in errno).
     * {@code argv} and {@code envp} go as NULL-terminated arrays; {@code attributes} may be null.
     */
    int posix_spawnp(@Out int[] pid, String file, Pointer fileActions, Pointer attributes, CharSequence[] argv,
            CharSequence[] envp);

    /** 0, or the error number. */
    int posix_spawn_file_actions_init(Pointer fileActions);

    int posix_spawn_file_actions_destroy(Pointer fileActions);

    /** 0, or the error number. */
    int posix_spawn_file_actions_addopen(Pointer fileActions, int fd, String path, int flags, int mode);

    /** 0, or the error number. */
    int posix_spawn_file_actions_adddup2(Pointer fileActions, int fd, int newFd);

    /** {@code struct rlimit} as {soft, hard}: 0, or -1 with errno. */
    int getrlimit(int resource, @Out long[] limits);

    int setrlimit(int resource, @In long[] limits);

    /** Allocates the file's blocks for {@code [offset, offset + length)}: 0, or -1 with errno (ENOSPC on a full disk). */
    int fallocate(int fd, int mode, long offset, long length);

    /** Writes back the mapped pages at {@code address} (page-aligned) for {@code length} bytes: 0, or -1 with errno. */
    int msync(long address, long length, int flags);
}
