"""The sandbox's limits on the kernel this runs on (cgroup v1 here, v2 in tests/cgroup2's VM), and one Limits
value from `course grade` to the sandbox.

The limit tests share one sandboxed run: a fork bomb, a busy loop and a
memory hog, in that order (the hog ends the kernel). When
``COURSE_LIMITS_REPORT`` names a file, what was measured is written there
as JSON (the VM sends it back to the host).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from instructor import sandbox
from instructor.errors import CourseError
from instructor.sandbox import cgroup
from tests.system import missing, require_root, require_sandbox

LIMITS = sandbox.Limits(cell_timeout=120, notebook_budget=400, memory_mb=384, processes=48, cpus=0.5)

FORK_BOMB = """
import os, time
children = []
try:
    for _ in range(10_000):
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children.append(pid)
except OSError as err:
    print(f'fork refused after {len(children)} children: errno {err.errno}')
for pid in children:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
"""

BUSY_LOOP = """
import os, time
start, used = time.monotonic(), sum(os.times()[:2])
while time.monotonic() - start < 4:
    pass
print(f'cpu share {(sum(os.times()[:2]) - used) / (time.monotonic() - start):.3f}')
"""

MEMORY_HOG = f"hog = b'x' * ({LIMITS.memory_mb} + 512) * 2**20\nprint('still alive')"


@pytest.fixture(scope="module")
def limited_run():
    """One sandboxed run of the three cells under :data:`LIMITS`, and what it printed."""
    isolation = require_sandbox()
    require_root("the test writes cgroups")
    if not cgroup.available():
        missing(f"cgroups to write ({cgroup.layout().why})")
    nb = new_notebook(
        cells=[new_code_cell(FORK_BOMB), new_code_cell(BUSY_LOOP), new_code_cell(MEMORY_HOG)],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )
    run = sandbox.run_notebook(nb, [], LIMITS, isolation)
    printed = "".join(o.get("text", "") for c in (run.notebook.cells if run.notebook else []) for o in c.outputs)
    report = os.environ.get("COURSE_LIMITS_REPORT")
    if report:
        with open(report, "w") as f:
            json.dump(
                {
                    "isolation": isolation.detail,
                    "status": run.status,
                    "reason": run.reason,
                    "printed": printed,
                    "held": run.limits_held,
                    "memory_peak_mb": run.memory_peak_mb,
                    "hit_process_limit": run.hit_process_limit,
                    "seconds": run.seconds,
                },
                f,
            )
    return run, printed, isolation


def test_the_isolation_line_names_the_layout_and_the_limits(limited_run):
    _, _, isolation = limited_run
    version = cgroup.layout().version
    assert isolation.limited
    assert isolation.detail.endswith(f"memory, process and CPU limits per sandbox (cgroup v{version})"), isolation


def test_every_limit_held(limited_run):
    run, _, _ = limited_run
    assert run.limits_held == ("memory", "processes", "cpu"), run


def test_a_fork_bomb_stops_at_the_process_limit(limited_run):
    """Is a fork refused (EAGAIN) before the sandbox has LIMITS.processes processes, and the run told so?"""
    run, printed, _ = limited_run
    found = re.search(r"fork refused after (\d+) children: errno 11", printed)
    assert found and 0 < int(found[1]) < LIMITS.processes, printed
    assert run.hit_process_limit


def test_a_memory_hog_is_killed_at_the_memory_limit(limited_run):
    run, printed, _ = limited_run
    assert "still alive" not in printed
    assert (run.status, run.reason) == (
        "memory",
        f"a process used more than the {LIMITS.memory_mb} MB memory limit and was killed",
    ), run.log
    if run.memory_peak_mb is not None:  # what the kernel saw at the kill: the limit, not the 896 MB asked for
        assert run.memory_peak_mb <= LIMITS.memory_mb + 1


def test_a_busy_loop_is_held_to_its_cpu_share(limited_run):
    """Does a loop that would use a whole CPU get at most LIMITS.cpus of one (less on a loaded machine)?"""
    _, printed, _ = limited_run
    found = re.search(r"cpu share ([\d.]+)", printed)
    assert found, printed
    assert 0 < float(found[1]) <= LIMITS.cpus + 0.1, printed  # unlimited: 0.9-1.0 alone


def test_cgroups_of_a_killed_grader_are_swept():
    """Are the cgroups of a grader that was killed outright emptied and removed by the next sandbox?"""
    require_root("the test writes cgroups")
    if not cgroup.available():
        missing(f"cgroups to write ({cgroup.layout().why})")
    dead = subprocess.Popen(["true"])
    dead.wait()
    orphan = cgroup.Group(f"{cgroup.PARENT}/{dead.pid}-orphan").create(cgroup.Budget(64, 8))
    stranger = subprocess.Popen(["sleep", "60"])
    for procs in orphan.procs_files:
        procs.write_text(str(stranger.pid))
    living = cgroup.Cgroup.create_for_sandbox(cgroup.Budget(64, 8))  # this (living) grader's: never swept
    try:
        assert not any(f.exists() for f in orphan.folders)
        assert stranger.wait(timeout=5) == -9
        assert all(f.exists() for f in living.folders)
    finally:
        living.destroy()
        orphan.destroy()
        if stranger.poll() is None:
            stranger.kill()


def _every_field_changed() -> sandbox.Limits:
    """Limits whose every field differs from the default (``required`` False: no cgroup is written here)."""
    changed = {}
    for f in dataclasses.fields(sandbox.Limits):
        default = f.default
        changed[f.name] = (
            (not default) if isinstance(default, bool) else default + (1.5 if isinstance(default, float) else 1)
        )
    limits = sandbox.Limits(**changed)
    assert all(getattr(limits, f.name) != f.default for f in dataclasses.fields(sandbox.Limits))
    return limits


def test_every_field_of_the_limits_reaches_the_sandbox(tmp_path, monkeypatch):
    """Does each of the 17 fields of a Limits given to `course grade`'s use case (grade_course) arrive at the
    sandbox, at its executor and at every reader on the grader's side? Before: 6 of 17 reached the sandbox
    (then all, but the grader's output cap still used its defaults for the figure budgets and verdict_chars)."""
    import nbformat

    from instructor.coursedir import directory
    from instructor.coursedir.course_dir import CourseDir
    from instructor.grading.preprocessors.cap_output_bytes import CapOutputBytes
    from instructor.sandbox import run
    from instructor.term.grade_course import GradeRequest, grade_course
    from tests.factories import released_toy_class

    tmp, root = released_toy_class(tmp_path)
    directory.init(tmp / "course-dir")
    given = _every_field_changed()
    supervised, executor_jobs, capped = [], [], []

    def supervise(started, env, folder, out, work, limits, pipe):
        """Record what the sandbox's supervisor and its executor were handed; hand the notebook back, unrun."""
        for fd in pipe:
            os.close(fd)
        supervised.append(limits)
        executor_jobs.append(json.loads((out / "job.json").read_text())["limits"])
        nb = nbformat.read(str(out / "notebook.ipynb"), as_version=4)
        first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
        return sandbox.Execution("ok", "", nb, 0.0, timed_out=[first_code], hit_process_limit=True)

    def cap(self, nb, resources):
        capped.append(self.limits)
        return cap_as_written(self, nb, resources)

    cap_as_written = CapOutputBytes.preprocess
    monkeypatch.setattr(run, "_supervise", supervise)
    monkeypatch.setattr(CapOutputBytes, "preprocess", cap)
    monkeypatch.setattr(sandbox, "detect", lambda: sandbox.unsafe("the test"))
    graded = grade_course(
        GradeRequest(
            CourseDir.at(tmp / "course-dir"),
            root,
            submissions=tmp / "subs",
            assignments=["01_toy"],
            students=["ref"],
            limits=given,
            unsafe=True,
        ),
        log=lambda line: None,
    )
    [result] = graded.run.results
    assert supervised == [given]  # memory, processes, cpus, file size, CPU seconds, the wall clock
    assert executor_jobs == [dataclasses.asdict(given)]  # the executor's budgets and verdict_chars
    assert capped == [given]  # the grader's own cap keeps what the executor kept
    assert f"hit the limit of {given.processes} processes" in result.flags
    assert f"1 cell(s) ran past the {given.cell_timeout:g} s limit" in result.notes


def _sized(kind: str, size: int):
    """A stream (``text``) or a figure (``image``) output whose JSON is exactly ``size`` bytes, as the cap counts."""
    from nbformat.v4 import new_output

    def make(n: int):
        if kind == "text":
            return new_output("stream", name="stdout", text="x" * n)
        return new_output("display_data", data={"image/png": "A" * n})

    out = make(size - len(json.dumps(make(0))))
    assert len(json.dumps(out)) == size
    return out


def test_the_grader_output_cap_reads_each_of_its_fields():
    """Does the grader's output cap keep what each of its five fields of the Limits allows, one byte past its
    default, and shorten a failing output to verdict_chars; and does each field, put back to its default, cut
    more (before: the figure budgets and verdict_chars were always the defaults)?"""
    from nbformat.v4 import new_output

    from instructor.grading.preprocessors.cap_output_bytes import CapOutputBytes

    given = _every_field_changed()
    text, image = given.cell_output_bytes, given.cell_image_bytes
    rest_text = given.notebook_output_bytes - 15 * text  # 15 full cells and one more: the notebook's text budget
    rest_image = given.notebook_image_bytes - 3 * image
    outputs = [
        *([_sized("text", text)] for _ in range(15)),
        [_sized("text", rest_text)],
        *([_sized("image", image)] for _ in range(3)),
        [_sized("image", rest_image)],
        [new_output("error", ename="ValueError", evalue="e" * 2 * text, traceback=[])],
    ]

    def capped(limits: sandbox.Limits) -> list:
        nb = new_notebook(cells=[new_code_cell("pass", outputs=[dict(o) for o in outs]) for outs in outputs])
        nb, _ = CapOutputBytes(limits=limits)(nb, {})
        return [cell.outputs for cell in nb.cells]

    kept = capped(given)
    assert kept[:-1] == outputs[:-1]
    assert len(kept[-1][0]["evalue"]) == given.verdict_chars
    readers = ("cell_output_bytes", "notebook_output_bytes", "cell_image_bytes", "notebook_image_bytes")
    readers += ("verdict_chars",)
    for name in readers:
        default = dataclasses.replace(given, **{name: getattr(sandbox.Limits(), name)})
        assert capped(default) != kept, f"{name} back at its default changes nothing"


def test_course_grade_hands_its_limits_to_grade_course(monkeypatch, run_course, tmp_path):
    """Do `course grade`'s three limit options arrive in the request, the other fields at their defaults?"""
    asked = []
    monkeypatch.setattr("instructor.cli.grade.grade_course", lambda req, log: asked.append(req) or 1 / 0)
    with pytest.raises(ZeroDivisionError):
        run_course(
            ["grade", tmp_path, "--course-dir", tmp_path / "dir", "--cell-timeout", "7", "--budget", "9", "--no-limits"]
        )
    assert asked[0].limits == sandbox.Limits(cell_timeout=7, notebook_budget=9, required=False)


@pytest.fixture
def toy_submission(tmp_path):
    """A course directory with the toy assignment 01_toy, and the reference submission of it."""
    from instructor.authoring.to_course_dir import into_course_dir
    from instructor.coursedir import directory
    from instructor.coursedir.course_dir import CourseDir
    from instructor.grading.intake import find_submissions
    from tests.factories import released_toy_class

    tmp, root = released_toy_class(tmp_path)
    course_dir = tmp / "course-dir"
    directory.init(course_dir)
    into_course_dir(CourseDir.at(course_dir), root, ["01_toy"])
    [sub] = [s for s in find_submissions(tmp / "subs", ["01_toy"]) if s.key == ("ref", "01_toy")]
    return CourseDir.at(course_dir), sub


NO_CGROUPS = cgroup.Layout(0, why="no cgroup file system is mounted")
REFUSAL = (
    r"No memory and process limit can be set for the sandbox here \(no cgroup file system is mounted\): "
    r"run as root on a machine with cgroup v2 or v1, or pass --no-limits to grade without them\."
)


def test_course_grade_refuses_where_no_limit_can_be_set(monkeypatch, run_course, tmp_path):
    """Where no memory and process limit can be set, does `course grade` refuse in one sentence, and go on
    with --no-limits (before: it graded, the isolation line saying "processes unlimited")?"""
    require_root("as another user the suite grades as if given --no-limits (tests/conftest.py)")
    from instructor.term import grade_course

    monkeypatch.setattr(cgroup, "layout", lambda: NO_CGROUPS)
    monkeypatch.setattr(sandbox, "detect", lambda: sandbox.Isolation("bubblewrap", "bubblewrap: ...", True, False))
    with pytest.raises(CourseError, match=f"^{REFUSAL}$"):
        grade_course.require_isolation(False, sandbox.Limits())
    assert grade_course.require_isolation(False, sandbox.Limits(required=False)).limited is False
    asked = []
    monkeypatch.setattr("instructor.cli.grade.grade_course", lambda req, log: asked.append(req) or 1 / 0)
    with pytest.raises(ZeroDivisionError):
        run_course(["grade", tmp_path, "--course-dir", tmp_path / "dir", "--no-limits"])
    assert asked[0].limits == sandbox.Limits(required=False)


def test_the_sandbox_refuses_a_submission_where_no_limit_can_be_set(toy_submission, monkeypatch):
    """nbgrader's own autograde (the formgrader's button) reaches the sandbox without `course grade`: is the
    submission refused there too, with the same sentence?"""
    require_root("as another user the suite grades as if given --no-limits (tests/conftest.py)")
    from instructor.grading.pipeline import grade

    monkeypatch.setattr(cgroup, "layout", lambda: NO_CGROUPS)
    graded = grade(*toy_submission, sandbox.Limits(), sandbox.Isolation("none", "none", False, False), unsafe=True)
    assert graded.status.value == "not graded" and re.fullmatch(REFUSAL, graded.reason), graded.reason


def test_course_hub_refuses_where_no_limit_can_be_set(monkeypatch, run_course, tmp_path):
    """Where no cgroup can be written, does `course hub` (as root) refuse to start users' servers without limits?"""
    require_root("course hub runs as root; for another user it refuses before it looks at cgroups")
    from instructor.coursedir import directory
    from instructor.hub import cgroups as hub_cgroups

    directory.init(tmp_path / "dir")
    (tmp_path / "dir" / "roster.csv").write_text("id\namy\n")
    (tmp_path / "dir" / "staff.csv").write_text("id,role\nteach,instructor\n")
    monkeypatch.setattr(cgroup, "layout", lambda: NO_CGROUPS)
    assert not hub_cgroups.available()
    _, err = run_course(["hub", "--course-dir", tmp_path / "dir", "--write-only"], retcode=1)
    assert (
        "No memory and process limit can be set for the users' servers here (no cgroup file system is mounted): "
        "run as root on a machine with cgroup v2 or v1, or pass --no-limits to run them without."
    ) in err
