/*
 * vigil-guardian: outlives its orchestrator only to clean up after it.
 *
 *   vigil-guardian <orchestrator-pid> <orchestrator-start-ticks> <record-file> cgroup <root-dir>
 *   vigil-guardian <orchestrator-pid> <orchestrator-start-ticks> <record-file> pgroup <pgroups-file>
 *
 * It watches the orchestrator through a pidfd (pidfd_open + poll: no getppid polling, no gap). When the
 * orchestrator dies, by any signal, it kills every pool of it at once: in cgroup mode one write of "1"
 * to <root-dir>/cgroup.kill (the orchestrator's cgroup, every pool cgroup is below it: no fork escapes),
 * then waits for "populated 0" in <root-dir>/cgroup.events and removes the emptied directories; in the
 * process-group fallback SIGKILL to every group listed in <pgroups-file> (one pgid a line, rewritten by
 * the orchestrator as pools start and close). Then it writes <record-file> (JSON, via a temporary file
 * and rename): whom it watched, when it saw the death, what it killed, whether everything was gone and
 * after how long. The next orchestrator on that journal and the replay tool read it.
 *
 * SIGUSR1 means the orchestrator closed normally: exit 0, kill nothing, write nothing.
 * Exit codes: 0 stood down or cleaned up, 2 usage, 3 the record could not be written.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define KILL_BOUND_NANOS 900000000LL /* the whole cleanup must be done within 1 s of the death */
#define MAX_KILLED 4096

static volatile sig_atomic_t stand_down;

static void on_usr1(int sig)
{
    (void)sig;
    stand_down = 1;
}

static int64_t now_nanos(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long start_ticks(pid_t pid)
{
    char path[64];
    char buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) {
        return -1;
    }
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (p == NULL) {
        return -1;
    }
    p += 2; /* field 3, the state */
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (p == NULL) {
            return -1;
        }
        p++;
    }
    return strtoll(p, NULL, 10);
}

struct killed {
    int pid;
    char command[128];
};

static struct killed killed[MAX_KILLED];
static int killed_count;

static void note_process(int pid)
{
    if (killed_count >= MAX_KILLED) {
        return;
    }
    struct killed *k = &killed[killed_count++];
    k->pid = pid;
    k->command[0] = '\0';
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return;
    }
    ssize_t n = read(fd, k->command, sizeof k->command - 1);
    close(fd);
    if (n < 0) {
        n = 0;
    }
    for (ssize_t i = 0; i < n; i++) {
        if (k->command[i] == '\0') {
            k->command[i] = ' ';
        }
    }
    while (n > 0 && k->command[n - 1] == ' ') {
        n--;
    }
    k->command[n] = '\0';
}

/* Notes every pid in <dir>/cgroup.procs and in every cgroup below it. */
static void note_cgroup(const char *dir, int depth)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    FILE *f = fopen(path, "re");
    if (f != NULL) {
        int pid;
        while (fscanf(f, "%d", &pid) == 1) {
            note_process(pid);
        }
        fclose(f);
    }
    if (depth > 4) {
        return;
    }
    DIR *d = opendir(dir);
    if (d == NULL) {
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_type == DT_DIR && e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            note_cgroup(path, depth + 1);
        }
    }
    closedir(d);
}

static int cgroup_populated(const char *dir)
{
    char path[PATH_MAX];
    char buf[256];
    snprintf(path, sizeof path, "%s/cgroup.events", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0; /* gone: nothing in it */
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) {
        return 1;
    }
    buf[n] = '\0';
    return strstr(buf, "populated 1") != NULL;
}

/* Removes the emptied cgroups below <dir> (deepest first), then <dir>. */
static void remove_cgroups(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (d != NULL && depth <= 4) {
        struct dirent *e;
        char path[PATH_MAX];
        while ((e = readdir(d)) != NULL) {
            if (e->d_type == DT_DIR && e->d_name[0] != '.') {
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                remove_cgroups(path, depth + 1);
            }
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    rmdir(dir);
}

static int kill_cgroup(const char *root, int64_t deadline)
{
    note_cgroup(root, 0);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/cgroup.kill", root);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (write(fd, "1", 1) != 1) {
            perror("vigil-guardian: cgroup.kill");
        }
        close(fd);
    } else if (errno != ENOENT) {
        perror("vigil-guardian: cgroup.kill");
    }
    long pause = 50000;
    while (cgroup_populated(root)) {
        if (now_nanos() >= deadline) {
            return 0;
        }
        struct timespec ts = { 0, pause };
        nanosleep(&ts, NULL);
        pause = pause < 5000000 ? pause * 2 : pause;
    }
    remove_cgroups(root, 0);
    return 1;
}

static int read_pgroups(const char *file, int *groups, int max)
{
    FILE *f = fopen(file, "re");
    if (f == NULL) {
        return 0;
    }
    int n = 0;
    int pgid;
    while (n < max && fscanf(f, "%d", &pgid) == 1) {
        if (pgid > 1) {
            groups[n++] = pgid;
        }
    }
    fclose(f);
    return n;
}

/* Live (not zombie) processes in one of the groups; notes them when note != 0. */
static int scan_groups(const int *groups, int n, int note)
{
    DIR *d = opendir("/proc");
    if (d == NULL) {
        return 0;
    }
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0) {
            continue;
        }
        char path[64];
        char buf[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            continue;
        }
        ssize_t len = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (len <= 0) {
            continue;
        }
        buf[len] = '\0';
        char *p = strrchr(buf, ')');
        char state;
        int ppid;
        int pgrp;
        if (p == NULL || sscanf(p + 2, "%c %d %d", &state, &ppid, &pgrp) != 3 || state == 'Z') {
            continue;
        }
        for (int i = 0; i < n; i++) {
            if (groups[i] == pgrp) {
                found++;
                if (note) {
                    note_process((int)pid);
                }
                break;
            }
        }
    }
    closedir(d);
    return found;
}

static int kill_pgroups(const char *file, int64_t deadline)
{
    static int groups[MAX_KILLED];
    int n = read_pgroups(file, groups, MAX_KILLED);
    scan_groups(groups, n, 1);
    for (int i = 0; i < n; i++) {
        kill(-groups[i], SIGKILL);
    }
    long pause = 200000;
    while (scan_groups(groups, n, 0) > 0) {
        if (now_nanos() >= deadline) {
            return 0;
        }
        struct timespec ts = { 0, pause };
        nanosleep(&ts, NULL);
        pause = pause < 5000000 ? pause * 2 : pause;
    }
    return 1;
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

static int write_record(const char *record, int pid, long long ticks, const char *mode, const char *target,
                        int64_t died, int empty, int64_t empty_after)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp", record);
    FILE *f = fopen(tmp, "we");
    if (f == NULL) {
        return -1;
    }
    fprintf(f, "{\"orchestratorPid\":%d,\"orchestratorStartTicks\":%lld,\"guardianPid\":%d,\"deathSeenNanos\":%lld,"
               "\"mode\":", pid, ticks, (int)getpid(), (long long)died);
    json_string(f, mode);
    fprintf(f, ",\"container\":");
    json_string(f, target);
    fprintf(f, ",\"empty\":%s,\"emptyAfterNanos\":%lld,\"killed\":[", empty ? "true" : "false",
            (long long)empty_after);
    for (int i = 0; i < killed_count; i++) {
        fprintf(f, "%s{\"pid\":%d,\"command\":", i == 0 ? "" : ",", killed[i].pid);
        json_string(f, killed[i].command);
        fputc('}', f);
    }
    fprintf(f, "]}\n");
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        fclose(f);
        return -1;
    }
    fclose(f);
    return rename(tmp, record);
}

int main(int argc, char **argv)
{
    if (argc != 6 || (strcmp(argv[4], "cgroup") != 0 && strcmp(argv[4], "pgroup") != 0)) {
        fprintf(stderr, "usage: vigil-guardian <orchestrator-pid> <start-ticks> <record-file> cgroup <root-dir>|pgroup <pgroups-file>\n");
        return 2;
    }
    pid_t pid = (pid_t)atoi(argv[1]);
    long long ticks = atoll(argv[2]);
    const char *record = argv[3];
    const char *mode = argv[4];
    const char *target = argv[5];

    /* The spawn shim armed PDEATHSIG: this process must outlive the orchestrator, not die with it. */
    prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL); /* no SA_RESTART: poll returns EINTR */

    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd >= 0 && start_ticks(pid) != ticks) {
        close(pidfd); /* the pid names another process: ours is gone already */
        pidfd = -1;
    }
    if (pidfd >= 0) {
        struct pollfd p = { .fd = pidfd, .events = POLLIN, .revents = 0 };
        while (!stand_down) {
            int r = poll(&p, 1, -1);
            if (r > 0) {
                break;
            }
            if (r < 0 && errno != EINTR) {
                perror("vigil-guardian: poll");
                break;
            }
        }
        close(pidfd);
        if (stand_down) {
            return 0;
        }
    }
    int64_t died = now_nanos();
    int64_t deadline = died + KILL_BOUND_NANOS;
    int empty = strcmp(mode, "cgroup") == 0 ? kill_cgroup(target, deadline) : kill_pgroups(target, deadline);
    int64_t after = now_nanos() - died;
    if (write_record(record, (int)pid, ticks, mode, target, died, empty, empty ? after : -1) != 0) {
        perror("vigil-guardian: record");
        return 3;
    }
    return 0;
}
