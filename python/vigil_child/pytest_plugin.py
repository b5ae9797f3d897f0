"""pytest fixtures for Vigil pools: `vigil_pool` starts a pool for a test and closes it after.

Enable with `pytest_plugins = ["vigil_child.pytest_plugin"]` in conftest.py (an installed package
registers it by itself through the pytest11 entry point).

    def test_chips_answer(vigil_pool):
        pool = vigil_pool({"pools": [{"id": "rack", "groups": [{"name": "chips", "kind": "c", "children": 2}]}]})
        assert pool.control("chips", 1, opcode=1, argument=5).value == 5

After the test every pool it started and did not close itself is closed; a close that is not clean fails the
test with the close report (each survivor, its diagnosis, and where the children's output is).
"""
import pytest

from .pool import PoolSession


@pytest.fixture
def vigil_pool(tmp_path):
    """A function `start(spec, **options) -> PoolSession`; every pool started is closed after the test."""
    sessions = []

    def start(spec, **options):
        session = PoolSession(spec, workdir=str(tmp_path / ("pool-%d" % len(sessions))), **options)
        sessions.append(session)
        return session

    yield start
    failures = []
    for session in sessions:
        if session.outcome is not None:
            continue  # the test closed it and judged the outcome itself
        outcome = session.close(check=False)
        if not outcome.clean:
            failures.append(outcome.describe())
    if failures:
        pytest.fail("vigil pool close failed:\n" + "\n".join(failures), pytrace=False)
