/*
 * vigil-wake-reference: the floor under "control round trip to a sleeping child" (docs/BENCHMARKS.md, "Idle
 * children"): two C processes, no JVM, no mailbox protocol. The child sleeps blocked in the kernel; the parent
 * waits 1 ms (the child is surely asleep), stamps, wakes it, and waits for its answer; the child answers at once
 * and blocks again. Prints the round trips' p50, p90 and p99 in nanoseconds:
 *
 *   vigil-wake-reference <futex|pipe> <rounds> [same|apart]
 *
 *   futex - the child in FUTEX_WAIT on a word of a shared mapping (as a sleeping C child on DOORBELL_RING); the
 *           parent bumps the word and FUTEX_WAKEs, then spins 10 us, yields 200 us and FUTEX_WAITs on the answer word
 *           (as the parent's own wait does: spin, yield, then sleep)
 *   pipe  - the child blocked in read(2) of a pipe (as a sleeping Java child's doorbell reader); the parent writes a
 *           byte and blocks in read(2) of the answer pipe
 *
 *   same  - both processes pinned to the CPU the parent started on: the woken child runs on the waker's CPU
 *   apart - the child pinned to another CPU: every wake-up goes to a CPU that is idle (on a VM, a halted vCPU woken
 *           by an inter-processor interrupt through the hypervisor); without either, the scheduler places them
 *
 * Output: "p50_ns N", "p90_ns N", "p99_ns N", "rounds N" (and "parent_cpu N", "child_cpu N" when pinned).
 */
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-common.h"

#define MAX_ROUNDS 100000

static long futex(uint32_t *word, int op, uint32_t value)
{
    return syscall(SYS_futex, word, op, value, NULL, NULL, 0);
}

static int compare(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void pause_1ms(void)
{
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
}

/* The parent's wait for the answer word to reach `want`: spin 10 us, yield until 210 us, then sleep on the futex. */
static void await_answer(uint32_t *answer, uint32_t want)
{
    int64_t start = monotonic_nanos();
    for (;;) {
        uint32_t now = __atomic_load_n(answer, __ATOMIC_ACQUIRE);
        if (now == want) {
            return;
        }
        int64_t idle = monotonic_nanos() - start;
        if (idle < 10000) {
            __asm__ __volatile__("" ::: "memory"); /* a plain spin: the load above is atomic */
        } else if (idle < 210000) {
            sched_yield();
        } else {
            futex(answer, FUTEX_WAIT, now);
        }
    }
}

/* The CPUs the two processes are pinned to (-1: not pinned), chosen by pick_cpus. */
static int parent_cpu = -1, child_cpu = -1;

static int pin(int cpu)
{
    if (cpu < 0) {
        return 0;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

/* same: the child on the parent's CPU; apart: on another CPU this process may use. Returns 0, or -1 if impossible. */
static int pick_cpus(const char *placement)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        return -1;
    }
    parent_cpu = sched_getcpu();
    if (strcmp(placement, "same") == 0) {
        child_cpu = parent_cpu;
        return 0;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (cpu != parent_cpu && CPU_ISSET(cpu, &allowed)) {
            child_cpu = cpu;
            return 0;
        }
    }
    return -1;
}

static int futex_rounds(int rounds, int64_t *rtt)
{
    uint32_t *words = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (words == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    uint32_t *ring = &words[0], *answer = &words[16];
    pid_t child = fork();
    if (child == 0) {
        pin(child_cpu);
        for (uint32_t seen = 0; (int) seen < rounds;) {
            uint32_t now = __atomic_load_n(ring, __ATOMIC_ACQUIRE);
            if (now == seen) {
                futex(ring, FUTEX_WAIT, seen);
                continue;
            }
            seen = now;
            __atomic_store_n(answer, seen, __ATOMIC_RELEASE);
            futex(answer, FUTEX_WAKE, 1);
        }
        _exit(0);
    }
    for (int i = 0; i < rounds; i++) {
        pause_1ms();
        int64_t t = monotonic_nanos();
        __atomic_store_n(ring, (uint32_t) i + 1, __ATOMIC_RELEASE);
        futex(ring, FUTEX_WAKE, 1);
        await_answer(answer, (uint32_t) i + 1);
        rtt[i] = monotonic_nanos() - t;
    }
    waitpid(child, NULL, 0);
    return 0;
}

static int pipe_rounds(int rounds, int64_t *rtt)
{
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0) {
        perror("pipe");
        return 1;
    }
    pid_t child = fork();
    if (child == 0) {
        pin(child_cpu);
        close(down[1]); /* else its own read would never see end of file */
        close(up[0]);
        char byte;
        while (read(down[0], &byte, 1) == 1) {
            if (write(up[1], &byte, 1) != 1) {
                _exit(1);
            }
        }
        _exit(0);
    }
    close(down[0]);
    close(up[1]);
    char byte = 'r';
    for (int i = 0; i < rounds; i++) {
        pause_1ms();
        int64_t t = monotonic_nanos();
        if (write(down[1], &byte, 1) != 1 || read(up[0], &byte, 1) != 1) {
            perror("pipe round");
            return 1;
        }
        rtt[i] = monotonic_nanos() - t;
    }
    close(down[1]);
    waitpid(child, NULL, 0);
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = argc == 3 || argc == 4 ? atoi(argv[2]) : 0;
    if (rounds <= 0 || rounds > MAX_ROUNDS || (strcmp(argv[1], "futex") != 0 && strcmp(argv[1], "pipe") != 0)
        || (argc == 4 && strcmp(argv[3], "same") != 0 && strcmp(argv[3], "apart") != 0)) {
        fprintf(stderr, "usage: vigil-wake-reference <futex|pipe> <rounds 1..%d> [same|apart]\n", MAX_ROUNDS);
        return 2;
    }
    if (argc == 4 && (pick_cpus(argv[3]) != 0 || pin(parent_cpu) != 0)) {
        fprintf(stderr, "ERR: cannot place the two processes: placement=%s (apart needs two CPUs this process may use)\n", argv[3]);
        return 2;
    }
    static int64_t rtt[MAX_ROUNDS];
    int failed = strcmp(argv[1], "futex") == 0 ? futex_rounds(rounds, rtt) : pipe_rounds(rounds, rtt);
    if (failed) {
        return 1;
    }
    qsort(rtt, (size_t) rounds, sizeof rtt[0], compare);
    printf("p50_ns %lld\np90_ns %lld\np99_ns %lld\nrounds %d\n", (long long) rtt[rounds / 2],
            (long long) rtt[rounds * 9 / 10], (long long) rtt[rounds * 99 / 100], rounds);
    if (parent_cpu >= 0) {
        printf("parent_cpu %d\nchild_cpu %d\n", parent_cpu, child_cpu);
    }
    return 0;
}
