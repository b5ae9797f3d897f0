/*
 * vigil-spawn-shim: the first program every Vigil child runs. posix_spawn starts it from the
 * orchestrator's spawner thread; it prepares the process and execs the real command.
 *
 *   vigil-spawn-shim <parent-pid> <status-fd> [--outlive-parent] [--cgroup <dir>] [--cwd <dir>] [--keep-fd <fd>] -- <command> [args...]
 *
 * 1. prctl(PR_SET_PDEATHSIG, SIGKILL): the child dies with the spawner thread (so with the JVM).
 * 2. getppid() == <parent-pid>, else exit VIGIL_SHIM_EXIT_PARENT_GONE: the parent may have died
 *    between posix_spawn and step 1, in which case the signal is never coming.
 *    With --outlive-parent neither 1 nor 2: a child of a pool whose close policy is leak may outlive
 *    the orchestrator's normal exit (kept, to be reaped later); a crash still ends it through the
 *    guardian, which kills the pool's cgroup or process group.
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
#include <sys/prctl.h>
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
