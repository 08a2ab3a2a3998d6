"""Shared fixtures, and the order pytest-xdist hands the work out in (quick mode: the root conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from instructor.cli import main
from tests.factories import make_course
from tests.system import require_sandbox

# Property tests (hypothesis) never judge time (no deadline, no too-slow health check: a loaded machine is slow)
# and keep no example database in the repository. Every run of the suite draws the same examples (derandomize),
# on a newcomer's machine as in CI: a failure is one anyone can repeat, and it prints the blob that reproduces it.
# Fresh draws, many more of them, are a maintainer's search (docs/testing.md):
#     python -m pytest tests -k properties --hypothesis-profile=explore -n0
_PROPERTIES = {"deadline": None, "database": None, "print_blob": True, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("repeatable", derandomize=True, max_examples=50, **_PROPERTIES)
settings.register_profile("explore", max_examples=2000, **_PROPERTIES)
settings.load_profile("repeatable")


#: the modules that take longest, with their seconds in the full run of 14:55 UTC on the 2-core machine at load ~3
#: (`--durations`; the VM's boot is 4-6 min with a cached image by issue 44's note): handed out first, so that
#: none is left to run alone at the end while the other worker idles, and the VM overlaps the rest. test_resume's
#: and test_grade's are scaled from runs of these modules at load 8-15 (21:03-21:46 UTC, issue 46.6): test_resume took
#: 0.6 of the worker-seconds it took before it shared its clean run; test_grade took about as long as test_class_tools.
#: test_hostile's group (with test_kernel_cheats and test_value_channel: one graded corpus) took 1288 s at load 9-6
#: (21:39-22:01 UTC) where the two modules took 1057 + 766 s at load 4-16 (20:56-21:22): 0.71 of their 260 + 230 s;
#: test_mistakes' mistakes took 153 s at load 9-14 where the same 124 took 407 s at load 3-15: 0.38 of its 150 s
LONGEST = {
    "tests/grading/test_hostile.py": 350,  # with test_kernel_cheats.py and test_value_channel.py: one group (below)
    "tests/cgroup2/test_cgroup2.py": 300,
    "tests/test_term.py": 180,
    "tests/hub/test_hub.py": 150,
    "tests/authoring/test_mistakes.py": 60,
    "tests/grading/test_resume.py": 120,
    "tests/bench/test_class_tools.py": 80,
    "tests/cli/test_grade.py": 70,
    "tests/browser/test_bundle.py": 70,
    "tests/reporting/test_report.py": 60,  # with test_feedback.py: one group (below)
    "tests/scheduling/test_offenders.py": 55,
    "tests/grading/test_autograde.py": 55,
    "tests/test_installed.py": 45,
    # issue 58's hub tests, as their helpers measured them at load 7-9 (7 December 2026): accounts and nbgrader runs
    "tests/hub/test_collect.py": 90,
    "tests/hub/test_privileged.py": 60,
    # issue 62's launches from an LTI platform, as its helper measured them at load about 9 (7 December 2026)
    "tests/hub/test_lti.py": 50,
    # issue 58's grade journal on the hub (real accounts) and issue 63's draws (the reference on 25 draws a notebook)
    "tests/hub/test_grade_journal.py": 35,
    "tests/grading/test_hidden_draws.py": 60,
}
#: modules that share a session-scoped fixture: one worker runs them all, so the fixture is built once
#: (tests/reporting/conftest.py's graded class: 38 s; tests/grading/conftest.py's graded corpus)
TOGETHER = {
    "tests/reporting/test_feedback.py": "tests/reporting/test_report.py",
    "tests/grading/test_kernel_cheats.py": "tests/grading/test_hostile.py",
    "tests/grading/test_value_channel.py": "tests/grading/test_hostile.py",
}


def _module(nodeid: str) -> str:
    """The module of a test, or the one it runs with (:data:`TOGETHER`)."""
    module = nodeid.split("::")[0]
    return TOGETHER.get(module, module)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """The modules of :data:`LONGEST` first, longest first; the rest in their order."""
    order = sorted(LONGEST, key=LONGEST.__getitem__, reverse=True)
    items.sort(key=lambda item: order.index(m) if (m := _module(item.nodeid)) in order else len(order))


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker more than the CPUs this process may use (``PYTEST_XDIST_AUTO_NUM_WORKERS`` wins).

    Many tests wait on a process that is not theirs (a sandbox, a browser, a hub, the VM's boot, a wall
    clock): with a worker per CPU the CPUs idled about 18 % of the idle full run (21 min 44 s, 2 CPUs,
    2026-11-28); with three workers 2 % (18 min 38 s). See docs/testing.md.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    return len(os.sched_getaffinity(0)) + 1


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist hands out one module at a time (its module-scoped fixtures are built once), in the order of
    the items (``--no-loadscope-reorder``: by default xdist sorts by number of tests, and a one-test module of 5
    minutes went out last); the modules of :data:`TOGETHER` as one."""
    from xdist.scheduler import LoadScopeScheduling

    class ByModule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _module(nodeid)

    return ByModule(config, log)


@pytest.fixture(autouse=True, scope="session")
def _as_a_user_who_is_not_root():
    """As a user who is not root there is no sandbox and no cgroup to write. A grading that needs the sandbox
    (no --unsafe), in a test or in a fixture tests share, skips them: they need root, and say so (under CI=true
    they fail instead). The other gradings run as if given --no-limits, as docs/trust.md tells such a user (the
    refusal's own tests need root: test_limits.py)."""
    if os.geteuid() == 0:
        yield
        return
    from instructor import sandbox
    from instructor.grading.preprocessors.sandboxed_execute import SandboxedExecute
    from instructor.grading.submission import NotGraded
    from instructor.term import grade_course

    require_isolation, preprocess = grade_course.require_isolation, SandboxedExecute.preprocess

    def needs_the_sandbox(unsafe, limits=None):
        if not unsafe:
            require_sandbox()
        return require_isolation(unsafe, limits)

    def in_the_sandbox(self, nb, resources):
        try:
            return preprocess(self, nb, resources)
        except NotGraded as refused:
            if str(refused).startswith("no sandbox"):
                require_sandbox()
            raise

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox, "refuse_without_limits", lambda isolation, limits: "")
        patch.setattr(grade_course, "require_isolation", needs_the_sandbox)
        patch.setattr(SandboxedExecute, "preprocess", in_the_sandbox)
        yield


@pytest.fixture
def run_course(capsys):
    """Run ``course ARGS`` in-process; check its exit status; return (out, err)."""

    def run(args: list[str], retcode: int = 0):
        args = [str(a) for a in args]  # as a user who is not root: see _as_a_user_who_is_not_root
        code = main(args)
        out, err = capsys.readouterr()
        assert code == retcode, f"course {' '.join(map(str, args))} exited {code}\nstdout:\n{out}\nstderr:\n{err}"
        return out, err

    return run


@pytest.fixture
def course_repo(tmp_path, run_course) -> Path:
    """A toy course repository (tests/factories.py), released."""
    root = make_course(tmp_path / "repo")
    run_course(["generate", "--root", root])
    return root
