/*
 * The C child runtime: attach to a mailbox handed off through VIGIL_* environment variables and run
 * the serve loop, the same protocol as dev.vigil.child.ChildRuntime (docs/MAILBOX.md, "The child's duties").
 */
#ifndef VIGIL_CHILD_H
#define VIGIL_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vigil/mailbox.h"

/* exit statuses, shared with dev.vigil.child.ChildExitCodes */
#define VIGIL_EXIT_SHUTDOWN      0
#define VIGIL_EXIT_ATTACH_FAILED 2
#define VIGIL_EXIT_INIT_FAILED   3
#define VIGIL_EXIT_PARENT_GONE   4

/* handler error codes, shared with dev.vigil.child.ChildCommandException */
#define VIGIL_ERROR_HANDLER_FAILED 1
#define VIGIL_ERROR_UNSUPPORTED    2

struct vigil_child {
    struct vigil_mailbox *mailbox;
    void *mapping;
    size_t mapping_length;
    int mode; /* enum vigil_protocol_mode */
    int32_t pid;
    int32_t parent_pid;      /* 0: not checked */
    uint64_t parent_check_nanos;
    uint64_t idle_spin_nanos;
    uint64_t sleep_nanos;    /* the bound of one doorbell sleep (VIGIL_CHILD_SLEEP_MILLIS, default 2000) */
    int honours_shutdown;    /* 0 only for tests: never look at the shutdown request */
    char error_text[VIGIL_ERROR_TEXT_LENGTH + 1]; /* a handler may fill it before returning an error code */
    uint32_t ring_capacity;  /* from the mailbox's identity line, checked at attach (layout version 2) */
    int doorbell;            /* 1 (default): an idle child sleeps on the doorbell; 0 (VIGIL_CHILD_DOORBELL=off): it polls */
    uint64_t ring_limit;     /* the consumer position last read + ring_capacity: tickets below it need no read */
};

struct vigil_child_handler {
    void *user;
    /* 0 = ready; anything else reports INIT_FAILED (error_text may say why) */
    int (*on_init)(struct vigil_child *child, void *user);
    /* return 0 and set *result, or a non-zero error code */
    int (*on_control)(struct vigil_child *child, void *user, int32_t opcode, int64_t argument, int64_t *result);
    int (*on_task)(struct vigil_child *child, void *user, int32_t opcode, int64_t argument, int64_t *result);
    /* finalization after shutdown was seen and acked; beat while it takes long */
    void (*on_shutdown)(struct vigil_child *child, void *user);
    int exit_code; /* status after a normal shutdown */
};

/* CLOCK_MONOTONIC in nanoseconds: the clock of ack stamps and ring records (same as Java's System.nanoTime). */
uint64_t vigil_now_nanos(void);

/* Maps the mailbox named by VIGIL_MAILBOX_FILE / VIGIL_MAILBOX_OFFSET, checks magic, layout version and protocol.
 * Returns 0, or -1 with a reason in err. */
int vigil_child_attach_env(struct vigil_child *child, char *err, size_t err_length);

/* Maps a mailbox directly (file, offset, mode); parent_pid 0 disables the parent check. */
int vigil_child_attach(struct vigil_child *child, const char *file, uint64_t offset, int mode, int32_t parent_pid, char *err, size_t err_length);

/* Runs the child until shutdown (or init failure, or a dead parent); returns the exit status. */
int vigil_child_serve(struct vigil_child *child, const struct vigil_child_handler *handler);

/* For handlers: true once shutdown is requested; also beats. */
int vigil_child_shutdown_requested(struct vigil_child *child);

/* For handlers: advance the heartbeat. */
void vigil_child_beat(struct vigil_child *child);

/* The demo/test gate word (acquire). */
uint64_t vigil_child_gate(const struct vigil_child *child);

void vigil_child_detach(struct vigil_child *child);

#endif
