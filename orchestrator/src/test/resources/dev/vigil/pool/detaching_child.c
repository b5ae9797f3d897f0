/*
 * A C pool child (libvigil-child.a, as README's "The C child API") whose control opcode 10 unmaps its mailbox
 * (vigil_child_detach) and then waits for signals, and opcode 11 execs `sleep 600` in place (same pid; an exec drops
 * every mapping), and opcode 12 writes 0xFF over its mailbox words from the state word to the ring, then waits. Any
 * other opcode echoes. MisbehavingChildTest builds it with cc.
 */
#include <stdio.h>
#include <unistd.h>

#include "vigil/child.h"

static int on_control(struct vigil_child *c, void *u, int32_t op, int64_t arg, int64_t *result)
{
    (void) u;
    if (op == 10) {
        vigil_child_detach(c);
        for (;;) {
            pause();
        }
    }
    if (op == 12) {
        unsigned char *words = (unsigned char *) c->mailbox;
        for (int i = 64; i < 640; i++) {
            words[i] = 0xFF;
        }
        for (;;) {
            pause();
        }
    }
    if (op == 11) {
        execlp("sleep", "sleep", "600", (char *) NULL);
        return 1;
    }
    *result = arg;
    return 0;
}

int main(void)
{
    struct vigil_child child;
    char err[256];
    if (vigil_child_attach_env(&child, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return VIGIL_EXIT_ATTACH_FAILED;
    }
    struct vigil_child_handler h = {.on_control = on_control};
    return vigil_child_serve(&child, &h);
}
