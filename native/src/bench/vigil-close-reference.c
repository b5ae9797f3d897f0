/*
 * vigil-close-reference: the C reference of the close benchmark (docs/BENCHMARKS.md, "Close").
 * Does the protocol work of one close of n real mailbox children, the least a close can do, in one
 * thread: mailboxes in one file in the layout of vigil/mailbox.h (the same header the children use),
 * children spawned with the VIGIL_* handoff environment, optionally one control command in flight per
 * child; then, timed: CAS every shutdown word 0 -> epoch and ring the doorbell of a child asleep on it
 * (docs/MAILBOX.md, "The doorbell": futex wake, and a byte down the pipe of a Java child), poll the children's pidfds, waitpid each
 * on POLLIN, settle its in-flight command from the mailbox (CONTROL_DONE with its command id), drain
 * its transition ring, release the mailbox (magic 0).
 *
 *   vigil-close-reference <map-file> <n> <in-flight 0|1> <doorbell-pipe 0|1> <opcode> <argument> -- <child argv...>
 *
 * doorbell-pipe 1 gives each child the read end of a pipe as descriptor 4 (VIGIL_DOORBELL_FD=4), as the
 * orchestrator does for Java children.
 *
 * The rest of a close's work, what the orchestrator does beyond the protocol (CloseBenchmark's "same work" rows),
 * each turned on by its environment variable:
 *   VIGIL_REF_CGROUP=<dir>   the children in a cgroup of their own, as a pool's container: <dir> (under a delegated
 *                            cgroup v2 subtree) is made, each child written into its cgroup.procs once spawned; in the
 *                            close, cgroup.procs read once per batch of reaps before their mailboxes are released (no
 *                            fork of a reaped child may still map its mailbox) and once after the last reap (the stray
 *                            sweep), and the directory removed before the close ends;
 *   VIGIL_REF_JOURNAL=<file> every event of the close written as it happens, one text record each, into a mapping of
 *                            <file> (as the journal's queue file): close started, admission fenced, each shutdown
 *                            published, each transition drained, each child reaped, each mailbox released, and close
 *                            completed with the report as JSON (every child's outcome, exit code and time from the
 *                            broadcast).
 * With either set, close_ns runs from the first of that work (the close-started record), not from the first CAS.
 *
 * Output, one line each: "close_ns <last release - first CAS>", "last_reap_ns <last reap - first CAS>",
 * "told_ns <the end of the CAS and doorbell loop - first CAS>",
 * "cpu_ns <this process's CPU over the close>", "settled <commands completed> failed <not completed>",
 * "ring_records <drained>". Exit 0, or 1 with "ERR: ..." on stderr.
 */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <linux/futex.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-common.h"
#include "vigil/mailbox.h"

#define MAX_CHILDREN BENCH_MAX_CHILDREN
#define RING_CAPACITY VIGIL_DEFAULT_RING_CAPACITY
#define COMMAND_ID 1
#define READY_BOUND_NANOS 120000000000LL
#define CLOSE_BOUND_MILLIS 60000

extern char **environ;

static struct vigil_mailbox *mailbox_at(char *base, size_t stride, int i)
{
    return (struct vigil_mailbox *)(base + stride * (size_t)i);
}

/* VIGIL_REF_JOURNAL: records appended into a mapping of the journal file (NULL: no journal). */
#define JOURNAL_BYTES (64u << 20)
static char *journal;
static size_t journal_at;

static void journal_record(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void journal_record(const char *format, ...)
{
    if (journal == NULL || journal_at + 4096 > JOURNAL_BYTES) {
        return;
    }
    va_list args;
    va_start(args, format);
    int length = vsnprintf(journal + journal_at, JOURNAL_BYTES - journal_at, format, args);
    va_end(args);
    if (length > 0) {
        size_t room = JOURNAL_BYTES - journal_at - 1;
        journal_at += (size_t)length < room ? (size_t)length : room;
    }
}

/* VIGIL_REF_CGROUP: reads the cgroup's member pids (cgroup.procs); returns how many, -1 when unreadable. */
static int cgroup_members(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    char buffer[16384];
    int members = 0;
    ssize_t got;
    while ((got = read(fd, buffer, sizeof buffer)) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            members += buffer[i] == '\n';
        }
    }
    close(fd);
    return members;
}

static int cgroup_join(const char *dir, pid_t pid)
{
    char path[4200], line[32];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    int length = snprintf(line, sizeof line, "%d\n", (int)pid);
    int rc = write(fd, line, (size_t)length) == length ? 0 : -1;
    close(fd);
    return rc;
}

/* What MappedMailbox.format does: zero, identity line, magic stored last with release. */
static void format_mailbox(struct vigil_mailbox *m, size_t length, uint64_t epoch)
{
    __atomic_store_n(&m->magic, 0, __ATOMIC_RELEASE);
    memset((char *)m + sizeof m->magic, 0, length - sizeof m->magic);
    m->layout_version = VIGIL_LAYOUT_VERSION;
    m->protocol_mode = VIGIL_PROTOCOL_STICKY;
    m->mailbox_length = (uint32_t)length;
    m->ring_capacity = RING_CAPACITY;
    m->spawn_epoch = epoch;
    m->parent_pid = (uint32_t)getpid();
    m->ring_wait_nanos = VIGIL_DEFAULT_RING_WAIT_NANOS;
    __atomic_store_n(&m->magic, VIGIL_MAGIC, __ATOMIC_RELEASE);
}

/* The parent's transition record (MappedMailbox.recordTransition, without flow control: nothing waits here). */
static void record_transition(struct vigil_mailbox *m, uint64_t seq, int from, int to)
{
    uint64_t ticket = __atomic_fetch_add(&m->ring_head, 1, __ATOMIC_ACQ_REL);
    struct vigil_ring_record *r = &m->ring[ticket & (RING_CAPACITY - 1)];
    __atomic_store_n(&r->ticket, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&r->seq, seq, __ATOMIC_RELAXED);
    __atomic_store_n(&r->time_nanos, (uint64_t)monotonic_nanos(), __ATOMIC_RELAXED);
    __atomic_store_n(&r->origin, (uint64_t)(from & 0xFF) | (uint64_t)(to & 0xFF) << 8
            | (uint64_t)VIGIL_WRITER_PARENT << 16 | (uint64_t)(uint32_t)getpid() << 32, __ATOMIC_RELAXED);
    __atomic_store_n(&r->ticket, ticket + 1, __ATOMIC_RELEASE);
}

/* Places a control command (IDLE or INIT_READY -> CONTROL_REQUEST), as MailboxHandle.sendControl does. */
static int place_command(struct vigil_mailbox *m, uint32_t opcode, uint64_t argument)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        uint64_t word = __atomic_load_n(&m->state_word, __ATOMIC_ACQUIRE);
        int state = vigil_word_state(word);
        if (state != VIGIL_IDLE && state != VIGIL_INIT_READY) {
            return -1;
        }
        m->command_id = COMMAND_ID;
        m->opcode = opcode;
        __atomic_store_n(&m->argument, argument, __ATOMIC_RELEASE);
        uint64_t next = vigil_state_word(VIGIL_CONTROL_REQUEST, VIGIL_WRITER_PARENT, vigil_word_seq(word) + 1);
        if (__atomic_compare_exchange_n(&m->state_word, &word, next, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            record_transition(m, vigil_word_seq(next), state, VIGIL_CONTROL_REQUEST);
            return 0;
        }
    }
    return -1;
}

/* Reads every published ring record from the consumer position on (a seqlock read per slot); returns how many. */
static int drain_ring(struct vigil_mailbox *m)
{
    uint64_t head = __atomic_load_n(&m->ring_head, __ATOMIC_ACQUIRE);
    uint64_t from = __atomic_load_n(&m->ring_consumer_position, __ATOMIC_ACQUIRE);
    if (head - from > RING_CAPACITY) {
        from = head - RING_CAPACITY;
    }
    int n = 0;
    volatile uint64_t sink = 0;
    for (uint64_t t = from; t < head; t++) {
        struct vigil_ring_record *r = &m->ring[t & (RING_CAPACITY - 1)];
        if (__atomic_load_n(&r->ticket, __ATOMIC_ACQUIRE) != t + 1) {
            continue;
        }
        uint64_t seq = __atomic_load_n(&r->seq, __ATOMIC_RELAXED);
        uint64_t time = __atomic_load_n(&r->time_nanos, __ATOMIC_RELAXED);
        uint64_t origin = __atomic_load_n(&r->origin, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&r->ticket, __ATOMIC_RELAXED) == t + 1) {
            sink += seq ^ time ^ origin;
            n++;
            journal_record("MailboxTransition seq=%llu time=%llu origin=%llx\n", (unsigned long long)seq,
                    (unsigned long long)time, (unsigned long long)origin);
        }
    }
    __atomic_store_n(&m->ring_consumer_position, head, __ATOMIC_RELEASE);
    return n;
}

/* A reaped child's mailbox: its in-flight command settled from it, its ring drained, the record freed (magic 0). */
static void release_mailbox(struct vigil_mailbox *m, int in_flight, int *settled, int *failed, int *records,
        uint64_t close_epoch, int i, size_t stride)
{
    if (in_flight) {
        uint64_t word = __atomic_load_n(&m->state_word, __ATOMIC_ACQUIRE);
        if (vigil_word_state(word) == VIGIL_CONTROL_DONE && __atomic_load_n(&m->result_id, __ATOMIC_ACQUIRE) == COMMAND_ID) {
            (*settled)++;
            journal_record("InFlightSettled pool=ref closeId=%llu group=g index=%d outcome=FINISHED\n",
                    (unsigned long long)close_epoch, i);
        } else {
            (*failed)++;
        }
    }
    *records += drain_ring(m);
    __atomic_store_n(&m->magic, 0, __ATOMIC_RELEASE); /* released */
    journal_record("MailboxReleased time=%lld pool=ref closeId=%llu group=g index=%d offset=%zu\n",
            (long long)monotonic_nanos(), (unsigned long long)close_epoch, i, stride * (size_t)i);
}

int main(int argc, char **argv)
{
    if (argc < 9 || strcmp(argv[7], "--") != 0) {
        fprintf(stderr, "ERR: usage: vigil-close-reference <map-file> <n> <in-flight 0|1> <doorbell-pipe 0|1> <opcode>"
                " <argument> -- <child argv...>\n");
        return 2;
    }
    const char *map_file = argv[1];
    int n = atoi(argv[2]);
    int in_flight = atoi(argv[3]);
    int doorbell_pipe = atoi(argv[4]);
    uint32_t opcode = (uint32_t)strtoul(argv[5], NULL, 10);
    uint64_t argument = strtoull(argv[6], NULL, 10);
    char **child_argv = &argv[8];
    if (n <= 0 || n > MAX_CHILDREN) {
        fprintf(stderr, "ERR: n=%d (1..%d)\n", n, MAX_CHILDREN);
        return 2;
    }
    size_t length = vigil_mailbox_length(RING_CAPACITY);
    size_t stride = (length + VIGIL_MAILBOX_ALIGNMENT - 1) / VIGIL_MAILBOX_ALIGNMENT * VIGIL_MAILBOX_ALIGNMENT;
    int fd = open(map_file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)(stride * (size_t)n)) != 0) {
        fprintf(stderr, "ERR: map file=%s errno=%d (%s)\n", map_file, errno, strerror(errno));
        return 1;
    }
    char *base = mmap(NULL, stride * (size_t)n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        fprintf(stderr, "ERR: mmap file=%s errno=%d (%s)\n", map_file, errno, strerror(errno));
        return 1;
    }
    uint64_t epoch = (uint64_t)monotonic_nanos() | 1;
    const char *cgroup = getenv("VIGIL_REF_CGROUP");
    const char *journal_file = getenv("VIGIL_REF_JOURNAL");
    if (cgroup != NULL && mkdir(cgroup, 0755) != 0) {
        fprintf(stderr, "ERR: mkdir cgroup=%s errno=%d (%s)\n", cgroup, errno, strerror(errno));
        return 1;
    }
    if (journal_file != NULL) {
        int jfd = open(journal_file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (jfd < 0 || ftruncate(jfd, JOURNAL_BYTES) != 0) {
            fprintf(stderr, "ERR: journal file=%s errno=%d (%s)\n", journal_file, errno, strerror(errno));
            return 1;
        }
        journal = mmap(NULL, JOURNAL_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, jfd, 0);
        close(jfd);
        if (journal == MAP_FAILED) {
            fprintf(stderr, "ERR: mmap journal file=%s errno=%d (%s)\n", journal_file, errno, strerror(errno));
            return 1;
        }
        /* the spawns are journaled too, before the close: its records land on pages the mapping already has */
    }

    static pid_t pids[MAX_CHILDREN];
    static int pidfds[MAX_CHILDREN];
    static int64_t reaped_at[MAX_CHILDREN];
    static int bell_write[MAX_CHILDREN];
    char offset_env[64], file_env[4200], version_env[64], parent_env[64], length_env[64];
    snprintf(file_env, sizeof file_env, "VIGIL_MAILBOX_FILE=%s", map_file);
    snprintf(version_env, sizeof version_env, "VIGIL_LAYOUT_VERSION=%d", VIGIL_LAYOUT_VERSION);
    snprintf(parent_env, sizeof parent_env, "VIGIL_PARENT_PID=%d", (int)getpid());
    snprintf(length_env, sizeof length_env, "VIGIL_MAILBOX_LENGTH=%zu", length);
    int inherited = 0;
    while (environ[inherited] != NULL) {
        inherited++;
    }
    char **env = calloc((size_t)inherited + 8, sizeof(char *));
    if (env == NULL) {
        fprintf(stderr, "ERR: out of memory\n");
        return 1;
    }
    int e = 0;
    for (int i = 0; i < inherited; i++) {
        if (strncmp(environ[i], "VIGIL_MAILBOX", 13) != 0 && strncmp(environ[i], "VIGIL_LAYOUT", 12) != 0
                && strncmp(environ[i], "VIGIL_PARENT", 12) != 0 && strncmp(environ[i], "VIGIL_PROTOCOL", 14) != 0) {
            env[e++] = environ[i];
        }
    }
    env[e++] = file_env;
    env[e++] = version_env;
    env[e++] = parent_env;
    env[e++] = length_env;
    env[e++] = "VIGIL_PROTOCOL=sticky";
    if (doorbell_pipe) {
        env[e++] = "VIGIL_DOORBELL_FD=4";
    }
    int offset_slot = e;
    env[e++] = offset_env;
    env[e] = NULL;
    (void)offset_slot;

    for (int i = 0; i < n; i++) {
        format_mailbox(mailbox_at(base, stride, i), length, epoch);
        snprintf(offset_env, sizeof offset_env, "VIGIL_MAILBOX_OFFSET=%zu", stride * (size_t)i);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        bell_write[i] = -1;
        int bell[2];
        if (doorbell_pipe) {
            if (pipe2(bell, O_CLOEXEC) != 0) {
                fprintf(stderr, "ERR: pipe errno=%d (%s)\n", errno, strerror(errno));
                return 1;
            }
            posix_spawn_file_actions_adddup2(&actions, bell[0], 4); /* dup2 clears O_CLOEXEC on 4 */
            bell_write[i] = bell[1];
        }
        int rc = posix_spawn(&pids[i], child_argv[0], &actions, NULL, child_argv, env);
        posix_spawn_file_actions_destroy(&actions);
        if (doorbell_pipe) {
            close(bell[0]);
        }
        if (rc != 0) {
            fprintf(stderr, "ERR: posix_spawn binary=%s errno=%d (%s)\n", child_argv[0], rc, strerror(rc));
            return 1;
        }
        if (cgroup != NULL && cgroup_join(cgroup, pids[i]) != 0) {
            fprintf(stderr, "ERR: pid=%d cannot join cgroup=%s errno=%d (%s)\n", pids[i], cgroup, errno, strerror(errno));
            return 1;
        }
        journal_record("ChildSpawned pid=%d group=g index=%d kind=C argv=%s\n", pids[i], i, child_argv[0]);
        pidfds[i] = (int)syscall(SYS_pidfd_open, pids[i], 0);
        if (pidfds[i] < 0) {
            fprintf(stderr, "ERR: pidfd_open pid=%d errno=%d (%s)\n", pids[i], errno, strerror(errno));
            return 1;
        }
    }
    /* Ready: every child reported INIT_READY (bounded). */
    int64_t ready_deadline = monotonic_nanos() + READY_BOUND_NANOS;
    for (int i = 0; i < n; i++) {
        struct vigil_mailbox *m = mailbox_at(base, stride, i);
        while (vigil_word_state(__atomic_load_n(&m->state_word, __ATOMIC_ACQUIRE)) != VIGIL_INIT_READY) {
            if (monotonic_nanos() > ready_deadline) {
                fprintf(stderr, "ERR: child %d pid=%d not INIT_READY within %lld s\n", i, pids[i],
                        READY_BOUND_NANOS / 1000000000LL);
                return 1;
            }
            struct timespec ms = {0, 1000000L};
            nanosleep(&ms, NULL);
        }
    }
    if (in_flight) {
        for (int i = 0; i < n; i++) {
            if (place_command(mailbox_at(base, stride, i), opcode, argument) != 0) {
                fprintf(stderr, "ERR: child %d pid=%d: command not placed\n", i, pids[i]);
                return 1;
            }
        }
    }
    /* as the Java side: the commands are inside their handlers, idle children asleep on their doorbells */
    struct timespec settle = {0, 20000000L};
    nanosleep(&settle, NULL);

    /* The close. */
    int64_t cpu_start = cpu_nanos();
    int64_t start = monotonic_nanos();
    uint64_t close_epoch = epoch + 2;
    journal_record("CloseStarted time=%lld pool=ref closeId=%llu children=%d window=5000000000 escalation=leak\n",
            (long long)start, (unsigned long long)close_epoch, n);
    journal_record("AdmissionFenced time=%lld pool=ref closeId=%llu inFlight=%d\n", (long long)start,
            (unsigned long long)close_epoch, in_flight ? n : 0);
    int64_t first_cas = monotonic_nanos();
    static uint64_t observed[MAX_CHILDREN];
    static int64_t told_at[MAX_CHILDREN];
    for (int i = 0; i < n; i++) {
        uint64_t expected = 0;
        struct vigil_mailbox *m = mailbox_at(base, stride, i);
        told_at[i] = journal != NULL ? monotonic_nanos() : 0;
        __atomic_compare_exchange_n(&m->shutdown_word, &expected, close_epoch, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
        observed[i] = expected;
        /* the doorbell's parent half: full fence, then the child's sleeping flag (Dekker with the child's store) */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (__atomic_load_n(&m->doorbell_sleeping, __ATOMIC_SEQ_CST) == 1) {
            __atomic_fetch_add(&m->doorbell_ring, 1, __ATOMIC_SEQ_CST);
            syscall(SYS_futex, &m->doorbell_ring, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
            if (bell_write[i] >= 0 && write(bell_write[i], "!", 1) < 0) {
                /* a child gone already: its exit is what we wait for */
            }
        }
    }
    int64_t told = monotonic_nanos();
    for (int i = 0; i < n; i++) {
        journal_record("ShutdownPublished time=%lld pool=ref closeId=%llu group=g index=%d pid=%d channel=SHUTDOWN_WORD"
                " casWon=%d observed=%llu\n", (long long)told_at[i], (unsigned long long)close_epoch, i, pids[i],
                observed[i] == 0, (unsigned long long)observed[i]);
    }
    int live = n;
    int settled = 0;
    int failed = 0;
    int records = 0;
    int64_t last_reap = 0;
    static int reaped[MAX_CHILDREN];
    static int deferred[MAX_CHILDREN];
    int deferred_count = 0;
    while (live > 0) {
        int done = reap_ready_pidfds(n, pids, pidfds, reaped_at, CLOSE_BOUND_MILLIS, reaped);
        if (done == BENCH_POLL_TIMEOUT) {
            fprintf(stderr, "ERR: %d children still alive %d ms after the shutdown words\n", live, CLOSE_BOUND_MILLIS);
            for (int i = 0; i < n; i++) {
                if (reaped_at[i] == 0) {
                    kill(pids[i], SIGKILL);
                    waitpid(pids[i], NULL, 0);
                }
            }
            return 1;
        }
        if (done < 0) {
            return 1;
        }
        /* no fork of a reaped child may still map its mailbox: released now only while the container holds no more
         * than the children still running, else after the stray sweep */
        int release_now = cgroup == NULL || cgroup_members(cgroup) <= live - done;
        for (int r = 0; r < done; r++) {
            int i = reaped[r];
            last_reap = reaped_at[i];
            journal_record("ChildReaped time=%lld pool=ref closeId=%llu group=g index=%d pid=%d exitCode=0 signal=0"
                    " sinceBroadcast=%lld\n", (long long)reaped_at[i], (unsigned long long)close_epoch, i, pids[i],
                    (long long)(reaped_at[i] - start));
            if (bell_write[i] >= 0) {
                close(bell_write[i]);
            }
            live--;
            struct vigil_mailbox *m = mailbox_at(base, stride, i);
            if (!release_now) {
                deferred[deferred_count++] = i;
                continue;
            }
            release_mailbox(m, in_flight, &settled, &failed, &records, close_epoch, i, stride);
        }
    }
    if (cgroup != NULL && cgroup_members(cgroup) != 0) { /* the stray sweep */
        fprintf(stderr, "ERR: cgroup=%s not empty after the last reap\n", cgroup);
        return 1;
    }
    for (int d = 0; d < deferred_count; d++) {
        release_mailbox(mailbox_at(base, stride, deferred[d]), in_flight, &settled, &failed, &records, close_epoch,
                deferred[d], stride);
    }
    if (journal != NULL) {
        /* the report, as CloseReport's JSON */
        static char report[BENCH_MAX_CHILDREN * 160 + 256];
        int at = snprintf(report, sizeof report, "{\"poolId\":\"ref\",\"closeId\":%llu,\"outcome\":\"CLEAN\","
                "\"durationNanos\":%lld,\"children\":[", (unsigned long long)close_epoch,
                (long long)(monotonic_nanos() - start));
        for (int i = 0; i < n; i++) {
            at += snprintf(report + at, sizeof report - (size_t)at, "%s{\"group\":\"g\",\"index\":%d,\"pid\":%d,"
                    "\"kind\":\"C\",\"outcome\":\"EXITED\",\"exitCode\":0,\"signal\":0,\"sinceBroadcastNanos\":%lld}",
                    i == 0 ? "" : ",", i, pids[i], (long long)(reaped_at[i] - start));
        }
        snprintf(report + at, sizeof report - (size_t)at, "]}");
        journal_record("CloseCompleted time=%lld pool=ref closeId=%llu outcome=CLEAN reaped=%d report=%s\n",
                (long long)monotonic_nanos(), (unsigned long long)close_epoch, n, report);
    }
    if (cgroup != NULL && rmdir(cgroup) != 0) {
        fprintf(stderr, "ERR: rmdir cgroup=%s errno=%d (%s)\n", cgroup, errno, strerror(errno));
        return 1;
    }
    int64_t end = monotonic_nanos();
    if (cgroup == NULL && journal == NULL) {
        start = first_cas;
    }
    int64_t cpu = cpu_nanos() - cpu_start;
    printf("close_ns %lld\n", (long long)(end - start));
    printf("last_reap_ns %lld\n", (long long)(last_reap - start));
    printf("told_ns %lld\n", (long long)(told - start));
    printf("cpu_ns %lld\n", (long long)cpu);
    printf("settled %d failed %d\n", settled, failed);
    printf("ring_records %d\n", records);
    printf("journal_bytes %zu\n", journal_at);
    munmap(base, stride * (size_t)n);
    unlink(map_file);
    if (journal != NULL) {
        munmap(journal, JOURNAL_BYTES);
        unlink(journal_file);
    }
    return 0;
}
