"""The Python runtime over a mailbox this test formats and drives itself (the parent's part, by hand).

The layout comes from the C build (`--print-layout`), so these tests follow any layout change. The test is
the only writer of the words it stores (command area, shutdown word), and it stores them before the child
starts or while the child only reads them.
"""
import mmap
import os
import struct
import subprocess
import sys
import time

import pytest

import vigil_child
import vigil_child.demo
from vigil_child import runtime

from conftest import NATIVE, ROOT

BOUND = 20.0


class Mailbox:
    """A freshly formatted sticky mailbox at a page-unaligned offset of a file, as the parent allocates one."""

    def __init__(self, path, layout, mode=0, offset=4096 + 128):
        self.layout = layout
        self.path = str(path)
        self.offset = offset
        L = layout
        # layout 1 has fixed MAILBOX_LENGTH / RING_CAPACITY; later layouts a default ring capacity
        length = L.get("MAILBOX_LENGTH", L.get("DEFAULT_MAILBOX_LENGTH"))
        capacity = L.get("RING_CAPACITY", L.get("DEFAULT_RING_CAPACITY"))
        size = (offset + length + 4095) // 4096 * 4096
        with open(self.path, "wb") as f:
            f.truncate(size)
        self.file = open(self.path, "r+b")
        self.map = mmap.mmap(self.file.fileno(), size)
        self.u32(L["LAYOUT_VERSION_OFFSET"], L["LAYOUT_VERSION"])
        self.u32(L["PROTOCOL_MODE_OFFSET"], mode)
        self.u32(L["MAILBOX_LENGTH_OFFSET"], length)
        self.u32(L["RING_CAPACITY_OFFSET"], capacity)
        self.u64(L["MAGIC_OFFSET"], L["MAGIC"])
        self.mode = mode

    def u32(self, field, value):
        struct.pack_into("<I", self.map, self.offset + field, value)

    def u64(self, field, value):
        struct.pack_into("<Q", self.map, self.offset + field, value & 0xFFFFFFFFFFFFFFFF)

    def get64(self, field):
        return struct.unpack_from("<Q", self.map, self.offset + field)[0]

    def get32(self, field):
        return struct.unpack_from("<I", self.map, self.offset + field)[0]

    def word(self, state, writer, seq):
        L = self.layout
        return seq << L["SEQ_SHIFT"] | writer << L["WRITER_SHIFT"] | state

    def state(self):
        return self.get64(self.layout["STATE_WORD_OFFSET"]) & 0xFF

    def place_control(self, command_id, opcode, argument):
        """A control placed before the child starts (the child serves it: the parent was first)."""
        L = self.layout
        self.u64(L["COMMAND_ID_OFFSET"], command_id)
        self.u32(L["OPCODE_OFFSET"], opcode)
        self.u64(L["ARGUMENT_OFFSET"], argument)
        self.u64(L["STATE_WORD_OFFSET"], self.word(L["state.CONTROL_REQUEST"], L["writer.PARENT"], 1))

    def error_text(self):
        L = self.layout
        n = self.get32(L["ERROR_LENGTH_OFFSET"])
        start = self.offset + L["ERROR_TEXT_OFFSET"]
        return bytes(self.map[start:start + n]).decode("utf-8", "replace")

    def env(self, handler):
        env = dict(os.environ)
        env.update({"VIGIL_MAILBOX_FILE": self.path, "VIGIL_MAILBOX_OFFSET": str(self.offset),
                    "VIGIL_LAYOUT_VERSION": str(self.layout["LAYOUT_VERSION"]), "VIGIL_PARENT_PID": str(os.getpid()),
                    "VIGIL_PROTOCOL": "legacy" if self.mode else "sticky", "VIGIL_CHILD_HANDLER": handler,
                    "VIGIL_CHILD_LIBRARY": os.path.join(NATIVE, "libvigil-child.so"),
                    "PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "python"), os.path.dirname(__file__)])})
        return env

    def start(self, handler):
        return subprocess.Popen([sys.executable, "-m", "vigil_child"], env=self.env(handler), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)

    def await_state(self, state):
        deadline = time.monotonic() + BOUND
        while self.state() != state and time.monotonic() < deadline:
            time.sleep(0.002)
        assert self.state() == state, "state %d, expected %d" % (self.state(), state)

    def shutdown(self, epoch=1):
        self.u64(self.layout["SHUTDOWN_WORD_OFFSET"], epoch)


class Handlers:
    """Handlers of these tests, importable by the child as test_runtime:Handlers.<name>."""

    class Failing(vigil_child.Handler):
        def on_control(self, opcode, argument, cancellation):
            if opcode == 1:
                raise ValueError("bad argument %d" % argument)
            if opcode == 2:
                raise vigil_child.ChildCommandError(42, "chip %d is on fire" % argument)
            return 1 << 70

    class FailingInit(vigil_child.Handler):
        def on_init(self, context):
            raise OSError("no device node")

    class ExitCode(vigil_child.Handler):
        exit_code = 9

        def on_control(self, opcode, argument, cancellation):
            return argument + len(str(self.context_protocol))

        def on_init(self, context):
            self.context_protocol = context.protocol


class Exiting(vigil_child.Handler):
    """sys.exit(argument) inside a command."""

    def on_control(self, opcode, argument, cancellation):
        sys.exit(argument)


Handlers.Exiting = Exiting


class Polling(vigil_child.Handler):
    """A long command that polls the shutdown request (beating) and returns how many polls it made."""

    def on_control(self, opcode, argument, cancellation):
        polls = 0
        while not cancellation.shutdown_requested():
            polls += 1
            time.sleep(0.001)
        return polls


Handlers.Polling = Polling


def served(mailbox, handler, opcode, argument):
    mailbox.place_control(7, opcode, argument)
    child = mailbox.start(handler)
    try:
        mailbox.await_state(mailbox.layout["state.CONTROL_DONE"])
        L = mailbox.layout
        assert mailbox.get64(L["RESULT_ID_OFFSET"]) == 7
        result = (mailbox.get64(L["RESULT_VALUE_OFFSET"]), mailbox.get32(L["ERROR_CODE_OFFSET"]), mailbox.error_text())
        mailbox.shutdown()
        status = child.wait(BOUND)
        return result, status
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(BOUND)


def test_a_handler_exception_fails_the_command_with_handler_failed_and_its_text(tmp_path, layout):
    (value, code, text), status = served(Mailbox(tmp_path / "m", layout), "test_runtime:Handlers.Failing", 1, 5)
    assert (code, text, status) == (vigil_child.ERROR_HANDLER_FAILED, "ValueError: bad argument 5", 0)


def test_a_child_command_error_picks_the_code_and_text(tmp_path, layout):
    (value, code, text), status = served(Mailbox(tmp_path / "m", layout), "test_runtime:Handlers.Failing", 2, 3)
    assert (code, text) == (42, "chip 3 is on fire")


def test_a_result_beyond_64_bits_fails_instead_of_being_truncated(tmp_path, layout):
    (value, code, text), status = served(Mailbox(tmp_path / "m", layout), "test_runtime:Handlers.Failing", 3, 0)
    assert code == vigil_child.ERROR_HANDLER_FAILED and "OverflowError" in text


def test_sys_exit_in_a_handler_ends_the_child_with_its_status_leaving_the_command_unanswered(tmp_path, layout):
    mailbox = Mailbox(tmp_path / "m", layout)
    mailbox.place_control(7, 1, 5)
    child = mailbox.start("test_runtime:Handlers.Exiting")
    try:
        status = child.wait(BOUND)  # before: the command failed with "SystemExit: 5" and the child served on
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(BOUND)
    assert status == 5
    assert mailbox.get64(layout["RESULT_ID_OFFSET"]) != 7


def test_the_handler_exit_code_and_context_come_through(tmp_path, layout):
    (value, code, text), status = served(Mailbox(tmp_path / "m", layout, mode=0), "test_runtime:Handlers.ExitCode", 1, 10)
    assert (value, code, status) == (10 + len("sticky"), 0, 9)


def test_a_long_handler_polling_the_cancellation_beats_and_returns_when_shutdown_is_published(tmp_path, layout):
    mailbox = Mailbox(tmp_path / "m", layout)
    L = layout
    mailbox.place_control(7, 1, 0)
    child = mailbox.start("test_runtime:Handlers.Polling")
    try:
        deadline = time.monotonic() + BOUND
        while mailbox.get64(L["HEARTBEAT_OFFSET"]) < 50 and time.monotonic() < deadline:
            time.sleep(0.01)
        beat = mailbox.get64(L["HEARTBEAT_OFFSET"])
        time.sleep(0.2)
        assert mailbox.get64(L["HEARTBEAT_OFFSET"]) > beat, "the polling handler beats"
        assert mailbox.state() == L["state.CONTROL_REQUEST"], "still inside the command"
        mailbox.shutdown()
        assert child.wait(BOUND) == 0
        assert mailbox.state() == L["state.CONTROL_DONE"], "the command returned early and its result was written"
        assert mailbox.get64(L["RESULT_VALUE_OFFSET"]) >= 50
        assert mailbox.get64(L["SHUTDOWN_ACK_OFFSET"]) != 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(BOUND)


def test_a_failing_init_reports_init_failed_with_its_reason_and_exits_three(tmp_path, layout):
    mailbox = Mailbox(tmp_path / "m", layout)
    child = mailbox.start("test_runtime:Handlers.FailingInit")
    assert child.wait(BOUND) == vigil_child.EXIT_INIT_FAILED
    assert mailbox.state() == layout["state.INIT_FAILED"]
    assert mailbox.error_text() == "init failed: OSError: no device node"


def test_an_unknown_handler_is_an_init_failure_naming_it(tmp_path, layout):
    mailbox = Mailbox(tmp_path / "m", layout)
    child = mailbox.start("no_such_module:Handler")
    assert child.wait(BOUND) == vigil_child.EXIT_INIT_FAILED
    assert "no_such_module" in mailbox.error_text()


def test_without_a_handoff_the_child_prints_one_error_line_and_exits_two(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIL_")}
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    done = subprocess.run([sys.executable, "-m", "vigil_child", "vigil_child.demo:DemoHandler"], env=env,
                          capture_output=True, text=True, timeout=BOUND)
    assert done.returncode == vigil_child.EXIT_ATTACH_FAILED
    assert done.stderr.strip().splitlines() == [
        "ERR: cannot attach: missing environment variable: name=VIGIL_MAILBOX_FILE"]


def test_a_mailbox_of_the_other_protocol_is_refused(tmp_path, layout):
    mailbox = Mailbox(tmp_path / "m", layout, mode=1)
    env = mailbox.env("vigil_child.demo:DemoHandler")
    env["VIGIL_PROTOCOL"] = "sticky"
    done = subprocess.run([sys.executable, "-m", "vigil_child"], env=env, capture_output=True, text=True, timeout=BOUND)
    assert done.returncode == vigil_child.EXIT_ATTACH_FAILED
    assert "protocol mismatch" in done.stderr


def test_exit_statuses_are_the_c_runtimes(layout):
    assert (runtime.EXIT_SHUTDOWN, runtime.EXIT_ATTACH_FAILED, runtime.EXIT_INIT_FAILED, runtime.EXIT_PARENT_GONE) == (
        layout["exit.SHUTDOWN"], layout["exit.ATTACH_FAILED"], layout["exit.INIT_FAILED"], layout["exit.PARENT_GONE"])


def test_handler_names_take_module_colon_class_or_dots():
    assert runtime.load_handler("vigil_child.demo:DemoHandler") is vigil_child.demo.DemoHandler
    assert runtime.load_handler("vigil_child.demo.DemoHandler") is vigil_child.demo.DemoHandler
    with pytest.raises(ValueError):
        runtime.load_handler("nodots")


def test_a_zero_error_code_is_refused():
    with pytest.raises(ValueError):
        vigil_child.ChildCommandError(0, "no")


def test_pip_installs_the_package_from_the_checkout_with_its_own_runtime_library(tmp_path, layout):
    """`pip install --no-build-isolation` (no package index): the installed copy carries libvigil-child.so."""
    target = tmp_path / "site"
    source = tmp_path / "source"  # a copy, so the install leaves no build/ or egg-info in the checkout
    import shutil
    shutil.copytree(os.path.join(ROOT, "python"), source / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests"))
    os.symlink(os.path.join(ROOT, "native"), source / "native")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
                           "--no-index", "--target", str(target), str(source / "python")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (target / "vigil_child" / "libvigil-child.so").is_file()

    mailbox = Mailbox(tmp_path / "m", layout)
    env = mailbox.env("vigil_child.demo:DemoHandler")
    del env["VIGIL_CHILD_LIBRARY"]
    env["PYTHONPATH"] = str(target)
    mailbox.place_control(7, 1, 123)
    child = subprocess.Popen([sys.executable, "-c", "import vigil_child._native as n, sys, runpy; n.library();"
                              " print(n._library._name, flush=True); sys.argv = ['vigil_child'];"
                              " runpy.run_module('vigil_child', run_name='__main__')"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        mailbox.await_state(layout["state.CONTROL_DONE"])
        assert mailbox.get64(layout["RESULT_VALUE_OFFSET"]) == 123
        mailbox.shutdown()
        assert child.wait(BOUND) == 0
        assert child.stdout.readline().strip() == str(target / "vigil_child" / "libvigil-child.so")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(BOUND)


def test_sigusr2_dumps_every_threads_stack_into_the_memfd_the_orchestrator_reads(tmp_path):
    # the orchestrator's StackCapture signals only when this memfd is among the child's fds, and reads what the dump
    # appended through /proc/PID/fd/N; nothing is written to disk (TMPDIR, the old place, stays empty)
    script = (
        "import os, sys, time\n"
        "from vigil_child import runtime\n"
        "f = runtime.arm_stack_dump()\n"
        "def stuck_in_handler():\n"
        "    print(f.fileno(), flush=True)\n"  # printed from inside: the signal cannot come before the frame exists
        "    time.sleep(30)\n"
        "stuck_in_handler()\n")
    env = dict(os.environ, TMPDIR=str(tmp_path))
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env,
                         cwd=os.path.join(ROOT, "python"))
    try:
        path = "/proc/%d/fd/%s" % (p.pid, p.stdout.readline().strip())
        assert os.readlink(path) == "/memfd:vigil-stacks (deleted)"
        os.kill(p.pid, 12)
        deadline = time.monotonic() + BOUND
        text = ""
        while "stuck_in_handler" not in text and time.monotonic() < deadline:
            time.sleep(0.05)
            text = open(path).read()
        assert "stuck_in_handler" in text and "thread" in text.lower(), text
        assert p.poll() is None, "SIGUSR2 must not end the child"
    finally:
        p.kill()
        p.wait(BOUND)
    assert os.listdir(str(tmp_path)) == [], "a killed child left a file behind"
