/*
 * What the C benchmark references (vigil-reap-reference, vigil-close-reference) share: CLOCK_MONOTONIC
 * nanoseconds (the clock of Vigil's journal), this process's CPU, and one round of reaping through pidfds
 * (poll the pidfds of the children not yet reaped, waitpid the child's own pid on POLLIN).
 */
#ifndef VIGIL_BENCH_COMMON_H
#define VIGIL_BENCH_COMMON_H

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BENCH_MAX_CHILDREN 1024
#define BENCH_POLL_TIMEOUT (-2)

static inline int64_t monotonic_nanos(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int64_t cpu_nanos(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return ((int64_t)usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000000LL
            + ((int64_t)usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1000LL;
}

/*
 * One reaping round over n children: polls the pidfds of those with reaped_at[i] == 0 for up to timeout_ms
 * (-1: no bound), then for each readable one reaps it (waitpid(pids[i], WNOHANG)), stamps reaped_at[i], closes its
 * pidfd and appends i to reaped[]. Returns how many it reaped (0 after EINTR), BENCH_POLL_TIMEOUT when the bound
 * passed with none readable, or -1 on a poll error (said on stderr).
 */
static inline int reap_ready_pidfds(int n, const pid_t *pids, const int *pidfds, int64_t *reaped_at, int timeout_ms,
        int *reaped)
{
    static struct pollfd fds[BENCH_MAX_CHILDREN];
    static int slot_child[BENCH_MAX_CHILDREN];
    int count = 0;
    for (int i = 0; i < n; i++) {
        if (reaped_at[i] == 0) {
            fds[count].fd = pidfds[i];
            fds[count].events = POLLIN;
            fds[count].revents = 0;
            slot_child[count++] = i;
        }
    }
    int ready = poll(fds, (nfds_t)count, timeout_ms);
    if (ready == 0) {
        return BENCH_POLL_TIMEOUT;
    }
    if (ready < 0) {
        if (errno == EINTR) {
            return 0;
        }
        fprintf(stderr, "ERR: poll errno=%d (%s)\n", errno, strerror(errno));
        return -1;
    }
    int done = 0;
    for (int s = 0; s < count; s++) {
        int i = slot_child[s];
        int status;
        if (fds[s].revents != 0 && waitpid(pids[i], &status, WNOHANG) == pids[i]) {
            reaped_at[i] = monotonic_nanos();
            close(pidfds[i]);
            reaped[done++] = i;
        }
    }
    return done;
}

#endif
