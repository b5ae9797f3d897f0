/*
 * vigil-reap-reference: the reference reapers of the reaping benchmark (docs/BENCHMARKS.md).
 * Starts n vigil-exit-stamp children (posix_spawn, no shim) exiting at fixed CLOCK_MONOTONIC
 * times, reaps them one of two ways, and prints what it measured:
 *
 *   vigil-reap-reference <pidfd|waitpid> <exit-stamp-binary> <stamp-dir> <n> <first-exit-ms> <spacing-us>
 *
 *   pidfd   - (b) pidfd_open per child + one poll() over all of them, waitpid(pid) on POLLIN
 *   waitpid - (a) waitpid(pid, WNOHANG) over the live children, then a 1 ms sleep, repeated
 *
 * Output, one line each: "latency_ns <child> <reap - stamp>", then "cpu_ns <reaper CPU while
 * waiting>", "wait_ns <time spent waiting>", "wall_ns <last reap - first stamp>".
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-common.h"

#define MAX_CHILDREN BENCH_MAX_CHILDREN

extern char **environ;

static int64_t read_stamp(const char *path)
{
    int64_t stamp = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &stamp, sizeof stamp) != (ssize_t)sizeof stamp) {
            stamp = 0;
        }
        close(fd);
    }
    return stamp;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "ERR: usage: vigil-reap-reference <pidfd|waitpid> <exit-stamp-binary> <stamp-dir> <n> <first-exit-ms> <spacing-us>\n");
        return 2;
    }
    int use_pidfd = strcmp(argv[1], "pidfd") == 0;
    if (!use_pidfd && strcmp(argv[1], "waitpid") != 0) {
        fprintf(stderr, "ERR: mode=%s (pidfd or waitpid)\n", argv[1]);
        return 2;
    }
    const char *binary = argv[2];
    const char *dir = argv[3];
    int n = atoi(argv[4]);
    int64_t first_exit = strtoll(argv[5], NULL, 10) * 1000000LL;
    int64_t spacing = strtoll(argv[6], NULL, 10) * 1000LL;
    if (n <= 0 || n > MAX_CHILDREN) {
        fprintf(stderr, "ERR: n=%d (1..%d)\n", n, MAX_CHILDREN);
        return 2;
    }

    static pid_t pids[MAX_CHILDREN];
    static int pidfds[MAX_CHILDREN];
    static int64_t reaped_at[MAX_CHILDREN];
    static char stamp_paths[MAX_CHILDREN][512];
    int64_t base = monotonic_nanos() + first_exit;
    for (int i = 0; i < n; i++) {
        char at[32];
        snprintf(at, sizeof at, "@%lld", (long long)(base + spacing * i));
        snprintf(stamp_paths[i], sizeof stamp_paths[i], "%s/ref-%d.stamp", dir, i);
        char *child_argv[] = { (char *)binary, at, stamp_paths[i], NULL };
        int rc = posix_spawn(&pids[i], binary, NULL, NULL, child_argv, environ);
        if (rc != 0) {
            fprintf(stderr, "ERR: posix_spawn binary=%s errno=%d (%s)\n", binary, rc, strerror(rc));
            return 1;
        }
        pidfds[i] = -1;
        if (use_pidfd) {
            pidfds[i] = (int)syscall(SYS_pidfd_open, pids[i], 0);
            if (pidfds[i] < 0) {
                fprintf(stderr, "ERR: pidfd_open pid=%d errno=%d (%s)\n", pids[i], errno, strerror(errno));
                return 1;
            }
        }
    }

    int64_t cpu_start = cpu_nanos();
    int64_t wait_start = monotonic_nanos();
    int live = n;
    static int reaped[MAX_CHILDREN];
    while (live > 0) {
        if (use_pidfd) {
            int done = reap_ready_pidfds(n, pids, pidfds, reaped_at, -1, reaped);
            if (done < 0) {
                return 1;
            }
            live -= done;
        } else {
            for (int i = 0; i < n; i++) {
                int status;
                if (reaped_at[i] == 0 && waitpid(pids[i], &status, WNOHANG) == pids[i]) {
                    reaped_at[i] = monotonic_nanos();
                    live--;
                }
            }
            if (live > 0) {
                struct timespec ms = { .tv_sec = 0, .tv_nsec = 1000000L };
                nanosleep(&ms, NULL);
            }
        }
    }
    int64_t wait_ns = monotonic_nanos() - wait_start;
    int64_t cpu_ns = cpu_nanos() - cpu_start;

    int64_t first_stamp = INT64_MAX;
    int64_t last_reap = 0;
    for (int i = 0; i < n; i++) {
        int64_t stamp = read_stamp(stamp_paths[i]);
        if (stamp == 0) {
            fprintf(stderr, "ERR: child=%d pid=%d left no stamp file=%s\n", i, pids[i], stamp_paths[i]);
            return 1;
        }
        unlink(stamp_paths[i]);
        printf("latency_ns %d %lld\n", i, (long long)(reaped_at[i] - stamp));
        if (stamp < first_stamp) {
            first_stamp = stamp;
        }
        if (reaped_at[i] > last_reap) {
            last_reap = reaped_at[i];
        }
    }
    printf("cpu_ns %lld\nwait_ns %lld\nwall_ns %lld\n", (long long)cpu_ns, (long long)wait_ns,
            (long long)(last_reap - first_stamp));
    return 0;
}
