/* The C child runtime: the protocol of docs/MAILBOX.md over mmap and __atomic builtins. */
#include "vigil/child.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_IDLE_SPIN_NANOS   10000ULL /* as IdleBackoff.DEFAULT_SPIN_NANOS */
#define IDLE_YIELD_NANOS          200000ULL
#define IDLE_MAX_PARK_NANOS       1000000ULL
#define DEFAULT_PARENT_CHECK_MILLIS 100ULL
#define DEFAULT_SLEEP_MILLIS      2000ULL /* a wake here is cheap; it also looks at the parent (getppid) */

uint64_t vigil_now_nanos(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static int fail(char *err, size_t err_length, const char *format, ...)
{
    if (err != NULL && err_length > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(err, err_length, format, args);
        va_end(args);
    }
    return -1;
}

static uint64_t env_number(const char *name, uint64_t fallback)
{
    const char *value = getenv(name);
    return value != NULL && *value != '\0' ? strtoull(value, NULL, 10) : fallback;
}

int vigil_child_attach(struct vigil_child *child, const char *file, uint64_t offset, int mode, int32_t parent_pid,
                       char *err, size_t err_length)
{
    memset(child, 0, sizeof(*child));
    if (offset % VIGIL_MAILBOX_ALIGNMENT != 0) {
        return fail(err, err_length, "mailbox offset not aligned: offset=%llu alignment=%d", (unsigned long long) offset, VIGIL_MAILBOX_ALIGNMENT);
    }
    int fd = open(file, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        return fail(err, err_length, "cannot open map file: file=%s error=%s", file, strerror(errno));
    }
    long page = sysconf(_SC_PAGESIZE);
    uint64_t start = offset & ~((uint64_t) page - 1);
    /* first the fixed part (identity line .. doorbell line), then, once the ring capacity is known, all of it */
    size_t length = (size_t) (offset - start) + VIGIL_RING_OFFSET;
    void *mapping = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t) start);
    int saved = errno;
    if (mapping == MAP_FAILED) {
        close(fd);
        return fail(err, err_length, "cannot map mailbox: file=%s offset=%llu error=%s", file, (unsigned long long) offset, strerror(saved));
    }
    struct vigil_mailbox *mailbox = (struct vigil_mailbox *) ((char *) mapping + (offset - start));
    child->mailbox = mailbox;
    child->mapping = mapping;
    child->mapping_length = length;
    uint64_t magic = __atomic_load_n(&mailbox->magic, __ATOMIC_ACQUIRE);
    if (magic != VIGIL_MAGIC) {
        close(fd);
        vigil_child_detach(child);
        return fail(err, err_length, "not a vigil mailbox: magic=0x%llx expected=0x%llx", (unsigned long long) magic, (unsigned long long) VIGIL_MAGIC);
    }
    uint32_t capacity = mailbox->ring_capacity;
    if (mailbox->layout_version != VIGIL_LAYOUT_VERSION || !vigil_ring_capacity_valid(capacity)
        || mailbox->mailbox_length != vigil_mailbox_length(capacity)) {
        int version = (int) mailbox->layout_version;
        unsigned length_found = mailbox->mailbox_length;
        close(fd);
        vigil_child_detach(child);
        return fail(err, err_length, "layout mismatch: layoutVersion=%d expected=%d mailboxLength=%u ringCapacity=%u", version,
                    VIGIL_LAYOUT_VERSION, length_found, (unsigned) capacity);
    }
    munmap(mapping, length);
    length = (size_t) (offset - start) + vigil_mailbox_length(capacity);
    mapping = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t) start);
    saved = errno;
    close(fd);
    child->mailbox = NULL;
    child->mapping = NULL;
    if (mapping == MAP_FAILED) {
        return fail(err, err_length, "cannot map mailbox: file=%s offset=%llu length=%zu error=%s", file, (unsigned long long) offset, length,
                    strerror(saved));
    }
    mailbox = (struct vigil_mailbox *) ((char *) mapping + (offset - start));
    child->mailbox = mailbox;
    child->mapping = mapping;
    child->mapping_length = length;
    child->ring_capacity = capacity;
    if ((int) mailbox->protocol_mode != mode) {
        int found = (int) mailbox->protocol_mode;
        vigil_child_detach(child);
        return fail(err, err_length, "protocol mismatch: requested=%d mailbox=%d", mode, found);
    }
    child->mode = mode;
    child->pid = (int32_t) getpid();
    child->parent_pid = parent_pid;
    child->parent_check_nanos = env_number("VIGIL_CHILD_PARENT_CHECK_MILLIS", DEFAULT_PARENT_CHECK_MILLIS) * 1000000ULL;
    child->idle_spin_nanos = env_number("VIGIL_CHILD_SPIN_NANOS", DEFAULT_IDLE_SPIN_NANOS);
    child->sleep_nanos = env_number("VIGIL_CHILD_SLEEP_MILLIS", DEFAULT_SLEEP_MILLIS) * 1000000ULL;
    child->honours_shutdown = 1;
    const char *doorbell = getenv("VIGIL_CHILD_DOORBELL");
    child->doorbell = doorbell == NULL || strcasecmp(doorbell, "off") != 0;
    return 0;
}

int vigil_child_attach_env(struct vigil_child *child, char *err, size_t err_length)
{
    const char *file = getenv("VIGIL_MAILBOX_FILE");
    const char *offset = getenv("VIGIL_MAILBOX_OFFSET");
    const char *version = getenv("VIGIL_LAYOUT_VERSION");
    const char *parent = getenv("VIGIL_PARENT_PID");
    const char *protocol = getenv("VIGIL_PROTOCOL");
    if (file == NULL || offset == NULL || version == NULL || parent == NULL) {
        memset(child, 0, sizeof(*child));
        return fail(err, err_length, "missing environment variable: name=%s",
                    file == NULL ? "VIGIL_MAILBOX_FILE" : offset == NULL ? "VIGIL_MAILBOX_OFFSET" : version == NULL ? "VIGIL_LAYOUT_VERSION" : "VIGIL_PARENT_PID");
    }
    if (atoi(version) != VIGIL_LAYOUT_VERSION) {
        memset(child, 0, sizeof(*child));
        return fail(err, err_length, "layout version mismatch: VIGIL_LAYOUT_VERSION=%s supported=%d", version, VIGIL_LAYOUT_VERSION);
    }
    int mode = VIGIL_PROTOCOL_STICKY;
    if (protocol != NULL && strcasecmp(protocol, "legacy") == 0) {
        mode = VIGIL_PROTOCOL_LEGACY;
    } else if (protocol != NULL && *protocol != '\0' && strcasecmp(protocol, "sticky") != 0) {
        memset(child, 0, sizeof(*child));
        return fail(err, err_length, "unknown protocol mode: VIGIL_PROTOCOL=%s", protocol);
    }
    if (vigil_child_attach(child, file, strtoull(offset, NULL, 10), mode, (int32_t) atoi(parent), err, err_length) != 0) {
        return -1;
    }
    const char *length = getenv("VIGIL_MAILBOX_LENGTH");
    if (length != NULL && *length != '\0' && strtoull(length, NULL, 10) != child->mailbox->mailbox_length) {
        unsigned found = child->mailbox->mailbox_length;
        vigil_child_detach(child);
        return fail(err, err_length, "mailbox length mismatch: VIGIL_MAILBOX_LENGTH=%s mailbox=%u", length, found);
    }
    return 0;
}

void vigil_child_detach(struct vigil_child *child)
{
    if (child->mapping != NULL) {
        munmap(child->mapping, child->mapping_length);
    }
    child->mapping = NULL;
    child->mailbox = NULL;
}

/* ------------------------------------------------------------------ words */

void vigil_child_beat(struct vigil_child *child)
{
    __atomic_fetch_add(&child->mailbox->heartbeat, 1, __ATOMIC_RELEASE);
}

uint64_t vigil_child_gate(const struct vigil_child *child)
{
    return __atomic_load_n(&child->mailbox->gate, __ATOMIC_ACQUIRE);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

struct idle_backoff {
    uint64_t spin_nanos;
    uint64_t idle_since;
    uint64_t park_nanos;
};

static void idle_reset(struct idle_backoff *idle)
{
    idle->idle_since = 0;
    idle->park_nanos = 1000;
}

static void idle_step(struct idle_backoff *idle)
{
    uint64_t now = vigil_now_nanos();
    if (idle->idle_since == 0) {
        idle->idle_since = now;
    }
    uint64_t idle_for = now - idle->idle_since;
    if (idle_for < idle->spin_nanos) {
        cpu_relax();
    } else if (idle_for < idle->spin_nanos + IDLE_YIELD_NANOS) {
        sched_yield();
    } else {
        struct timespec ts = {0, (long) idle->park_nanos};
        nanosleep(&ts, NULL);
        idle->park_nanos = idle->park_nanos * 2 > IDLE_MAX_PARK_NANOS ? IDLE_MAX_PARK_NANOS : idle->park_nanos * 2;
    }
}

/* Past the spin and yield phases: an idle child with a doorbell sleeps on it from here on. */
static int idle_drowsy(struct idle_backoff *idle)
{
    uint64_t now = vigil_now_nanos();
    if (idle->idle_since == 0) {
        idle->idle_since = now;
    }
    return now - idle->idle_since >= idle->spin_nanos + IDLE_YIELD_NANOS;
}

static int shutdown_visible(struct vigil_child *child);

/* A request or (if honoured) a shutdown is there. SEQ_CST loads: the re-check after the sleeping flag's store. */
static int work_visible(struct vigil_child *child)
{
    struct vigil_mailbox *mailbox = child->mailbox;
    int state = vigil_word_state(__atomic_load_n(&mailbox->state_word, __ATOMIC_SEQ_CST));
    if (state == VIGIL_CONTROL_REQUEST || state == VIGIL_TASK_READY) {
        return 1;
    }
    return child->honours_shutdown && (child->mode == VIGIL_PROTOCOL_STICKY ? __atomic_load_n(&mailbox->shutdown_word, __ATOMIC_SEQ_CST) != 0
                                                                             : state == VIGIL_SHUTDOWN);
}

/*
 * The doorbell (docs/MAILBOX.md, "The doorbell"; io_uring's SQ_NEED_WAKEUP): read the ring count, announce the sleep
 * (SEQ_CST store), re-check for work (SEQ_CST loads: the parent publishes, fences, then reads the flag: one of the two
 * sides sees the other), and only then block on the ring word. FUTEX_WAIT without FUTEX_PRIVATE_FLAG: the word is in
 * a shared file mapping, the parent's FUTEX_WAKE reaches it through its own mapping. A ring between the count's read
 * and the wait changes the word, so the wait returns at once (EAGAIN): no lost wake-up. Bounded by timeout_nanos.
 */
static int doorbell_sleep(struct vigil_child *child, uint64_t timeout_nanos)
{
    struct vigil_mailbox *mailbox = child->mailbox;
    uint32_t rung = __atomic_load_n(&mailbox->doorbell_ring, __ATOMIC_ACQUIRE);
    __atomic_store_n(&mailbox->doorbell_sleeping, 1, __ATOMIC_SEQ_CST);
    if (!work_visible(child)) {
        struct timespec ts = {(time_t) (timeout_nanos / 1000000000ULL), (long) (timeout_nanos % 1000000000ULL)};
        syscall(SYS_futex, &mailbox->doorbell_ring, FUTEX_WAIT, rung, &ts, NULL, 0);
    }
    __atomic_store_n(&mailbox->doorbell_sleeping, 0, __ATOMIC_RELEASE);
    return 1;
}

static int ring_full(const struct vigil_mailbox *mailbox, uint64_t ticket, uint32_t capacity)
{
    return __atomic_load_n(&mailbox->ring_flow_control, __ATOMIC_ACQUIRE) != 0
           && ticket - __atomic_load_n(&mailbox->ring_consumer_position, __ATOMIC_ACQUIRE) >= capacity;
}

/* A ticket below the cached limit has room whatever the drainer did since (its position only grows, so the limit
 * is at most its own), and flow control off never waits: line 8, which the drainer writes every piece, is read only
 * at the limit (Aeron's publisher limit). Signed: a stale limit may trail the ticket by a lot, never the reverse. */
static int ring_past_limit(struct vigil_child *child, uint64_t ticket)
{
    if ((int64_t) (ticket - child->ring_limit) < 0) {
        return 0;
    }
    if (__atomic_load_n(&child->mailbox->ring_flow_control, __ATOMIC_ACQUIRE) == 0) {
        return 0;
    }
    child->ring_limit = __atomic_load_n(&child->mailbox->ring_consumer_position, __ATOMIC_ACQUIRE) + child->ring_capacity;
    return (int64_t) (ticket - child->ring_limit) >= 0;
}

/* Flow control (docs/MAILBOX.md): wait, beating, until the parent has drained the record in this ticket's slot, for at
 * most ring_wait_nanos (spin, yield, then sleep); the condition is checked before the clock. Then lap: the drainer
 * journals the overwritten record's seq as lost. Same as MappedMailbox.awaitRingSpace. */
static void await_ring_space(struct vigil_child *child, uint64_t ticket)
{
    struct vigil_mailbox *mailbox = child->mailbox;
    uint64_t bound = mailbox->ring_wait_nanos;
    uint64_t start = vigil_now_nanos();
    struct idle_backoff backoff = {DEFAULT_IDLE_SPIN_NANOS, 0, 1000};
    while (ring_full(mailbox, ticket, child->ring_capacity)) {
        if (vigil_now_nanos() - start >= bound) {
            return;
        }
        vigil_child_beat(child);
        idle_step(&backoff);
    }
}

static void record_transition(struct vigil_child *child, uint64_t seq, uint64_t time, int from, int to, int writer, int32_t pid)
{
    struct vigil_mailbox *mailbox = child->mailbox;
    uint64_t ticket = __atomic_fetch_add(&mailbox->ring_head, 1, __ATOMIC_SEQ_CST);
    if (ring_past_limit(child, ticket)) {
        await_ring_space(child, ticket);
    }
    struct vigil_ring_record *record = &mailbox->ring[ticket & (child->ring_capacity - 1)];
    __atomic_store_n(&record->ticket, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE); /* the busy mark is visible before any body byte changes */
    __atomic_store_n(&record->seq, seq, __ATOMIC_RELAXED);
    __atomic_store_n(&record->time_nanos, time, __ATOMIC_RELAXED);
    __atomic_store_n(&record->origin, (uint64_t) (from & 0xFF) | (uint64_t) (to & 0xFF) << 8 | (uint64_t) (writer & 0xFF) << 16
                                          | (uint64_t) (uint32_t) pid << 32, __ATOMIC_RELAXED);
    __atomic_store_n(&record->ticket, ticket + 1, __ATOMIC_RELEASE);
}

/* sticky: CAS from exactly read_word; legacy: plain release store computed from read_word. Returns 0 on success. */
static int transition(struct vigil_child *child, uint64_t read_word, int to_state)
{
    struct vigil_mailbox *mailbox = child->mailbox;
    uint64_t next = vigil_state_word(to_state, VIGIL_WRITER_CHILD, vigil_word_seq(read_word) + 1);
    if (child->mode == VIGIL_PROTOCOL_STICKY) {
        uint64_t expected = read_word;
        if (!__atomic_compare_exchange_n(&mailbox->state_word, &expected, next, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            return -1;
        }
    } else {
        __atomic_store_n(&mailbox->state_word, next, __ATOMIC_RELEASE);
    }
    record_transition(child, vigil_word_seq(next), vigil_now_nanos(), vigil_word_state(read_word), to_state, VIGIL_WRITER_CHILD, child->pid);
    return 0;
}

static int shutdown_visible(struct vigil_child *child)
{
    if (child->mode == VIGIL_PROTOCOL_STICKY) {
        return __atomic_load_n(&child->mailbox->shutdown_word, __ATOMIC_ACQUIRE) != 0;
    }
    return vigil_word_state(__atomic_load_n(&child->mailbox->state_word, __ATOMIC_ACQUIRE)) == VIGIL_SHUTDOWN;
}

int vigil_child_shutdown_requested(struct vigil_child *child)
{
    vigil_child_beat(child);
    return child->honours_shutdown && shutdown_visible(child);
}

static void write_result(struct vigil_child *child, uint64_t command_id, int64_t value, int error_code)
{
    struct vigil_mailbox *mailbox = child->mailbox;
    mailbox->result_id = command_id;
    mailbox->result_value = (uint64_t) value;
    mailbox->error_code = (uint32_t) error_code;
    size_t length = error_code == 0 ? 0 : strnlen(child->error_text, VIGIL_ERROR_TEXT_LENGTH);
    memcpy(mailbox->error_text, child->error_text, length);
    mailbox->error_length = (uint32_t) length;
    child->error_text[0] = '\0';
}

/* ------------------------------------------------------------------ serve loop */

static void serve(struct vigil_child *child, const struct vigil_child_handler *handler, uint64_t request_word, int control)
{
    struct vigil_mailbox *mailbox = child->mailbox;
    uint64_t command_id = mailbox->command_id;
    int32_t opcode = (int32_t) mailbox->opcode;
    int64_t argument = (int64_t) mailbox->argument;
    int64_t value = 0;
    int (*call)(struct vigil_child *, void *, int32_t, int64_t, int64_t *) = control ? handler->on_control : handler->on_task;
    int error_code;
    if (call == NULL) {
        snprintf(child->error_text, sizeof(child->error_text), "%s not supported by this child", control ? "control" : "task");
        error_code = VIGIL_ERROR_UNSUPPORTED;
    } else {
        error_code = call(child, handler->user, opcode, argument, &value);
    }
    write_result(child, command_id, value, error_code);
    if (transition(child, request_word, control ? VIGIL_CONTROL_DONE : VIGIL_TASK_DONE) != 0) {
        fprintf(stderr, "vigil child: state word changed while a command ran: pid=%d expected=%llx found=%llx\n", (int) child->pid,
                (unsigned long long) request_word, (unsigned long long) __atomic_load_n(&mailbox->state_word, __ATOMIC_ACQUIRE));
    }
}

int vigil_child_serve(struct vigil_child *child, const struct vigil_child_handler *handler)
{
    struct vigil_mailbox *mailbox = child->mailbox;
    __atomic_store_n(&mailbox->child_pid, (uint32_t) child->pid, __ATOMIC_RELEASE);
    if (handler->on_init != NULL && handler->on_init(child, handler->user) != 0) {
        if (child->error_text[0] == '\0') {
            snprintf(child->error_text, sizeof(child->error_text), "init failed");
        }
        fprintf(stderr, "vigil child: init failed: pid=%d error=%s\n", (int) child->pid, child->error_text);
        write_result(child, 0, 0, VIGIL_ERROR_HANDLER_FAILED);
        for (int attempt = 0; attempt < 1000; attempt++) {
            if (transition(child, __atomic_load_n(&mailbox->state_word, __ATOMIC_ACQUIRE), VIGIL_INIT_FAILED) == 0) {
                break;
            }
        }
        return VIGIL_EXIT_INIT_FAILED;
    }
    uint64_t initial = __atomic_load_n(&mailbox->state_word, __ATOMIC_ACQUIRE);
    if (vigil_word_state(initial) == VIGIL_IDLE && vigil_word_seq(initial) == 0) {
        transition(child, initial, VIGIL_INIT_READY); /* failing means the parent already placed a command */
    }
    struct idle_backoff idle = {child->idle_spin_nanos, 0, 1000};
    int woken = 0;
    uint64_t next_parent_check = vigil_now_nanos() + child->parent_check_nanos;
    for (;;) {
        vigil_child_beat(child);
        if (child->honours_shutdown && shutdown_visible(child)) {
            uint64_t zero = 0;
            uint64_t now = vigil_now_nanos();
            __atomic_compare_exchange_n(&mailbox->shutdown_ack, &zero, now == 0 ? 1 : now, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            if (handler->on_shutdown != NULL) {
                handler->on_shutdown(child, handler->user);
            }
            vigil_child_beat(child);
            return handler->exit_code;
        }
        uint64_t word = __atomic_load_n(&mailbox->state_word, __ATOMIC_ACQUIRE);
        int state = vigil_word_state(word);
        if (state == VIGIL_CONTROL_REQUEST || state == VIGIL_TASK_READY) {
            serve(child, handler, word, state == VIGIL_CONTROL_REQUEST);
            if (woken) {
                /* a parent that shares our core since our wake-up sees the answer now, not after our spin */
                sched_yield();
                woken = 0;
            }
            idle_reset(&idle);
            continue;
        }
        uint64_t now = vigil_now_nanos();
        if (now >= next_parent_check) {
            if (child->parent_pid > 0 && getppid() != child->parent_pid) {
                fprintf(stderr, "vigil child: parent gone, exiting: pid=%d status=%d\n", (int) child->pid, VIGIL_EXIT_PARENT_GONE);
                return VIGIL_EXIT_PARENT_GONE;
            }
            next_parent_check = now + child->parent_check_nanos;
        }
        if (child->doorbell && idle_drowsy(&idle)) {
            /* asleep until rung, at most sleep_nanos: then the loop beats and checks the parent (pool children also
             * have the shim's PR_SET_PDEATHSIG) */
            woken = doorbell_sleep(child, child->sleep_nanos);
        } else {
            idle_step(&idle);
        }
    }
}
