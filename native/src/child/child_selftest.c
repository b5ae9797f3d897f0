/* Native test of the C child runtime: state-word packing, attach checks, and a served control command. */
#include "vigil/child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); failures++; } } while (0)

static int echo(struct vigil_child *child, void *user, int32_t opcode, int64_t argument, int64_t *result)
{
    (void) child;
    (void) user;
    *result = argument + opcode;
    return 0;
}

int main(void)
{
    uint64_t word = vigil_state_word(VIGIL_CONTROL_DONE, VIGIL_WRITER_CHILD, 17);
    CHECK(vigil_word_state(word) == VIGIL_CONTROL_DONE);
    CHECK(vigil_word_writer(word) == VIGIL_WRITER_CHILD);
    CHECK(vigil_word_seq(word) == 17);

    char path[] = "/tmp/vigil-child-selftest-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const uint64_t offset = 4096 + 128;
    CHECK(ftruncate(fd, (off_t) (offset + VIGIL_DEFAULT_MAILBOX_LENGTH)) == 0);
    close(fd);

    struct vigil_child child;
    char err[256];
    CHECK(vigil_child_attach(&child, path, offset, VIGIL_PROTOCOL_STICKY, 0, err, sizeof(err)) != 0); /* no magic yet */
    CHECK(strstr(err, "magic=") != NULL);
    CHECK(vigil_child_attach(&child, path, offset + 8, VIGIL_PROTOCOL_STICKY, 0, err, sizeof(err)) != 0); /* misaligned */

    /* format as the parent does, through a first attach-less mapping */
    FILE *file = fopen(path, "r+b");
    CHECK(file != NULL);
    struct vigil_mailbox formatted;
    memset(&formatted, 0, sizeof(formatted));
    formatted.magic = VIGIL_MAGIC;
    formatted.layout_version = VIGIL_LAYOUT_VERSION;
    formatted.protocol_mode = VIGIL_PROTOCOL_STICKY;
    formatted.mailbox_length = (uint32_t) vigil_mailbox_length(VIGIL_DEFAULT_RING_CAPACITY);
    formatted.ring_capacity = VIGIL_DEFAULT_RING_CAPACITY;
    formatted.state_word = vigil_state_word(VIGIL_CONTROL_REQUEST, VIGIL_WRITER_PARENT, 1); /* a command before init */
    formatted.command_id = 9;
    formatted.opcode = 2;
    formatted.argument = 40;
    formatted.shutdown_word = 5; /* served first? no: shutdown is checked first */
    CHECK(fseek(file, (long) offset, SEEK_SET) == 0);
    CHECK(fwrite(&formatted, sizeof(formatted), 1, file) == 1);
    fclose(file);

    CHECK(vigil_child_attach(&child, path, offset, VIGIL_PROTOCOL_LEGACY, 0, err, sizeof(err)) != 0); /* protocol mismatch */
    CHECK(vigil_child_attach(&child, path, offset, VIGIL_PROTOCOL_STICKY, 0, err, sizeof(err)) == 0);
    struct vigil_child_handler handler = {NULL, NULL, echo, echo, NULL, 0};
    int status = vigil_child_serve(&child, &handler);
    CHECK(status == VIGIL_EXIT_SHUTDOWN);
    CHECK(child.mailbox->shutdown_ack != 0); /* shutdown seen at the top of the first iteration */
    CHECK(child.mailbox->heartbeat > 0);
    CHECK(vigil_word_state(child.mailbox->state_word) == VIGIL_CONTROL_REQUEST); /* not served: shutdown came first */
    CHECK(child.mailbox->child_pid == (uint32_t) getpid());

    /* now without shutdown: the command is served, then shutdown ends the loop */
    child.mailbox->shutdown_word = 0;
    child.mailbox->shutdown_ack = 0;
    child.mailbox->gate = 0;
    struct vigil_mailbox *mailbox = child.mailbox;
    pid_t pid = fork();
    if (pid == 0) {
        _exit(vigil_child_serve(&child, &handler));
    }
    /* the child records the transition in the ring right after its CAS: wait for both, not only the state word */
    for (int i = 0; i < 5000 && (vigil_word_state(__atomic_load_n(&mailbox->state_word, __ATOMIC_ACQUIRE)) != VIGIL_CONTROL_DONE
                                 || __atomic_load_n(&mailbox->ring[0].ticket, __ATOMIC_ACQUIRE) == 0); i++) {
        usleep(1000);
    }
    CHECK(vigil_word_state(mailbox->state_word) == VIGIL_CONTROL_DONE);
    CHECK(vigil_word_seq(mailbox->state_word) == 2);
    CHECK(mailbox->result_id == 9 && mailbox->result_value == 42);
    CHECK(mailbox->ring_head == 1);
    CHECK(mailbox->ring[0].ticket == 1 && mailbox->ring[0].seq == 2);
    CHECK((mailbox->ring[0].origin & 0xFF) == VIGIL_CONTROL_REQUEST && ((mailbox->ring[0].origin >> 8) & 0xFF) == VIGIL_CONTROL_DONE);
    __atomic_store_n(&mailbox->shutdown_word, 1, __ATOMIC_RELEASE);
    int wstatus = 0;
    CHECK(waitpid(pid, &wstatus, 0) == pid);
    CHECK(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
    vigil_child_detach(&child);
    unlink(path);
    if (failures == 0) {
        puts("vigil child selftest ok");
    }
    return failures == 0 ? 0 : 1;
}
