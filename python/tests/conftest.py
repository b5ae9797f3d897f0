"""The Python package's own suite: run by `mvn -B verify` (PythonSuiteTest) or by hand:
    PYTHONPATH=python /usr/bin/python3 -m pytest python/tests     (after `mvn -B -DskipTests package`)
"""
import os
import subprocess

import pytest

pytest_plugins = ["vigil_child.pytest_plugin", "pytester"]

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
NATIVE = os.environ.get("VIGIL_NATIVE_DIR", os.path.join(ROOT, "native", "build"))


@pytest.fixture(scope="session")
def layout():
    """The mailbox layout as the C runtime was built with it (`vigil-demo-child --print-layout`)."""
    demo = os.path.join(NATIVE, "vigil-demo-child")
    if not os.access(demo, os.X_OK):
        pytest.fail("native part missing: %s (build with mvn -B -DskipTests package)" % demo)
    out = subprocess.run([demo, "--print-layout"], check=True, capture_output=True, text=True, timeout=30).stdout
    return {k: int(v) for k, v in (line.split("=", 1) for line in out.split())}


@pytest.fixture(scope="session")
def launcher():
    path = os.path.join(ROOT, "bin", "vigil")
    jar = os.path.join(ROOT, "orchestrator", "target", "vigil-orchestrator.jar")
    if not os.path.isfile(jar):
        pytest.fail("orchestrator not built: %s (build with mvn -B -DskipTests package)" % jar)
    return path
