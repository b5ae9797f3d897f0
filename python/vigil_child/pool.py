"""Pools driven from Python: `bin/vigil session SPEC` started as a subprocess, spoken to in JSON lines.

    with PoolSession({"pools": [{"id": "rack", "groups": [
            {"name": "py", "kind": "python", "children": 2, "handler": "my_handlers:Echo", "classPath": ["tests"]}]}]}
         ) as pool:
        assert pool.control("py", 0, opcode=1, argument=41).value == 41
    # leaving the block closes the pool; an unclean close raises PoolCloseFailed with the close report

Every wait is bounded (start_timeout, the command's own timeout plus a margin, close_timeout).
"""
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading

LAUNCHER_ENV = "VIGIL_LAUNCHER"


class PoolError(RuntimeError):
    """The session could not start, answered with an error, or stopped answering."""


class PoolCloseFailed(PoolError):
    """A close was not clean; `outcome` holds every pool's report."""

    def __init__(self, outcome):
        super().__init__(outcome.describe())
        self.outcome = outcome


class CommandResult:
    def __init__(self, value, error_code, error_text):
        self.value = value
        self.error_code = error_code
        self.error_text = error_text

    @property
    def succeeded(self):
        return self.error_code == 0

    def __repr__(self):
        return "CommandResult(value=%r, error_code=%r, error_text=%r)" % (self.value, self.error_code, self.error_text)


class CloseOutcome:
    """What `close` reported: `clean`, and per pool its outcome, summary line, failures and full report (a dict)."""

    def __init__(self, reply, child_log=None):
        self.clean = bool(reply.get("clean"))
        self.reports = reply.get("reports", [])
        self.child_log = child_log

    def describe(self):
        lines = []
        for r in self.reports:
            lines.append(r.get("summary", r.get("pool", "?")))
            if r.get("failures"):
                lines.extend("  " + l for l in r["failures"].strip().splitlines())
        if not self.clean and self.child_log:
            lines.append("children's output: " + self.child_log)
        return "\n".join(lines)


def default_launcher():
    """$VIGIL_LAUNCHER, else bin/vigil of the source tree this package sits in, else `vigil` on PATH."""
    if os.environ.get(LAUNCHER_ENV):
        return os.environ[LAUNCHER_ENV]
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.normpath(os.path.join(here, "..", "..", "bin", "vigil"))
    if os.access(tree, os.X_OK):
        return tree
    found = shutil.which("vigil")
    if found:
        return found
    raise PoolError("cannot find the vigil launcher: set %s to bin/vigil of a built Vigil checkout" % LAUNCHER_ENV)


def _paths_from_cwd(spec):
    """A copy of `spec` whose relative paths (journalDir, classPath entries, a command's program when it names a path)
    are made absolute from this process's working directory: the spec file is written into `workdir`, and bin/vigil
    resolves a spec's relative paths against the spec file's folder."""
    spec = json.loads(json.dumps(spec))

    def absolute(path):
        return os.path.abspath(path) if isinstance(path, str) and path and not os.path.isabs(path) else path

    if "journalDir" in spec:
        spec["journalDir"] = absolute(spec["journalDir"])
    for pool in spec.get("pools") or []:
        for group in (pool.get("groups") or []) if isinstance(pool, dict) else []:
            if not isinstance(group, dict):
                continue
            if isinstance(group.get("classPath"), list):
                group["classPath"] = [absolute(p) for p in group["classPath"]]
            command = group.get("command")
            if isinstance(command, str):
                command = command.split()
            if isinstance(command, list) and command and isinstance(command[0], str) and "/" in command[0]:
                group["command"] = [absolute(command[0])] + command[1:]
    return spec


class PoolSession:
    """The pools of `spec` (a pool-spec dict, README "The pool spec") started once and driven from here."""

    def __init__(self, spec, workdir=None, launcher=None, start_timeout=120.0, close_timeout=300.0):
        self.spec = _paths_from_cwd(spec)
        self.workdir = workdir or tempfile.mkdtemp(prefix="vigil-pool-")
        os.makedirs(self.workdir, exist_ok=True)
        self.spec.setdefault("journalDir", os.path.join(self.workdir, "journal"))
        self.close_timeout = close_timeout
        self.outcome = None
        self._lines = queue.Queue()
        spec_file = os.path.join(self.workdir, "pool-spec.json")
        with open(spec_file, "w") as f:
            json.dump(self.spec, f, indent=2)
        self._stderr = open(os.path.join(self.workdir, "vigil-session.err"), "wb")
        self._process = subprocess.Popen([launcher or default_launcher(), "session", spec_file], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self._stderr)
        threading.Thread(target=self._read, daemon=True, name="vigil-session-reader").start()
        ready = self._next(start_timeout, "start")
        if ready.get("event") != "ready":
            self._finish(10)
            raise PoolError("pool start failed: %s" % ready.get("error", ready))
        self.pools = ready["pools"]
        self.journal = ready.get("journal")
        self.child_log = ready.get("childLog")

    def _read(self):
        for line in self._process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _next(self, timeout, what):
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self._process.kill()
            self._process.wait(10)
            raise PoolError("vigil session gave no answer to %s within %.0f s (killed); its stderr: %s"
                            % (what, timeout, self._stderr.name))
        if line is None:
            raise PoolError("vigil session ended during %s: exit=%s stderr=%s"
                            % (what, self._process.wait(10), self._stderr_text()))
        return json.loads(line)

    def _stderr_text(self):
        self._stderr.flush()
        with open(self._stderr.name, "rb") as f:
            return f.read().decode("utf-8", "replace").strip()[-2000:]

    def _request(self, request, timeout):
        if self.outcome is not None:
            raise PoolError("the pool session is closed")
        self._process.stdin.write((json.dumps(request) + "\n").encode())
        self._process.stdin.flush()
        reply = self._next(timeout, request.get("op"))
        if not reply.get("ok"):
            raise PoolError("%s failed: %s" % (request.get("op"), reply.get("error")))
        return reply

    @property
    def children(self):
        """Every child: dicts with pool, group, index, pid, kind."""
        return [dict(c, pool=p["id"]) for p in self.pools for c in p["children"]]

    def _address(self, group, index, pool):
        return {"pool": pool or self.pools[0]["id"], "group": group, "index": index}

    def control(self, group, index, opcode, argument, timeout=5.0, pool=None):
        """One control command, waited for at most `timeout` seconds; a timeout raises PoolError."""
        req = dict(self._address(group, index, pool), op="control", opcode=opcode, argument=argument,
                   timeoutMs=int(timeout * 1000))
        reply = self._request(req, timeout + 30)
        return CommandResult(reply["value"], reply["errorCode"], reply["errorText"])

    def task(self, group, index, opcode, argument, timeout=5.0, pool=None):
        req = dict(self._address(group, index, pool), op="task", opcode=opcode, argument=argument,
                   timeoutMs=int(timeout * 1000))
        reply = self._request(req, timeout + 30)
        return CommandResult(reply["value"], reply["errorCode"], reply["errorText"])

    def send_control(self, group, index, opcode, argument, pool=None):
        """Places a control command without waiting for it; returns its command id."""
        return self._request(dict(self._address(group, index, pool), op="send", opcode=opcode, argument=argument),
                             30)["commandId"]

    def await_inside_handler(self, group, index, timeout=15.0, pool=None):
        """Waits until the child is inside its handler (a command pending, its heartbeat still)."""
        self._request(dict(self._address(group, index, pool), op="inside", timeoutMs=int(timeout * 1000)), timeout + 30)

    def set_gate(self, group, index, value=1, pool=None):
        self._request(dict(self._address(group, index, pool), op="gate", value=value), 30)

    def close(self, check=True):
        """Closes every pool at once; returns the CloseOutcome, or raises PoolCloseFailed when unclean and `check`."""
        if self.outcome is None:
            self._process.stdin.write(b'{"op":"close"}\n')
            self._process.stdin.flush()
            reply = self._next(self.close_timeout, "close")
            self.outcome = CloseOutcome(reply, self.child_log)
            self._finish(30)
        if check and not self.outcome.clean:
            raise PoolCloseFailed(self.outcome)
        return self.outcome

    def _finish(self, timeout):
        try:
            self._process.stdin.close()
        except OSError:
            pass
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(10)
        self._stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        self.close(check=kind is None)
        return False
