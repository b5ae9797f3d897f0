"""The Python child runtime: a handler class served through the C child runtime (libvigil-child.so).

The handler has the Java runtime's shape (dev.vigil.child.ChildHandler):

    class MyHandler(vigil_child.Handler):
        def on_init(self, context): ...                          # raise = INIT_FAILED, exit 3
        def on_control(self, opcode, argument, cancellation):    # -> int result
        def on_task(self, opcode, argument, cancellation):       # -> int result (default: unsupported)
        def on_shutdown(self, cancellation): ...                 # finalization; cancellation.beat() while long

A long handler polls cancellation.shutdown_requested() (which also beats the heartbeat) and returns early.
Raise ChildCommandError(code, text) to fail a command with a chosen code; any other exception fails it
with HANDLER_FAILED and its text; sys.exit(n) in a command or on_shutdown ends the child with status n.
"""
import ctypes
import importlib
import os
import sys
import traceback

from . import _native

# exit statuses and error codes, as native/include/vigil/child.h and dev.vigil.child.ChildExitCodes
EXIT_SHUTDOWN = 0
EXIT_ATTACH_FAILED = 2
EXIT_INIT_FAILED = 3
EXIT_PARENT_GONE = 4
ERROR_HANDLER_FAILED = 1
ERROR_UNSUPPORTED = 2

PROTOCOLS = {0: "sticky", 1: "legacy"}
INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


class ChildCommandError(Exception):
    """Fails the current command with error code `code` (non-zero) and `text` (the first 104 UTF-8 bytes are kept)."""

    def __init__(self, code, text):
        super().__init__(text)
        if int(code) == 0:
            raise ValueError("error code must be non-zero: code=0")
        self.code = int(code)
        self.text = str(text)


class AttachError(RuntimeError):
    """The child could not attach to its mailbox (the message says why); the child exits 2."""


class Cancellation:
    """A handler's view of its child's shutdown request and heartbeat."""

    def __init__(self, child):
        self._child = child

    def shutdown_requested(self):
        """True once shutdown has been requested; also advances the heartbeat."""
        return self._child.lib.vigil_child_shutdown_requested(self._child.pointer) != 0

    def beat(self):
        """Advances the heartbeat without looking at the shutdown request."""
        self._child.lib.vigil_child_beat(self._child.pointer)


class ChildContext:
    """What a handler may know about the child it runs in."""

    def __init__(self, child):
        self._child = child
        self.pid = os.getpid()
        self.parent_pid = child.lib.vigil_ffi_parent_pid(child.pointer)
        self.protocol = PROTOCOLS.get(child.lib.vigil_ffi_protocol_mode(child.pointer), "?")
        self.pool_id = os.environ.get("VIGIL_POOL_ID")
        self.group = os.environ.get("VIGIL_GROUP")
        self.index = int(os.environ.get("VIGIL_INDEX", "-1"))

    def gate(self):
        """The mailbox's GATE word (demo and test handlers block on it)."""
        return self._child.lib.vigil_child_gate(self._child.pointer)

    def now_nanos(self):
        """CLOCK_MONOTONIC in nanoseconds, the clock of the mailbox's stamps."""
        return self._child.lib.vigil_now_nanos()


class Handler:
    """Base class of a Python child's user code; override on_control at least."""

    #: the exit status after a normal shutdown
    exit_code = 0
    #: tests and demos only: False makes the child ignore the shutdown request altogether
    honours_shutdown = True

    def on_init(self, context):
        pass

    def on_control(self, opcode, argument, cancellation):
        raise ChildCommandError(ERROR_UNSUPPORTED, "control not supported by " + type(self).__name__)

    def on_task(self, opcode, argument, cancellation):
        raise ChildCommandError(ERROR_UNSUPPORTED, "tasks not supported by " + type(self).__name__)

    def on_shutdown(self, cancellation):
        pass


class AttachedChild:
    """A mailbox attached through the C runtime; serve() runs the protocol loop until shutdown."""

    def __init__(self, pointer, lib):
        self.pointer = pointer
        self.lib = lib

    @classmethod
    def from_env(cls):
        """Attaches to the mailbox named by the VIGIL_* handoff variables (docs/MAILBOX.md)."""
        lib = _native.library()
        err = ctypes.create_string_buffer(512)
        pointer = lib.vigil_ffi_attach_env(err, len(err))
        if not pointer:
            raise AttachError(err.value.decode("utf-8", "replace"))
        return cls(pointer, lib)

    def serve(self, handler_factory):
        """Builds the handler (a failure is INIT_FAILED), serves commands until shutdown; returns the exit status."""
        state = {"handler": None}
        cancellation = Cancellation(self)
        lib = self.lib
        pointer = self.pointer

        def report(text):
            data = text.encode("utf-8", "replace")
            lib.vigil_ffi_set_error_text(pointer, data, len(data))

        def on_init(_child, _user):
            try:
                handler = handler_factory()
                if not getattr(handler, "honours_shutdown", True):
                    lib.vigil_ffi_set_honours_shutdown(pointer, 0)
                handler.on_init(ChildContext(self))
                state["handler"] = handler
                return 0
            except BaseException as e:  # noqa: B902 - init failure of any kind is INIT_FAILED
                report("init failed: " + _describe(e))
                traceback.print_exc()
                return 1

        def command(method):
            def call(_child, _user, opcode, argument, result):
                try:
                    value = getattr(state["handler"], method)(int(opcode), int(argument), cancellation)
                    value = int(value if value is not None else 0)
                    if value < INT64_MIN or value > INT64_MAX:
                        raise OverflowError("result %d does not fit a signed 64-bit word" % value)
                    result[0] = value
                    return 0
                except ChildCommandError as e:
                    report(e.text)
                    return e.code
                except SystemExit as e:
                    _exit_now(e)
                except BaseException as e:  # noqa: B902 - a callback must never let an exception into C
                    report(_describe(e))
                    return ERROR_HANDLER_FAILED
            return call

        def on_shutdown(_child, _user):
            try:
                state["handler"].on_shutdown(cancellation)
            except SystemExit as e:
                _exit_now(e)
            except BaseException:  # noqa: B902
                traceback.print_exc()

        callbacks = (_native.INIT_FN(on_init), _native.COMMAND_FN(command("on_control")),
                     _native.COMMAND_FN(command("on_task")), _native.SHUTDOWN_FN(on_shutdown))
        status = lib.vigil_ffi_serve(pointer, None, callbacks[0], callbacks[1], callbacks[2], callbacks[3], EXIT_SHUTDOWN)
        handler = state["handler"]
        if status == EXIT_SHUTDOWN and handler is not None:
            status = int(getattr(handler, "exit_code", 0))
        return status

    def close(self):
        if self.pointer:
            self.lib.vigil_ffi_free(self.pointer)
            self.pointer = None


def _exit_now(e):
    """sys.exit() in a handler ends the child with that status, as System.exit does a Java child's (it cannot unwind
    through the C serve loop; before, it failed the command with "SystemExit: 5" and the child served on)."""
    code = e.code
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0 if code is None else code & 0xFF)


def _describe(e):
    text = str(e)
    return type(e).__name__ + (": " + text if text else "")


def load_handler(name):
    """The handler class named `module:Class` (or `module.Class`)."""
    name = name.strip()
    if ":" in name:
        module_name, _, attribute = name.partition(":")
    else:
        module_name, _, attribute = name.rpartition(".")
    if not module_name or not attribute:
        raise ValueError("handler must be module:Class: handler=" + name)
    target = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    return target


STACKS_MEMFD_NAME = "vigil-stacks"


def arm_stack_dump(err=None):
    """Dumps every thread's stack on SIGUSR2 (faulthandler: works while a handler is stuck) into an anonymous in-memory
    file, a memfd named "vigil-stacks": nothing on disk, so nothing is left behind however the child ends (a child
    killed by escalation never ran its clean-up; a file in /tmp was left there). The orchestrator
    (dev.vigil.close.StackCapture) finds it among /proc/PID/fd, sends SIGUSR2 only when it is there, and reads what the
    dump appended.

    Returns the open file (kept open for the process's life), or None when it cannot be created (said on `err`)."""
    import faulthandler
    import signal
    try:
        f = os.fdopen(os.memfd_create(STACKS_MEMFD_NAME, os.MFD_CLOEXEC), "w")
    except (OSError, AttributeError) as e:
        print("vigil_child: no stack dump on SIGUSR2: %s" % e, file=err or sys.stderr)
        return None
    faulthandler.register(signal.SIGUSR2, file=f, all_threads=True, chain=False)
    return f


def run(handler_name, err=None):
    """The whole child: attach, build the handler named `handler_name`, serve; returns the exit status."""
    err = sys.stderr if err is None else err
    try:
        child = AttachedChild.from_env()
    except (AttachError, _native.LibraryNotFound, OSError) as e:
        print("ERR: cannot attach: %s" % e, file=err)
        return EXIT_ATTACH_FAILED
    dump = arm_stack_dump(err)
    try:
        return child.serve(lambda: load_handler(handler_name)())
    finally:
        child.close()
        if dump is not None:
            dump.close()
