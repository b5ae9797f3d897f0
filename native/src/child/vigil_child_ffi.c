/* The flat entry surface of libvigil-child.so (include/vigil/child_ffi.h): heap children, callback handlers. */
#include "vigil/child_ffi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct vigil_child *attached(struct vigil_child *child, int status)
{
    if (status != 0) {
        free(child);
        return NULL;
    }
    return child;
}

struct vigil_child *vigil_ffi_attach_env(char *err, size_t err_length)
{
    struct vigil_child *child = calloc(1, sizeof(*child));
    if (child == NULL) {
        snprintf(err, err_length, "out of memory");
        return NULL;
    }
    return attached(child, vigil_child_attach_env(child, err, err_length));
}

struct vigil_child *vigil_ffi_attach(const char *file, uint64_t offset, int mode, int32_t parent_pid, char *err, size_t err_length)
{
    struct vigil_child *child = calloc(1, sizeof(*child));
    if (child == NULL) {
        snprintf(err, err_length, "out of memory");
        return NULL;
    }
    return attached(child, vigil_child_attach(child, file, offset, mode, parent_pid, err, err_length));
}

int vigil_ffi_serve(struct vigil_child *child, void *user, vigil_ffi_init_fn on_init, vigil_ffi_command_fn on_control,
                    vigil_ffi_command_fn on_task, vigil_ffi_shutdown_fn on_shutdown, int exit_code)
{
    struct vigil_child_handler handler = {user, on_init, on_control, on_task, on_shutdown, exit_code};
    return vigil_child_serve(child, &handler);
}

void vigil_ffi_set_error_text(struct vigil_child *child, const char *text, size_t length)
{
    size_t n = length < VIGIL_ERROR_TEXT_LENGTH ? length : VIGIL_ERROR_TEXT_LENGTH;
    memcpy(child->error_text, text, n);
    child->error_text[n] = '\0';
}

void vigil_ffi_set_honours_shutdown(struct vigil_child *child, int honours)
{
    child->honours_shutdown = honours != 0;
}

int vigil_ffi_protocol_mode(const struct vigil_child *child)
{
    return child->mode;
}

int32_t vigil_ffi_parent_pid(const struct vigil_child *child)
{
    return child->parent_pid;
}

void vigil_ffi_free(struct vigil_child *child)
{
    if (child != NULL) {
        vigil_child_detach(child);
        free(child);
    }
}
