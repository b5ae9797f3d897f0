/*
 * A flat entry surface of the C child runtime for foreign-function callers (Python's ctypes, ...), in
 * libvigil-child.so: no struct a caller must mirror. The child lives on the heap behind an opaque pointer,
 * the handler is passed as plain callbacks, and error text is set through a function. Every protocol step
 * (loads, stores, CAS, fetch-and-add, ring records) stays in vigil_child.c: a caller inherits its atomics.
 */
#ifndef VIGIL_CHILD_FFI_H
#define VIGIL_CHILD_FFI_H

#include <stddef.h>
#include <stdint.h>

#include "vigil/child.h"

typedef int (*vigil_ffi_init_fn)(struct vigil_child *child, void *user);
typedef int (*vigil_ffi_command_fn)(struct vigil_child *child, void *user, int32_t opcode, int64_t argument, int64_t *result);
typedef void (*vigil_ffi_shutdown_fn)(struct vigil_child *child, void *user);

/* vigil_child_attach_env on a heap child; NULL with a reason in err. Free with vigil_ffi_free. */
struct vigil_child *vigil_ffi_attach_env(char *err, size_t err_length);

/* vigil_child_attach on a heap child (mode: enum vigil_protocol_mode; parent_pid 0 = unchecked). */
struct vigil_child *vigil_ffi_attach(const char *file, uint64_t offset, int mode, int32_t parent_pid, char *err, size_t err_length);

/* vigil_child_serve with a handler made of these callbacks (any may be NULL). Returns the exit status. */
int vigil_ffi_serve(struct vigil_child *child, void *user, vigil_ffi_init_fn on_init, vigil_ffi_command_fn on_control,
                    vigil_ffi_command_fn on_task, vigil_ffi_shutdown_fn on_shutdown, int exit_code);

/* The text reported with the error code a callback returns next (UTF-8, truncated to the mailbox's field). */
void vigil_ffi_set_error_text(struct vigil_child *child, const char *text, size_t length);

/* 0: never look at the shutdown request (tests and demos of a child that ignores it). */
void vigil_ffi_set_honours_shutdown(struct vigil_child *child, int honours);

int vigil_ffi_protocol_mode(const struct vigil_child *child);
int32_t vigil_ffi_parent_pid(const struct vigil_child *child);

/* Detaches and frees; NULL is ignored. */
void vigil_ffi_free(struct vigil_child *child);

#endif
