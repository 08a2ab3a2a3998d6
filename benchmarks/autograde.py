"""Autograde seconds per submission: serially in the sandbox, serially without it, and with ``--jobs`` workers.

Each assignment gets reference and blank submissions in turn, graded in one
course directory with the one loop of ``course grade``
(:func:`instructor.scheduling.loop.grade_class`): serially, one submission
at a time so that each is timed, with and without the sandbox in
alternating order (a change in the machine's load hits both alike); then
the whole set on ``jobs`` local Dask workers.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from instructor import sandbox
from instructor.authoring.to_course_dir import into_course_dir
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.grading.intake import find_submissions
from instructor.grading.submission import Status
from instructor.paths import NOTEBOOKS, REPO_ROOT, SOLUTIONS, existing_assignments, notebook_path
from instructor.scheduling.loop import grade_class


def _quiet(*_) -> None:
    pass


def _timed(course_dir: CourseDir, sub, isolation: sandbox.Isolation) -> float:
    """Seconds to grade and record ``sub`` serially with ``isolation``."""
    start = time.perf_counter()
    run = grade_class(course_dir, [sub], unsafe=True, force=True, log=_quiet, progress=False, isolation=isolation)
    [result] = run.results
    if result.status is not Status.GRADED:
        raise CourseError(f"autograde failed for {sub.student}/{sub.assignment}: {result.reason}.")
    return time.perf_counter() - start


def bench_autograde(jobs: int, quiet: bool = False) -> dict:
    """Seconds per autograded submission: serial, serial without the sandbox, and with ``jobs`` workers."""
    names = existing_assignments(SOLUTIONS)
    isolation = sandbox.detect()
    bare_isolation = sandbox.unsafe("bench: no sandbox, for comparison")
    with tempfile.TemporaryDirectory(prefix="course-bench-") as scratch:
        tmp = Path(scratch)
        for name in names:
            for i in range(max(2, jobs)):
                folder = SOLUTIONS if i % 2 == 0 else NOTEBOOKS  # reference and blank in turn
                target = tmp / "subs" / f"student{i}" / name
                target.mkdir(parents=True)
                shutil.copy(notebook_path(name, folder), target / f"{name}.ipynb")
        subs = find_submissions(tmp / "subs", names)
        directory.init(tmp / "grading")
        course_dir = CourseDir.at(tmp / "grading")
        into_course_dir(course_dir, REPO_ROOT, names)

        serial: list[tuple[str, float]] = []
        bare: list[tuple[str, float]] = []
        for i, sub in enumerate(tqdm(subs, desc="serial", leave=False, disable=quiet)):
            for sandboxed in (True, False) if i % 2 == 0 else (False, True):
                seconds = _timed(course_dir, sub, isolation if sandboxed else bare_isolation)
                (serial if sandboxed else bare).append((sub.assignment, seconds))
        serial_wall = sum(s for _, s in serial)
        bare_wall = sum(s for _, s in bare)

        start = time.perf_counter()
        grade_class(course_dir, subs, unsafe=True, force=True, jobs=jobs, log=_quiet, progress=False)
        parallel_wall = time.perf_counter() - start

    per_notebook = {
        name: {"serial_seconds_per_submission": round(statistics.mean(s for a, s in serial if a == name), 2)}
        for name in names
    }
    return {
        "per_notebook": per_notebook,
        "submissions": len(subs),
        "isolation": isolation.detail,
        "serial_seconds_per_submission": round(serial_wall / len(subs), 2),
        "unsandboxed_seconds_per_submission": round(bare_wall / len(subs), 2),
        "sandbox_overhead_percent": round(100 * (serial_wall / bare_wall - 1), 1),
        "jobs": jobs,
        "parallel_seconds_per_submission": round(parallel_wall / len(subs), 2),
    }
