/*
 * The mailbox layout, mirrored from dev.vigil.mailbox.MailboxDescriptor (the one place it is defined).
 * Every offset below is checked against the struct with _Static_assert(offsetof(...)), and
 * MailboxLayoutParityTest compares `vigil-demo-child --print-layout` with the Java constants.
 * Native byte order (little-endian on x86-64 / aarch64). Words are accessed with __atomic builtins:
 * *_acquire loads pair with release stores; transitions are compare-and-swap.
 */
#ifndef VIGIL_MAILBOX_H
#define VIGIL_MAILBOX_H

#include <stddef.h>
#include <stdint.h>

#define VIGIL_MAGIC                 0x31424D4C49474956ULL /* "VIGILMB1" little-endian */
#define VIGIL_LAYOUT_VERSION        2
#define VIGIL_CACHE_LINE_LENGTH     64
#define VIGIL_MAILBOX_ALIGNMENT     64

#define VIGIL_MAGIC_OFFSET          0
#define VIGIL_LAYOUT_VERSION_OFFSET 8
#define VIGIL_PROTOCOL_MODE_OFFSET  12
#define VIGIL_MAILBOX_LENGTH_OFFSET 16
#define VIGIL_RING_CAPACITY_OFFSET  20
#define VIGIL_SPAWN_EPOCH_OFFSET    24
#define VIGIL_PARENT_PID_OFFSET     32
#define VIGIL_CHILD_PID_OFFSET      36
#define VIGIL_RING_WAIT_NANOS_OFFSET 40
#define VIGIL_STATE_WORD_OFFSET     64
#define VIGIL_SHUTDOWN_WORD_OFFSET  128
#define VIGIL_SHUTDOWN_ACK_OFFSET   192
#define VIGIL_HEARTBEAT_OFFSET      200
#define VIGIL_COMMAND_ID_OFFSET     256
#define VIGIL_OPCODE_OFFSET         264
#define VIGIL_ARGUMENT_OFFSET       272
#define VIGIL_GATE_OFFSET           280
#define VIGIL_RESULT_ID_OFFSET      320
#define VIGIL_RESULT_VALUE_OFFSET   328
#define VIGIL_ERROR_CODE_OFFSET     336
#define VIGIL_ERROR_LENGTH_OFFSET   340
#define VIGIL_ERROR_TEXT_OFFSET     344
#define VIGIL_ERROR_TEXT_LENGTH     104
#define VIGIL_RING_HEAD_OFFSET      448
#define VIGIL_RING_CONSUMER_POSITION_OFFSET 512
#define VIGIL_RING_FLOW_CONTROL_OFFSET      520
#define VIGIL_DOORBELL_LINE_OFFSET  576
#define VIGIL_DOORBELL_SLEEPING_OFFSET 576 /* the child: 1 = asleep (or about to block) on the doorbell */
#define VIGIL_DOORBELL_RING_OFFSET  584 /* the parent: +1 per ring; the 32-bit futex word the child waits on */
#define VIGIL_RING_OFFSET           640
#define VIGIL_DEFAULT_RING_CAPACITY 1024 /* the ring's real capacity is the identity line's ring_capacity */
#define VIGIL_MIN_RING_CAPACITY     8
#define VIGIL_MAX_RING_CAPACITY     65536
#define VIGIL_DEFAULT_RING_WAIT_NANOS 1000000000LL
#define VIGIL_RING_RECORD_LENGTH    32
#define VIGIL_RECORD_TICKET_OFFSET  0
#define VIGIL_RECORD_SEQ_OFFSET     8
#define VIGIL_RECORD_TIME_OFFSET    16
#define VIGIL_RECORD_ORIGIN_OFFSET  24
#define VIGIL_DEFAULT_MAILBOX_LENGTH (VIGIL_RING_OFFSET + VIGIL_DEFAULT_RING_CAPACITY * VIGIL_RING_RECORD_LENGTH)

/* state word: bits 0-7 state | bits 8-15 writer role | bits 16-63 sequence */
#define VIGIL_STATE_BITS    8
#define VIGIL_WRITER_SHIFT  8
#define VIGIL_SEQ_SHIFT     16
#define VIGIL_SEQ_MASK      ((UINT64_C(1) << (64 - VIGIL_SEQ_SHIFT)) - 1)

enum vigil_state {
    VIGIL_IDLE = 0,
    VIGIL_TASK_READY = 1,
    VIGIL_TASK_DONE = 2,
    VIGIL_SHUTDOWN = 3, /* legacy mode only */
    VIGIL_CONTROL_REQUEST = 4,
    VIGIL_CONTROL_DONE = 5,
    VIGIL_INIT_READY = 6,
    VIGIL_INIT_FAILED = 7
};

enum vigil_writer_role { VIGIL_WRITER_NONE = 0, VIGIL_WRITER_PARENT = 1, VIGIL_WRITER_CHILD = 2, VIGIL_WRITER_CLOSER = 3 };

enum vigil_protocol_mode { VIGIL_PROTOCOL_STICKY = 0, VIGIL_PROTOCOL_LEGACY = 1 };

/* ring record; origin = from | to << 8 | writer << 16 | (uint64_t) writer_pid << 32 */
struct vigil_ring_record {
    uint64_t ticket; /* ticket + 1, stored last with release; 0 while being written */
    uint64_t seq;
    uint64_t time_nanos; /* CLOCK_MONOTONIC */
    uint64_t origin;
};

struct vigil_mailbox {
    /* line 0: identity, written by the parent at allocation (child_pid by the child) */
    uint64_t magic;
    uint32_t layout_version;
    uint32_t protocol_mode;
    uint32_t mailbox_length;
    uint32_t ring_capacity;
    uint64_t spawn_epoch;
    uint32_t parent_pid;
    uint32_t child_pid;
    uint64_t ring_wait_nanos; /* how long a writer waits for the drainer before it laps (flow control) */
    uint8_t reserved0[16];
    /* line 1 */
    uint64_t state_word;
    uint8_t pad1[56];
    /* line 2: the closer only, 0 -> epoch once */
    uint64_t shutdown_word;
    uint8_t pad2[56];
    /* line 3: the child only */
    uint64_t shutdown_ack;
    uint64_t heartbeat;
    uint8_t pad3[48];
    /* line 4: the parent only */
    uint64_t command_id;
    uint32_t opcode;
    uint32_t reserved4;
    uint64_t argument;
    uint64_t gate;
    uint8_t pad4[32];
    /* lines 5-6: the child only */
    uint64_t result_id;
    uint64_t result_value;
    uint32_t error_code;
    uint32_t error_length;
    char error_text[VIGIL_ERROR_TEXT_LENGTH];
    /* line 7: every transition writer (fetch-and-add) */
    uint64_t ring_head;
    uint8_t pad7[56];
    /* line 8: the parent's drainer only (release stores) */
    uint64_t ring_consumer_position; /* next ticket not yet drained */
    uint64_t ring_flow_control;      /* 1: do not lap the consumer position (wait, bounded) */
    uint8_t pad8[48];
    /* line 9: the doorbell (docs/MAILBOX.md, "The doorbell"); both words are touched only on the sleep path */
    uint64_t doorbell_sleeping; /* the child only: 1 while it is (about to be) blocked, SEQ_CST store */
    uint32_t doorbell_ring;     /* the parent only: fetch-and-add 1 per ring, then FUTEX_WAKE (shared, not private) */
    uint32_t reserved9;
    uint8_t pad9[48];
    struct vigil_ring_record ring[]; /* ring_capacity records, a power of two */
};

#define VIGIL_CHECK_OFFSET(field, offset) \
    _Static_assert(offsetof(struct vigil_mailbox, field) == (offset), #field " must be at " #offset)
VIGIL_CHECK_OFFSET(magic, VIGIL_MAGIC_OFFSET);
VIGIL_CHECK_OFFSET(layout_version, VIGIL_LAYOUT_VERSION_OFFSET);
VIGIL_CHECK_OFFSET(protocol_mode, VIGIL_PROTOCOL_MODE_OFFSET);
VIGIL_CHECK_OFFSET(mailbox_length, VIGIL_MAILBOX_LENGTH_OFFSET);
VIGIL_CHECK_OFFSET(ring_capacity, VIGIL_RING_CAPACITY_OFFSET);
VIGIL_CHECK_OFFSET(spawn_epoch, VIGIL_SPAWN_EPOCH_OFFSET);
VIGIL_CHECK_OFFSET(parent_pid, VIGIL_PARENT_PID_OFFSET);
VIGIL_CHECK_OFFSET(child_pid, VIGIL_CHILD_PID_OFFSET);
VIGIL_CHECK_OFFSET(ring_wait_nanos, VIGIL_RING_WAIT_NANOS_OFFSET);
VIGIL_CHECK_OFFSET(state_word, VIGIL_STATE_WORD_OFFSET);
VIGIL_CHECK_OFFSET(shutdown_word, VIGIL_SHUTDOWN_WORD_OFFSET);
VIGIL_CHECK_OFFSET(shutdown_ack, VIGIL_SHUTDOWN_ACK_OFFSET);
VIGIL_CHECK_OFFSET(heartbeat, VIGIL_HEARTBEAT_OFFSET);
VIGIL_CHECK_OFFSET(command_id, VIGIL_COMMAND_ID_OFFSET);
VIGIL_CHECK_OFFSET(opcode, VIGIL_OPCODE_OFFSET);
VIGIL_CHECK_OFFSET(argument, VIGIL_ARGUMENT_OFFSET);
VIGIL_CHECK_OFFSET(gate, VIGIL_GATE_OFFSET);
VIGIL_CHECK_OFFSET(result_id, VIGIL_RESULT_ID_OFFSET);
VIGIL_CHECK_OFFSET(result_value, VIGIL_RESULT_VALUE_OFFSET);
VIGIL_CHECK_OFFSET(error_code, VIGIL_ERROR_CODE_OFFSET);
VIGIL_CHECK_OFFSET(error_length, VIGIL_ERROR_LENGTH_OFFSET);
VIGIL_CHECK_OFFSET(error_text, VIGIL_ERROR_TEXT_OFFSET);
VIGIL_CHECK_OFFSET(ring_head, VIGIL_RING_HEAD_OFFSET);
VIGIL_CHECK_OFFSET(ring_consumer_position, VIGIL_RING_CONSUMER_POSITION_OFFSET);
VIGIL_CHECK_OFFSET(ring_flow_control, VIGIL_RING_FLOW_CONTROL_OFFSET);
VIGIL_CHECK_OFFSET(doorbell_sleeping, VIGIL_DOORBELL_LINE_OFFSET);
VIGIL_CHECK_OFFSET(doorbell_sleeping, VIGIL_DOORBELL_SLEEPING_OFFSET);
VIGIL_CHECK_OFFSET(doorbell_ring, VIGIL_DOORBELL_RING_OFFSET);
VIGIL_CHECK_OFFSET(ring, VIGIL_RING_OFFSET);
_Static_assert(offsetof(struct vigil_ring_record, ticket) == VIGIL_RECORD_TICKET_OFFSET, "record ticket");
_Static_assert(offsetof(struct vigil_ring_record, seq) == VIGIL_RECORD_SEQ_OFFSET, "record seq");
_Static_assert(offsetof(struct vigil_ring_record, time_nanos) == VIGIL_RECORD_TIME_OFFSET, "record time");
_Static_assert(offsetof(struct vigil_ring_record, origin) == VIGIL_RECORD_ORIGIN_OFFSET, "record origin");
_Static_assert(sizeof(struct vigil_ring_record) == VIGIL_RING_RECORD_LENGTH, "record length");
_Static_assert(sizeof(struct vigil_mailbox) == VIGIL_RING_OFFSET, "the ring ends the mailbox");

/* the length of a mailbox whose ring holds ring_capacity records */
static inline size_t vigil_mailbox_length(uint32_t ring_capacity)
{
    return (size_t) VIGIL_RING_OFFSET + (size_t) ring_capacity * VIGIL_RING_RECORD_LENGTH;
}

static inline int vigil_ring_capacity_valid(uint32_t ring_capacity)
{
    return ring_capacity >= VIGIL_MIN_RING_CAPACITY && ring_capacity <= VIGIL_MAX_RING_CAPACITY
           && (ring_capacity & (ring_capacity - 1)) == 0;
}

static inline uint64_t vigil_state_word(int state, int writer, uint64_t seq)
{
    return (seq & VIGIL_SEQ_MASK) << VIGIL_SEQ_SHIFT | (uint64_t) (writer & 0xFF) << VIGIL_WRITER_SHIFT | (uint64_t) (state & 0xFF);
}

static inline int vigil_word_state(uint64_t word) { return (int) (word & 0xFF); }
static inline int vigil_word_writer(uint64_t word) { return (int) ((word >> VIGIL_WRITER_SHIFT) & 0xFF); }
static inline uint64_t vigil_word_seq(uint64_t word) { return word >> VIGIL_SEQ_SHIFT; }

#endif
