/*
 * vigil-demo-child: the C twin of dev.vigil.child.demo.DemoHandler, for tests and demos.
 * Same opcodes and the same settings, as flags or VIGIL_DEMO_* environment variables (flags win): HELP below,
 * printed by --help.
 */
#include "vigil/child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define OP_ECHO 1
#define OP_PIPE_PINGPONG 2
#define OP_FAIL 3
#define OP_EXIT 4
#define OP_COOPERATIVE_SLEEP 5
#define OP_BLOCKING_SLEEP 6

struct demo {
    uint64_t delay_micros;
    int gate;
    uint64_t teardown_millis;
    int teardown_beats;
    int ignore_shutdown;
    int exit_code;
    int fail_init;
};

/*
 * The first setting that was not well formed (a number in decimal digits, a flag 1/0, true/false or yes/no, as
 * dev.vigil.child.demo.DemoBehaviour reads them), reported as INIT_FAILED with this text. Before, "200ms" read as
 * 200, "-5" wrapped to 2^64 - 5 and a flag "on" read as off.
 */
static char setting_error[sizeof(((struct vigil_child *) 0)->error_text)];

static void setting_wrong(const char *name, const char *value, const char *must)
{
    if (setting_error[0] == '\0') {
        if (snprintf(setting_error, sizeof(setting_error), "%s: not %s: '%s'", name, must, value) >= (int) sizeof(setting_error)) {
            setting_error[sizeof(setting_error) - 2] = '~'; /* cut to the mailbox's error text: a long value */
        }
    }
}

static void sleep_nanos(uint64_t nanos)
{
    struct timespec ts = {(time_t) (nanos / 1000000000ULL), (long) (nanos % 1000000000ULL)};
    nanosleep(&ts, NULL);
}

static int demo_init(struct vigil_child *child, void *user)
{
    struct demo *demo = user;
    if (setting_error[0] != '\0') {
        memcpy(child->error_text, setting_error, sizeof(setting_error));
        return -1;
    }
    if (demo->fail_init) {
        snprintf(child->error_text, sizeof(child->error_text), "demo init failure requested (VIGIL_DEMO_FAIL_INIT)");
        return -1;
    }
    return 0;
}

static int demo_command(struct vigil_child *child, void *user, int32_t opcode, int64_t argument, int64_t *result)
{
    struct demo *demo = user;
    if (demo->gate) {
        uint64_t park = 1000;
        while (vigil_child_gate(child) == 0) {
            sleep_nanos(park);
            park = park * 2 > 1000000 ? 1000000 : park * 2;
        }
    }
    if (demo->delay_micros > 0) {
        sleep_nanos(demo->delay_micros * 1000ULL);
    }
    switch (opcode) {
    case OP_ECHO:
        *result = argument;
        return 0;
    case OP_PIPE_PINGPONG: {
        int64_t i;
        for (i = 0; i < argument; i++) {
            unsigned char b;
            if (read(STDIN_FILENO, &b, 1) != 1 || write(STDOUT_FILENO, &b, 1) != 1) {
                break;
            }
        }
        *result = i;
        return 0;
    }
    case OP_FAIL:
        snprintf(child->error_text, sizeof(child->error_text), "demo failure requested");
        return argument > 0 ? (int) argument : 1;
    case OP_EXIT:
        _exit((int) argument);
    case OP_BLOCKING_SLEEP:
        /* a device call: neither beats nor looks at shutdown until it returns */
        sleep_nanos((uint64_t) argument * 1000000ULL);
        *result = 0;
        return 0;
    case OP_COOPERATIVE_SLEEP: {
        uint64_t until = vigil_now_nanos() + (uint64_t) argument * 1000000ULL;
        while (vigil_now_nanos() < until) {
            if (vigil_child_shutdown_requested(child)) {
                *result = 1;
                return 0;
            }
            sleep_nanos(1000000);
        }
        *result = 0;
        return 0;
    }
    default:
        snprintf(child->error_text, sizeof(child->error_text), "unknown demo opcode: opcode=%d", (int) opcode);
        return VIGIL_ERROR_UNSUPPORTED;
    }
}

static void demo_shutdown(struct vigil_child *child, void *user)
{
    struct demo *demo = user;
    uint64_t until = vigil_now_nanos() + demo->teardown_millis * 1000000ULL;
    while (vigil_now_nanos() < until) {
        if (demo->teardown_beats) {
            vigil_child_beat(child);
        }
        uint64_t left = until - vigil_now_nanos();
        sleep_nanos(left < 10000000ULL ? left : 10000000ULL);
    }
}

/* value without its leading and trailing blanks, into buf (as DemoBehaviour trims); "" when it is blank or too long */
static const char *trimmed(const char *value, char *buf, size_t size)
{
    buf[0] = '\0';
    if (value == NULL) {
        return buf;
    }
    while (*value == ' ' || *value == '\t') {
        value++;
    }
    size_t n = strlen(value);
    while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t')) {
        n--;
    }
    if (n < size) {
        memcpy(buf, value, n);
        buf[n] = '\0';
    } else {
        snprintf(buf, size, "%s", "(too long)");
    }
    return buf;
}

static int parse_flag(const char *name, const char *raw, int fallback)
{
    char buf[64];
    const char *value = trimmed(raw, buf, sizeof(buf));
    if (*value == '\0') {
        return fallback;
    }
    if (strcmp(value, "1") == 0 || strcasecmp(value, "true") == 0 || strcasecmp(value, "yes") == 0) {
        return 1;
    }
    if (strcmp(value, "0") == 0 || strcasecmp(value, "false") == 0 || strcasecmp(value, "no") == 0) {
        return 0;
    }
    setting_wrong(name, value, "1/0, true/false or yes/no");
    return fallback;
}

static uint64_t parse_number(const char *name, const char *raw, uint64_t fallback, uint64_t max, const char *unit)
{
    char buf[64];
    const char *value = trimmed(raw, buf, sizeof(buf));
    if (*value == '\0') {
        return fallback;
    }
    uint64_t n = 0;
    const char *p = value;
    for (; *p >= '0' && *p <= '9' && p - value < 18; p++) {
        n = n * 10 + (uint64_t) (*p - '0');
    }
    if (p == value || *p != '\0' || n > max) {
        char must[120];
        snprintf(must, sizeof(must), "a whole number (%s, 0..%llu)", unit, (unsigned long long) max);
        setting_wrong(name, value, must);
        return fallback;
    }
    return n;
}

static int env_flag(const char *name, int fallback)
{
    return parse_flag(name, getenv(name), fallback);
}

#define MAX_DELAY_MICROS (9223372036854775807ULL / 1000)
#define MAX_TEARDOWN_MILLIS (9223372036854775807ULL / 1000000)

#define LAYOUT(name, value) printf("%s=%lld\n", name, (long long) (value))

static void print_layout(void)
{
    printf("MAGIC=%lld\n", (long long) VIGIL_MAGIC);
    LAYOUT("LAYOUT_VERSION", VIGIL_LAYOUT_VERSION);
    LAYOUT("CACHE_LINE_LENGTH", VIGIL_CACHE_LINE_LENGTH);
    LAYOUT("MAILBOX_ALIGNMENT", VIGIL_MAILBOX_ALIGNMENT);
    LAYOUT("MAGIC_OFFSET", offsetof(struct vigil_mailbox, magic));
    LAYOUT("LAYOUT_VERSION_OFFSET", offsetof(struct vigil_mailbox, layout_version));
    LAYOUT("PROTOCOL_MODE_OFFSET", offsetof(struct vigil_mailbox, protocol_mode));
    LAYOUT("MAILBOX_LENGTH_OFFSET", offsetof(struct vigil_mailbox, mailbox_length));
    LAYOUT("RING_CAPACITY_OFFSET", offsetof(struct vigil_mailbox, ring_capacity));
    LAYOUT("SPAWN_EPOCH_OFFSET", offsetof(struct vigil_mailbox, spawn_epoch));
    LAYOUT("PARENT_PID_OFFSET", offsetof(struct vigil_mailbox, parent_pid));
    LAYOUT("CHILD_PID_OFFSET", offsetof(struct vigil_mailbox, child_pid));
    LAYOUT("RING_WAIT_NANOS_OFFSET", offsetof(struct vigil_mailbox, ring_wait_nanos));
    LAYOUT("DEFAULT_RING_WAIT_NANOS", VIGIL_DEFAULT_RING_WAIT_NANOS);
    LAYOUT("STATE_WORD_OFFSET", offsetof(struct vigil_mailbox, state_word));
    LAYOUT("SHUTDOWN_WORD_OFFSET", offsetof(struct vigil_mailbox, shutdown_word));
    LAYOUT("SHUTDOWN_ACK_OFFSET", offsetof(struct vigil_mailbox, shutdown_ack));
    LAYOUT("HEARTBEAT_OFFSET", offsetof(struct vigil_mailbox, heartbeat));
    LAYOUT("COMMAND_ID_OFFSET", offsetof(struct vigil_mailbox, command_id));
    LAYOUT("OPCODE_OFFSET", offsetof(struct vigil_mailbox, opcode));
    LAYOUT("ARGUMENT_OFFSET", offsetof(struct vigil_mailbox, argument));
    LAYOUT("GATE_OFFSET", offsetof(struct vigil_mailbox, gate));
    LAYOUT("RESULT_ID_OFFSET", offsetof(struct vigil_mailbox, result_id));
    LAYOUT("RESULT_VALUE_OFFSET", offsetof(struct vigil_mailbox, result_value));
    LAYOUT("ERROR_CODE_OFFSET", offsetof(struct vigil_mailbox, error_code));
    LAYOUT("ERROR_LENGTH_OFFSET", offsetof(struct vigil_mailbox, error_length));
    LAYOUT("ERROR_TEXT_OFFSET", offsetof(struct vigil_mailbox, error_text));
    LAYOUT("ERROR_TEXT_LENGTH", sizeof(((struct vigil_mailbox *) 0)->error_text));
    LAYOUT("RING_HEAD_OFFSET", offsetof(struct vigil_mailbox, ring_head));
    LAYOUT("RING_CONSUMER_POSITION_OFFSET", offsetof(struct vigil_mailbox, ring_consumer_position));
    LAYOUT("RING_FLOW_CONTROL_OFFSET", offsetof(struct vigil_mailbox, ring_flow_control));
    LAYOUT("DOORBELL_LINE_OFFSET", offsetof(struct vigil_mailbox, doorbell_sleeping));
    LAYOUT("DOORBELL_SLEEPING_OFFSET", offsetof(struct vigil_mailbox, doorbell_sleeping));
    LAYOUT("DOORBELL_RING_OFFSET", offsetof(struct vigil_mailbox, doorbell_ring));
    LAYOUT("RING_OFFSET", offsetof(struct vigil_mailbox, ring));
    LAYOUT("DEFAULT_RING_CAPACITY", VIGIL_DEFAULT_RING_CAPACITY);
    LAYOUT("MIN_RING_CAPACITY", VIGIL_MIN_RING_CAPACITY);
    LAYOUT("MAX_RING_CAPACITY", VIGIL_MAX_RING_CAPACITY);
    LAYOUT("RING_RECORD_LENGTH", sizeof(struct vigil_ring_record));
    LAYOUT("RECORD_TICKET_OFFSET", offsetof(struct vigil_ring_record, ticket));
    LAYOUT("RECORD_SEQ_OFFSET", offsetof(struct vigil_ring_record, seq));
    LAYOUT("RECORD_TIME_OFFSET", offsetof(struct vigil_ring_record, time_nanos));
    LAYOUT("RECORD_ORIGIN_OFFSET", offsetof(struct vigil_ring_record, origin));
    LAYOUT("DEFAULT_MAILBOX_LENGTH", vigil_mailbox_length(VIGIL_DEFAULT_RING_CAPACITY));
    LAYOUT("STATE_BITS", VIGIL_STATE_BITS);
    LAYOUT("WRITER_SHIFT", VIGIL_WRITER_SHIFT);
    LAYOUT("SEQ_SHIFT", VIGIL_SEQ_SHIFT);
    LAYOUT("SEQ_MASK", VIGIL_SEQ_MASK);
    LAYOUT("state.IDLE", VIGIL_IDLE);
    LAYOUT("state.TASK_READY", VIGIL_TASK_READY);
    LAYOUT("state.TASK_DONE", VIGIL_TASK_DONE);
    LAYOUT("state.SHUTDOWN", VIGIL_SHUTDOWN);
    LAYOUT("state.CONTROL_REQUEST", VIGIL_CONTROL_REQUEST);
    LAYOUT("state.CONTROL_DONE", VIGIL_CONTROL_DONE);
    LAYOUT("state.INIT_READY", VIGIL_INIT_READY);
    LAYOUT("state.INIT_FAILED", VIGIL_INIT_FAILED);
    LAYOUT("writer.PARENT", VIGIL_WRITER_PARENT);
    LAYOUT("writer.CHILD", VIGIL_WRITER_CHILD);
    LAYOUT("writer.CLOSER", VIGIL_WRITER_CLOSER);
    LAYOUT("protocol.STICKY", VIGIL_PROTOCOL_STICKY);
    LAYOUT("protocol.LEGACY", VIGIL_PROTOCOL_LEGACY);
    LAYOUT("exit.SHUTDOWN", VIGIL_EXIT_SHUTDOWN);
    LAYOUT("exit.ATTACH_FAILED", VIGIL_EXIT_ATTACH_FAILED);
    LAYOUT("exit.INIT_FAILED", VIGIL_EXIT_INIT_FAILED);
    LAYOUT("exit.PARENT_GONE", VIGIL_EXIT_PARENT_GONE);
}

#define USAGE "usage: vigil-demo-child [--help] [--print-layout] [--delay-us N] [--gate] [--teardown-ms N] " \
              "[--teardown-no-beat] [--ignore-shutdown] [--exit-code N] [--fail-init]\n"

/* What --help prints: every setting as a flag and as its VIGIL_DEMO_* variable (a spec group's env), and the opcodes. */
static const char HELP[] =
    USAGE
    "A mailbox child for tests and demos, started by a pool (kind c); the same settings as flags or environment\n"
    "variables (flags win):\n"
    "  --delay-us N        every command takes N microseconds (not beating)        VIGIL_DEMO_DELAY_MICROS=N\n"
    "  --gate              every command blocks until the mailbox gate word is set VIGIL_DEMO_GATE=1\n"
    "  --teardown-ms N     finalization takes N ms, beating every 10 ms            VIGIL_DEMO_TEARDOWN_MILLIS=N\n"
    "  --teardown-no-beat  finalize without beating                                VIGIL_DEMO_TEARDOWN_BEAT=0\n"
    "  --ignore-shutdown   never look at the shutdown request                      VIGIL_DEMO_IGNORE_SHUTDOWN=1\n"
    "  --exit-code N       exit status after shutdown (0..255)                     VIGIL_DEMO_EXIT_CODE=N\n"
    "  --fail-init         report INIT_FAILED                                      VIGIL_DEMO_FAIL_INIT=1\n"
    "  --print-layout      print the mailbox layout as NAME=value lines and exit (parity test)\n"
    "Opcodes: 1 echo, 2 pipe ping-pong on stdin/stdout, 3 fail with code argument, 4 exit now with status argument,\n"
    "5 sleep argument ms polling shutdown.\n";

static int usage(const char *message)
{
    fprintf(stderr, "ERR: %s\n" USAGE, message);
    return VIGIL_EXIT_ATTACH_FAILED;
}

int main(int argc, char **argv)
{
    struct demo demo = {
        parse_number("VIGIL_DEMO_DELAY_MICROS", getenv("VIGIL_DEMO_DELAY_MICROS"), 0, MAX_DELAY_MICROS, "microseconds"),
        env_flag("VIGIL_DEMO_GATE", 0),
        parse_number("VIGIL_DEMO_TEARDOWN_MILLIS", getenv("VIGIL_DEMO_TEARDOWN_MILLIS"), 0, MAX_TEARDOWN_MILLIS, "milliseconds"),
        env_flag("VIGIL_DEMO_TEARDOWN_BEAT", 1), env_flag("VIGIL_DEMO_IGNORE_SHUTDOWN", 0),
        (int) parse_number("VIGIL_DEMO_EXIT_CODE", getenv("VIGIL_DEMO_EXIT_CODE"), 0, 255, "exit status"),
        env_flag("VIGIL_DEMO_FAIL_INIT", 0),
    };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int has_value = i + 1 < argc;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(HELP, stdout);
            return 0;
        } else if (strcmp(arg, "--print-layout") == 0) {
            print_layout();
            return 0;
        } else if (strcmp(arg, "--delay-us") == 0 && has_value) {
            demo.delay_micros = parse_number("--delay-us", argv[++i], 0, MAX_DELAY_MICROS, "microseconds");
        } else if (strcmp(arg, "--gate") == 0) {
            demo.gate = 1;
        } else if (strcmp(arg, "--teardown-ms") == 0 && has_value) {
            demo.teardown_millis = parse_number("--teardown-ms", argv[++i], 0, MAX_TEARDOWN_MILLIS, "milliseconds");
        } else if (strcmp(arg, "--teardown-no-beat") == 0) {
            demo.teardown_beats = 0;
        } else if (strcmp(arg, "--ignore-shutdown") == 0) {
            demo.ignore_shutdown = 1;
        } else if (strcmp(arg, "--exit-code") == 0 && has_value) {
            demo.exit_code = (int) parse_number("--exit-code", argv[++i], 0, 255, "exit status");
        } else if (strcmp(arg, "--fail-init") == 0) {
            demo.fail_init = 1;
        } else {
            char message[256];
            snprintf(message, sizeof(message), "unknown or incomplete flag: flag=%s", arg);
            return usage(message);
        }
    }
    struct vigil_child child;
    char err[256];
    if (vigil_child_attach_env(&child, err, sizeof(err)) != 0) {
        fprintf(stderr, "ERR: cannot attach: %s\n", err);
        return VIGIL_EXIT_ATTACH_FAILED;
    }
    child.honours_shutdown = !demo.ignore_shutdown;
    struct vigil_child_handler handler = {&demo, demo_init, demo_command, demo_command, demo_shutdown, demo.exit_code};
    int status = vigil_child_serve(&child, &handler);
    vigil_child_detach(&child);
    return status;
}
