"""The child contract through real pools (bin/vigil session), Python children beside C and Java ones.

The same cases as ChildContractTest runs against the Java and C runtimes: commands, failures and tasks
answered; the race -- shutdown published while the child is inside a control handler -- is survived in
sticky mode and loses the shutdown in legacy mode, where the fixture fails the test with the close report.
"""
import textwrap

import pytest

from vigil_child.demo import OP_ECHO, OP_FAIL
from vigil_child.pool import PoolCloseFailed

#: every handler call sleeps this long, without beating: the window in which a close races it
HANDLER_DELAY_MICROS = 1_500_000
#: the close's no-progress window, longer than the handler's silent sleep (else close takes it for wedged)
WINDOW_MS = 5000


def spec(protocol, groups, hard_cap_ms=0, pool="rack", more_pools=()):
    return {"protocol": protocol, "close": {"windowMs": WINDOW_MS, "hardCapMs": hard_cap_ms, "graceMs": 200},
            "pools": [{"id": pool, "groups": groups}] + list(more_pools)}


def the_race(pool, pool_id=None):
    """A control in flight, the child inside its handler, then the close publishes shutdown."""
    pool.send_control("py", 0, OP_ECHO, 5, pool=pool_id)
    pool.await_inside_handler("py", 0, pool=pool_id)


def test_python_children_serve_beside_c_and_java_ones_and_survive_a_shutdown_published_inside_a_handler(vigil_pool):
    race = {"id": "race", "groups": [{"name": "py", "kind": "python", "children": 1,
                                      "env": {"VIGIL_DEMO_DELAY_MICROS": str(HANDLER_DELAY_MICROS)}}]}
    pool = vigil_pool(spec("sticky", [{"name": "py", "kind": "python", "children": 2},
                                      {"name": "chips", "kind": "c", "children": 1},
                                      {"name": "hosts", "kind": "java", "children": 1}], more_pools=[race]))
    assert sorted(c["kind"] for c in pool.children) == ["C", "JAVA", "PYTHON", "PYTHON", "PYTHON"]
    for group, index in (("py", 0), ("py", 1), ("chips", 0), ("hosts", 0)):
        assert pool.control(group, index, OP_ECHO, 41 + index).value == 41 + index
        assert pool.task(group, index, OP_ECHO, -7).value == -7
        failed = pool.control(group, index, OP_FAIL, 9)
        assert (failed.error_code, failed.error_text) == (9, "demo failure requested")

    the_race(pool, "race")
    outcome = pool.close()  # raises PoolCloseFailed with the reports unless every pool closed clean
    assert outcome.clean
    by_pool = {r["pool"]: r["report"]["children"] for r in outcome.reports}
    assert [(c["outcome"], c["exitCode"]) for c in by_pool["race"]] == [("EXITED", 0)]
    assert all(c["exitCode"] == 0 for c in by_pool["rack"])


def test_legacy_the_same_race_loses_the_shutdown_and_the_fixture_fails_the_test_with_the_close_report(pytester):
    pytester.makeconftest('pytest_plugins = ["vigil_child.pytest_plugin"]')
    pytester.makepyfile(textwrap.dedent('''
        from test_pool_contract import spec, the_race, HANDLER_DELAY_MICROS

        def test_legacy_race(vigil_pool):
            pool = vigil_pool(spec("legacy", [{"name": "py", "kind": "python", "children": 1,
                                               "env": {"VIGIL_DEMO_DELAY_MICROS": str(HANDLER_DELAY_MICROS)}}],
                                   hard_cap_ms=3000))
            the_race(pool)
            # the test body passes; the pool is closed by the fixture after it
        '''))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    output = result.stdout.str()
    assert "vigil pool close failed:" in output
    assert "NOT_DELIVERED" in output, output
    assert "group=py" in output


def test_a_pool_that_fails_to_start_raises_with_the_reason(vigil_pool):
    from vigil_child.pool import PoolError
    with pytest.raises(PoolError, match="INIT_FAILED"):
        vigil_pool(spec("sticky", [{"name": "py", "kind": "python", "children": 1,
                                    "env": {"VIGIL_DEMO_FAIL_INIT": "1"}}]))


def test_closing_an_unclean_pool_itself_raises_pool_close_failed(vigil_pool):
    pool = vigil_pool(spec("sticky", [{"name": "py", "kind": "python", "children": 1,
                                       "env": {"VIGIL_DEMO_IGNORE_SHUTDOWN": "1"}}], hard_cap_ms=3000))
    with pytest.raises(PoolCloseFailed) as failed:
        pool.close()
    assert not failed.value.outcome.clean
    assert "group=py" in str(failed.value)


def test_a_dict_specs_relative_class_path_is_taken_from_the_working_directory(vigil_pool, tmp_path, monkeypatch):
    """bin/vigil resolves a spec's relative paths against the spec file's folder; the fixture writes the dict into a
    directory of its own, so it makes them absolute from the test's working directory first. Without that the start
    fails: `classPath[0]: no such file or directory '<tmp>/pool-0/mods'` (the fixture's own directory)."""
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "relmod.py").write_text(textwrap.dedent('''
        import vigil_child

        class Plus(vigil_child.Handler):
            def on_control(self, opcode, argument, cancellation):
                return argument + 1
    '''))
    monkeypatch.chdir(tmp_path)
    pool = vigil_pool({"pools": [{"id": "rel", "groups": [
        {"name": "py", "kind": "python", "children": 1, "handler": "relmod:Plus", "classPath": ["mods"]}]}]})
    assert pool.control("py", 0, opcode=1, argument=41).value == 42
