/*
 * vigil-exit-stamp: the child of the reaping benchmark. Sleeps, then stores its CLOCK_MONOTONIC
 * time into <stamp-file> through a shared mapping (no syscall between stamp and exit), then
 * _exit(exit-code, default 0). Exit-detection latency = the reaper's reap time minus this stamp.
 *
 *   vigil-exit-stamp <delay-ms> <stamp-file> [exit-code]       sleep delay-ms from now
 *   vigil-exit-stamp @<monotonic-ns> <stamp-file> [exit-code]  sleep until that CLOCK_MONOTONIC time
 *
 * The stamp file holds one int64 (native byte order); 0 means the child never got there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int64_t monotonic_nanos(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "ERR: usage: vigil-exit-stamp <delay-ms>|@<monotonic-ns> <stamp-file> [exit-code]\n");
        return 2;
    }
    int64_t deadline;
    if (argv[1][0] == '@') {
        deadline = strtoll(argv[1] + 1, NULL, 10);
    } else {
        deadline = monotonic_nanos() + strtoll(argv[1], NULL, 10) * 1000000LL;
    }
    int fd = open(argv[2], O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || ftruncate(fd, sizeof(int64_t)) != 0) {
        fprintf(stderr, "ERR: stamp file=%s errno=%d\n", argv[2], errno);
        return 2;
    }
    volatile int64_t *stamp = mmap(NULL, sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (stamp == MAP_FAILED) {
        fprintf(stderr, "ERR: mmap file=%s errno=%d\n", argv[2], errno);
        return 2;
    }
    *stamp = 0;
    struct timespec until = { .tv_sec = deadline / 1000000000LL, .tv_nsec = deadline % 1000000000LL };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {
    }
    int exit_code = argc == 4 ? atoi(argv[3]) : 0;
    *stamp = monotonic_nanos();
    _exit(exit_code);
}
