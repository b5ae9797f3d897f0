/*
 * libvigil-spawn: vigil_spawn starts the spawn shim like posix_spawn, without copying the orchestrator's whole
 * descriptor table into every child.
 *
 * posix_spawn's vfork child gets a copy of the parent's table (dup_fd) and its exec then closes every close-on-exec
 * descriptor in it, one by one. The orchestrator holds a descriptor per child (its pidfd), so the n-th spawn paid for
 * n descriptors twice: a 9,000-child start spent ~10 s of CPU in dup_fd, filp_flush and do_close_on_exec (perf, the
 * scale bench). Here the child shares the parent's table (CLONE_FILES) until its first step,
 * close_range(keep_below, ~0, CLOSE_RANGE_UNSHARE), which gives it a table of its own holding copies of the
 * descriptors below keep_below only (Linux 5.9; before that, unshare(CLONE_FILES), a whole copy as before). The caller
 * puts the descriptors the child needs below keep_below (the spawner threads' reserved slots).
 *
 * What the child does between clone and exec is posix_spawn's: every signal blocked in the parent around the clone;
 * in the child, caught signals back to SIG_DFL and the parent's mask restored just before the exec; then the opens
 * and dup2s asked for, in that order, and execve. A failure is reported back (the memory is shared) as an errno, and
 * the child is reaped here by its pid, as glibc does.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_STACK (64 * 1024)

struct spawn_args {
    const char *path;
    char *const *argv;
    char *const *envp;
    int keep_below;
    const int *open_fd;
    char *const *open_path;
    const int *open_flags;
    const int *open_mode;
    int opens;
    const int *dup_from;
    const int *dup_to;
    int dups;
    sigset_t mask;
    volatile int error;
};

static int fail(struct spawn_args *a)
{
    a->error = errno != 0 ? errno : EINVAL;
    _exit(127);
}

static int child(void *p)
{
    struct spawn_args *a = p;
    /* First: a table of our own (the parent's is shared until here; nothing below may touch it). */
    if (syscall(SYS_close_range, (unsigned int)a->keep_below, ~0U, CLOSE_RANGE_UNSHARE) != 0
            && unshare(CLONE_FILES) != 0) {
        return fail(a);
    }
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction sa;
        if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa) != 0) {
            continue; /* glibc's own signals (32, 33) are refused by sigaction: nothing of ours */
        }
        if (sa.sa_handler != SIG_IGN && sa.sa_handler != SIG_DFL) {
            sa.sa_handler = SIG_DFL;
            sa.sa_flags = 0;
            sigemptyset(&sa.sa_mask);
            sigaction(sig, &sa, NULL);
        }
    }
    for (int i = 0; i < a->opens; i++) {
        int fd = open(a->open_path[i], a->open_flags[i], (mode_t)a->open_mode[i]);
        if (fd < 0) {
            return fail(a);
        }
        if (fd != a->open_fd[i]) {
            if (dup2(fd, a->open_fd[i]) < 0) {
                return fail(a);
            }
            close(fd);
        }
    }
    for (int i = 0; i < a->dups; i++) {
        if (dup2(a->dup_from[i], a->dup_to[i]) < 0) {
            return fail(a);
        }
    }
    if (sigprocmask(SIG_SETMASK, &a->mask, NULL) != 0) {
        return fail(a);
    }
    execve(a->path, a->argv, a->envp);
    return fail(a);
}

/*
 * Starts path with argv and envp (NULL-terminated), the child keeping the descriptors below keep_below (copies) and
 * nothing above; opens open_path[i] (open_flags[i], open_mode[i]) as open_fd[i], then dup2s dup_from[i] onto
 * dup_to[i]. 0 with the pid in *pid, or the error number of the step that failed (the child reaped then).
 */
int vigil_spawn(int *pid, const char *path, char *const argv[], char *const envp[], int keep_below,
        const int *open_fd, char *const open_path[], const int *open_flags, const int *open_mode, int opens,
        const int *dup_from, const int *dup_to, int dups)
{
    struct spawn_args a = {path, argv, envp, keep_below, open_fd, open_path, open_flags, open_mode, opens,
            dup_from, dup_to, dups, {{0}}, 0};
    char *stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) {
        return errno;
    }
    sigset_t all;
    sigfillset(&all);
    int error = pthread_sigmask(SIG_BLOCK, &all, &a.mask);
    if (error != 0) {
        munmap(stack, CHILD_STACK);
        return error;
    }
    /* CLONE_VFORK: back here once the child has exec'd or exited. */
    int started = clone(child, stack + CHILD_STACK, CLONE_VM | CLONE_VFORK | CLONE_FILES | SIGCHLD, &a);
    error = started < 0 ? errno : a.error;
    pthread_sigmask(SIG_SETMASK, &a.mask, NULL);
    munmap(stack, CHILD_STACK);
    if (started > 0 && error != 0) {
        while (waitpid(started, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    if (error == 0) {
        *pid = started;
    }
    return error;
}
