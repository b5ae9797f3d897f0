"""The Python demo child, the twin of native/build/vigil-demo-child and dev.vigil.child.demo.DemoHandler.

Same opcodes (1 echo, 2 pipe ping-pong on stdin/stdout, 3 fail with code `argument`, 4 exit now with
status `argument`, 5 sleep `argument` ms polling shutdown) and the same VIGIL_DEMO_* settings
(docs/MAILBOX.md, "Demo children"). Tasks take the same opcodes.
"""
import os
import time

from .runtime import ChildCommandError, ERROR_UNSUPPORTED, Handler

OP_ECHO = 1
OP_PIPE_PINGPONG = 2
OP_FAIL = 3
OP_EXIT = 4
OP_COOPERATIVE_SLEEP = 5
OP_BLOCKING_SLEEP = 6


_FLAGS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def _flag(env, name, default=False):
    """A flag as dev.vigil.child.demo.DemoBehaviour reads it: 1/0, true/false, yes/no; anything else is refused."""
    value = env.get(name, "").strip()
    if not value:
        return default
    if value.lower() not in _FLAGS:
        raise ValueError("%s: not 1/0, true/false or yes/no: '%s'" % (name, value))
    return _FLAGS[value.lower()]


def _number(env, name, maximum, unit, default=0):
    """A whole number in decimal digits, 0..maximum, as DemoBehaviour reads it ("200ms" or "-5" is refused)."""
    value = env.get(name, "").strip()
    if not value:
        return default
    if not (value.isascii() and value.isdigit() and len(value) <= 18 and int(value) <= maximum):
        raise ValueError("%s: not a whole number (%s, 0..%d): '%s'" % (name, unit, maximum, value))
    return int(value)


_MAX_LONG = 9223372036854775807


class DemoBehaviour:
    """The VIGIL_DEMO_* settings (the same names and defaults as dev.vigil.child.demo.DemoBehaviour)."""

    def __init__(self, env=None):
        env = os.environ if env is None else env
        self.delay_micros = _number(env, "VIGIL_DEMO_DELAY_MICROS", _MAX_LONG // 1000, "microseconds")
        self.gate = _flag(env, "VIGIL_DEMO_GATE")
        self.teardown_millis = _number(env, "VIGIL_DEMO_TEARDOWN_MILLIS", _MAX_LONG // 1000000, "milliseconds")
        self.teardown_beats = _flag(env, "VIGIL_DEMO_TEARDOWN_BEAT", True)
        self.ignore_shutdown = _flag(env, "VIGIL_DEMO_IGNORE_SHUTDOWN")
        self.exit_code = _number(env, "VIGIL_DEMO_EXIT_CODE", 255, "exit status")
        self.fail_init = _flag(env, "VIGIL_DEMO_FAIL_INIT")


class DemoHandler(Handler):
    def __init__(self, behaviour=None):
        self.behaviour = behaviour or DemoBehaviour()
        self.exit_code = self.behaviour.exit_code
        self.honours_shutdown = not self.behaviour.ignore_shutdown
        self.context = None

    def on_init(self, context):
        if self.behaviour.fail_init:
            raise RuntimeError("demo init failure requested (VIGIL_DEMO_FAIL_INIT)")
        self.context = context

    def on_control(self, opcode, argument, cancellation):
        if self.behaviour.gate:
            park = 0.000001
            while self.context.gate() == 0:  # blocked without beating, as the C and Java twins
                time.sleep(park)
                park = min(park * 2, 0.001)
        if self.behaviour.delay_micros > 0:
            time.sleep(self.behaviour.delay_micros / 1e6)
        if opcode == OP_ECHO:
            return argument
        if opcode == OP_PIPE_PINGPONG:
            done = 0
            while done < argument:
                b = os.read(0, 1)
                if len(b) != 1 or os.write(1, b) != 1:
                    break
                done += 1
            return done
        if opcode == OP_FAIL:
            raise ChildCommandError(max(1, argument), "demo failure requested")
        if opcode == OP_EXIT:
            os._exit(argument)
        if opcode == OP_BLOCKING_SLEEP:  # a device call: no beat, no look at shutdown until it returns
            time.sleep(argument / 1000.0)
            return 0
        if opcode == OP_COOPERATIVE_SLEEP:
            until = time.monotonic() + argument / 1000.0
            while time.monotonic() < until:
                if cancellation.shutdown_requested():
                    return 1
                time.sleep(0.001)
            return 0
        raise ChildCommandError(ERROR_UNSUPPORTED, "unknown demo opcode: opcode=%d" % opcode)

    on_task = on_control

    def on_shutdown(self, cancellation):
        until = time.monotonic() + self.behaviour.teardown_millis / 1000.0
        while True:
            left = until - time.monotonic()
            if left <= 0:
                break
            if self.behaviour.teardown_beats:
                cancellation.beat()
            time.sleep(min(left, 0.01))
