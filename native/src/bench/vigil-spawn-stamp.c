/*
 * vigil-spawn-stamp: the baseline of the start benchmark (StartExitBenchmark). Starts one child with a
 * plain posix_spawnp, prints the CLOCK_MONOTONIC time right after it returned (the same clock the
 * journal's ChildSpawned carries), then ends the child with SIGTERM and waits for that pid alone.
 *
 *   vigil-spawn-stamp COMMAND [ARG...]      prints "spawned <monotonic-ns> pid=<pid>"
 */
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "ERR: usage: vigil-spawn-stamp COMMAND [ARG...]\n");
        return 2;
    }
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[1], NULL, NULL, argv + 1, environ);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (rc != 0) {
        fprintf(stderr, "ERR: posix_spawnp %s failed: error %d\n", argv[1], rc);
        return 1;
    }
    printf("spawned %lld pid=%d\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, (int)pid);
    fflush(stdout);
    kill(pid, SIGTERM);
    int status;
    return waitpid(pid, &status, 0) == pid ? 0 : 1;
}
