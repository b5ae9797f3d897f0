/*
 * vigil-spawn-shim: the first program every Vigil child runs. posix_spawn starts it from the
 * orchestrator's spawner thread; it prepares the process and execs the real command.
 *
 *   vigil-spawn-shim <parent-pid> <status-fd> [--outlive-parent] [--cgroup <dir>] [--cwd <dir>] [--keep-fd <fd>]
 *                    [--log <stdout-file> <stderr-file> <max-bytes> <keep>] -- <command> [args...]
 *
 * 1. prctl(PR_SET_PDEATHSIG, SIGKILL): the child dies with the spawner thread (so with the JVM).
 * 2. getppid() == <parent-pid>, else exit VIGIL_SHIM_EXIT_PARENT_GONE: the parent may have died
 *    between posix_spawn and step 1, in which case the signal is never coming.
 *    With --outlive-parent neither 1 nor 2: a child of a pool whose close policy is leak may outlive
 *    the orchestrator's normal exit (kept, to be reaped later); a crash still ends it through the
 *    guardian, which kills the pool's cgroup or process group.
 * 2a. with --log: the child's stdout and stderr go to its own log files through a log writer: the
 *    shim opens both files (O_APPEND), makes two pipes and double-forks the writer (its own session,
 *    outside the pool's cgroup and process group, reparented to init), which copies each pipe into
 *    its file, rotating it at <max-bytes> (file -> file.1 -> ... -> file.<keep>; keep 0 truncates),
 *    and exits at end of file on both (the child and everything it forked have closed them). The
 *    pipes' write ends become the child's 1 and 2. No orchestrator thread is in the path; a child
 *    writing faster than the disk takes it waits on its own pipe, nothing else does.
 * 2b. with --cgroup: write "0" to <dir>/cgroup.procs: the shim joins its pool's cgroup (v2) before
 *    it execs, so everything the child ever forks (double fork, setsid, daemons) is inside it.
 * 3. setpgid(0, 0): the child leads its own process group, so close can signal the whole group.
 * 4. optional chdir (posix_spawn has no portable chdir file action).
 * 5. every descriptor except 0, 1, 2, the status fd and the --keep-fd one (above the status fd: a Java
 *    child's doorbell pipe) is closed (the JVM leaks plenty).
 * 6. the signal mask and dispositions are reset: posix_spawn inherits the JVM thread's blocked
 *    set (HotSpot blocks SIGQUIT) and ignored signals survive exec.
 * 7. execvp. On failure the errno goes to the status pipe and the shim exits 127.
 * Protocol details (report layout, exit codes) are in shim_protocol.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim_protocol.h"

static int status_fd = -1;

static void report(int32_t stage, int32_t err)
{
    if (status_fd < 0) {
        return;
    }
    int32_t words[2] = { stage, err };
    const char *p = (const char *)words;
    size_t left = sizeof words;
    while (left > 0) {
        ssize_t n = write(status_fd, p, left);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return;
        }
        p += n;
        left -= (size_t)n;
    }
}

static _Noreturn void fail(int32_t stage, int32_t err, int exit_code)
{
    report(stage, err);
    _exit(exit_code);
}

static int parse_int(const char *text, long *out)
{
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < 0 || value > INT_MAX) {
        return -1;
    }
    *out = value;
    return 0;
}

/* Closes [from, to] inclusive, via close_range where the kernel has it, else /proc/self/fd. */
static int close_between(unsigned int from, unsigned int to)
{
    if (from > to) {
        return 0;
    }
    if (close_range(from, to, 0) == 0) {
        return 0;
    }
    if (errno != ENOSYS && errno != EINVAL) {
        return -1;
    }
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL) {
        return -1;
    }
    int own = dirfd(dir);
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        long fd;
        if (parse_int(entry->d_name, &fd) != 0 || fd == own) {
            continue;
        }
        if ((unsigned long)fd >= from && (unsigned long)fd <= to) {
            close((int)fd);
        }
    }
    closedir(dir);
    return 0;
}

/* Moves this process into the cgroup (v2) directory <dir>: "0" written to its cgroup.procs. */
static int join_cgroup(const char *dir)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    if (n < 0 || (size_t)n >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    ssize_t written = write(fd, "0", 1);
    int saved = errno;
    close(fd);
    if (written != 1) {
        errno = written < 0 ? saved : EIO;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ the log writer (--log) */

struct log_file {
    const char *path;
    int fd;
    long long size;
};

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int open_log(struct log_file *f)
{
    f->fd = open(f->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (f->fd < 0) {
        return -1;
    }
    struct stat st;
    f->size = fstat(f->fd, &st) == 0 ? (long long)st.st_size : 0;
    return 0;
}

/* file.<keep-1> -> file.<keep>, ..., file -> file.1, a new empty file; keep 0: the file is truncated. */
static void rotate(struct log_file *f, long keep)
{
    char from[PATH_MAX];
    char to[PATH_MAX];
    if (keep > 0) {
        for (long i = keep - 1; i >= 1; i--) {
            snprintf(from, sizeof from, "%s.%ld", f->path, i);
            snprintf(to, sizeof to, "%s.%ld", f->path, i + 1);
            rename(from, to); /* ENOENT: not that many yet */
        }
        snprintf(to, sizeof to, "%s.1", f->path);
        if (rename(f->path, to) == 0) {
            int fd = open(f->path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC, 0644);
            if (fd >= 0) {
                close(f->fd);
                f->fd = fd;
                f->size = 0;
                return;
            }
        }
    }
    /* keep 0, or the rename/reopen failed: start the open file over, the cap holds either way */
    if (ftruncate(f->fd, 0) != 0) {
        /* nothing better to do: the next writes still append to it */
    }
    f->size = 0;
}

static void log_write(struct log_file *f, const char *p, size_t n, long long max, long keep)
{
    while (n > 0) {
        if (f->size >= max) {
            rotate(f, keep);
        }
        size_t room = (size_t)(max - f->size);
        size_t take = n < room ? n : room;
        if (write_all(f->fd, p, take) != 0) {
            return; /* a full disk: drop this chunk, keep draining the pipe so the child never blocks on us */
        }
        f->size += (long long)take;
        p += take;
        n -= take;
    }
}

/* Closes every descriptor but the four the writer uses. */
static void keep_only(int a, int b, int c, int d)
{
    int keep[4] = { a, b, c, d };
    for (int i = 1; i < 4; i++) { /* insertion sort */
        for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
            int t = keep[j];
            keep[j] = keep[j - 1];
            keep[j - 1] = t;
        }
    }
    unsigned int from = 0;
    for (int i = 0; i < 4; i++) {
        if ((unsigned int)keep[i] > from) {
            close_between(from, (unsigned int)keep[i] - 1);
        }
        from = (unsigned int)keep[i] + 1;
    }
    close_between(from, ~0U);
}

static _Noreturn void log_writer(int out_r, int err_r, struct log_file *out, struct log_file *err, long long max,
        long keep)
{
    status_fd = -1;
    keep_only(out_r, err_r, out->fd, err->fd); /* the status pipe, the orchestrator's stdout/stderr: not ours */
    setsid(); /* no terminal's Ctrl-C, no process group of the pool */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int ignored[] = { SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU };
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) {
        signal(ignored[i], SIG_IGN);
    }
    static char buffer[65536];
    struct pollfd fds[2] = { { out_r, POLLIN, 0 }, { err_r, POLLIN, 0 } };
    struct log_file *files[2] = { out, err };
    int open_pipes = 2;
    while (open_pipes > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            _exit(1);
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || fds[i].revents == 0) {
                continue;
            }
            ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_pipes--;
                continue;
            }
            log_write(files[i], buffer, (size_t)n, max, keep);
        }
    }
    _exit(0);
}

/* Makes descriptor `fd` (close-on-exec) descriptor `target` (kept across exec); closes `fd`. */
static int move_to(int fd, int target)
{
    if (fd == target) {
        return fcntl(fd, F_SETFD, 0);
    }
    if (dup2(fd, target) < 0) {
        return -1;
    }
    close(fd);
    return 0;
}

/* --log: opens the files, starts the writer (double fork), makes the pipes the child's 1 and 2. */
static int start_log_writer(struct log_file *out, struct log_file *err, long long max, long keep)
{
    if (open_log(out) != 0 || open_log(err) != 0) {
        return -1;
    }
    int po[2];
    int pe[2];
    if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
        return -1;
    }
    pid_t middle = fork();
    if (middle < 0) {
        return -1;
    }
    if (middle == 0) {
        pid_t writer = fork();
        if (writer != 0) {
            _exit(writer < 0 ? 1 : 0); /* the writer is orphaned at once: init reaps it, not the child */
        }
        close(po[1]);
        close(pe[1]);
        log_writer(po[0], pe[0], out, err, max, keep);
    }
    int status = 0;
    while (waitpid(middle, &status, 0) < 0) {
        if (errno != EINTR) {
            return -1;
        }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        errno = EAGAIN;
        return -1;
    }
    close(po[0]);
    close(pe[0]);
    close(out->fd);
    close(err->fd);
    if (move_to(po[1], 1) != 0 || move_to(pe[1], 2) != 0) {
        return -1;
    }
    return 0;
}

static int reset_signals(void)
{
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) != 0) {
        return -1;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP) {
            continue;
        }
        if (sigaction(sig, &dfl, NULL) == 0) {
            continue;
        }
        if (errno != EINVAL) {
            return -1;
        }
        /* glibc refuses the signals it reserves (32, 33), but they can arrive ignored from our
         * own parent; the raw syscall resets them (an all-zero kernel sigaction is SIG_DFL). */
        unsigned long zero[4] = { 0, 0, 0, 0 };
        if (syscall(SYS_rt_sigaction, sig, zero, NULL, sizeof(unsigned long)) != 0) {
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    long parent_pid;
    long fd;
    if (argc < 5 || parse_int(argv[1], &parent_pid) != 0 || parse_int(argv[2], &fd) != 0) {
        fail(VIGIL_SHIM_STAGE_USAGE, EINVAL, VIGIL_SHIM_EXIT_SETUP_FAILED);
    }
    status_fd = (int)fd;
    if (fcntl(status_fd, F_SETFD, FD_CLOEXEC) != 0) {
        status_fd = -1;
        fail(VIGIL_SHIM_STAGE_USAGE, EBADF, VIGIL_SHIM_EXIT_SETUP_FAILED);
    }
    const char *cwd = NULL;
    const char *cgroup = NULL;
    int at = 3;
    int outlive_parent = 0;
    if (strcmp(argv[at], "--outlive-parent") == 0) {
        outlive_parent = 1;
        at += 1;
    }
    if (at < argc && strcmp(argv[at], "--cgroup") == 0) {
        if (at + 1 >= argc) {
            fail(VIGIL_SHIM_STAGE_USAGE, EINVAL, VIGIL_SHIM_EXIT_SETUP_FAILED);
        }
        cgroup = argv[at + 1];
        at += 2;
    }
    if (at < argc && strcmp(argv[at], "--cwd") == 0) {
        if (at + 1 >= argc) {
            fail(VIGIL_SHIM_STAGE_USAGE, EINVAL, VIGIL_SHIM_EXIT_SETUP_FAILED);
        }
        cwd = argv[at + 1];
        at += 2;
    }
    long keep_fd = -1;
    if (at < argc && strcmp(argv[at], "--keep-fd") == 0) {
        if (at + 1 >= argc || parse_int(argv[at + 1], &keep_fd) != 0 || keep_fd <= status_fd) {
            fail(VIGIL_SHIM_STAGE_USAGE, EINVAL, VIGIL_SHIM_EXIT_SETUP_FAILED);
        }
        at += 2;
    }
    struct log_file log_out = { NULL, -1, 0 };
    struct log_file log_err = { NULL, -1, 0 };
    long long log_max = 0;
    long log_keep = 0;
    if (at < argc && strcmp(argv[at], "--log") == 0) {
        long max;
        if (at + 4 >= argc || parse_int(argv[at + 3], &max) != 0 || max < 1 || parse_int(argv[at + 4], &log_keep) != 0
                || log_keep > 99) {
            fail(VIGIL_SHIM_STAGE_USAGE, EINVAL, VIGIL_SHIM_EXIT_SETUP_FAILED);
        }
        log_out.path = argv[at + 1];
        log_err.path = argv[at + 2];
        log_max = max;
        at += 5;
    }
    if (at >= argc || strcmp(argv[at], "--") != 0 || at + 1 >= argc) {
        fail(VIGIL_SHIM_STAGE_USAGE, EINVAL, VIGIL_SHIM_EXIT_SETUP_FAILED);
    }
    char **command = &argv[at + 1];

    if (!outlive_parent && prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
        fail(VIGIL_SHIM_STAGE_PDEATHSIG, errno, VIGIL_SHIM_EXIT_SETUP_FAILED);
    }
    if (!outlive_parent && getppid() != (pid_t)parent_pid) {
        fail(VIGIL_SHIM_STAGE_PARENT_GONE, 0, VIGIL_SHIM_EXIT_PARENT_GONE);
    }
    if (log_out.path != NULL && start_log_writer(&log_out, &log_err, log_max, log_keep) != 0) {
        fail(VIGIL_SHIM_STAGE_LOG, errno, VIGIL_SHIM_EXIT_SETUP_FAILED);
    }
    if (cgroup != NULL && join_cgroup(cgroup) != 0) {
        fail(VIGIL_SHIM_STAGE_CGROUP, errno, VIGIL_SHIM_EXIT_SETUP_FAILED);
    }
    if (setpgid(0, 0) != 0) {
        fail(VIGIL_SHIM_STAGE_SETPGID, errno, VIGIL_SHIM_EXIT_SETUP_FAILED);
    }
    if (cwd != NULL && chdir(cwd) != 0) {
        fail(VIGIL_SHIM_STAGE_CHDIR, errno, VIGIL_SHIM_EXIT_SETUP_FAILED);
    }
    unsigned int above = keep_fd > 0 ? (unsigned int)keep_fd : (unsigned int)status_fd;
    if (close_between(3, (unsigned int)status_fd - 1) != 0
            || close_between((unsigned int)status_fd + 1, above - 1) != 0
            || close_between(above + 1, ~0U) != 0) {
        fail(VIGIL_SHIM_STAGE_CLOSE_FDS, errno, VIGIL_SHIM_EXIT_SETUP_FAILED);
    }
    if (reset_signals() != 0) {
        fail(VIGIL_SHIM_STAGE_SIGNALS, errno, VIGIL_SHIM_EXIT_SETUP_FAILED);
    }
    execvp(command[0], command);
    fail(VIGIL_SHIM_STAGE_EXEC, errno, VIGIL_SHIM_EXIT_EXEC_FAILED);
}
