"""`course bench --only class-tools`: what an instructor runs after grading, timed on a graded class.

The class is the class part's (:func:`benchmarks.classroom.build_class`:
references, blanks and deliberate mistakes over the four assignments), graded
once with local Dask workers into a course directory whose due dates lie
two days before every submission (so every grade carries a late penalty). Then each
command runs as the instructor runs it, a fresh ``course`` process, and its
wall time is taken:

* ``course report A`` and ``course similarity A`` for every assignment;
* ``course extend`` of one student (the gradebook's penalty recomputed);
* ``course export --format canvas``.

The grading itself is set-up here (the class part times it).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.classroom import KINDS, build_class
from benchmarks.cluster import WORKERS
from instructor import sandbox
from instructor.authoring.mistakes import Mistake
from instructor.authoring.to_course_dir import into_course_dir
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.grading.intake import find_submissions
from instructor.paths import REPO_ROOT, SOLUTIONS, existing_assignments
from instructor.scheduling.loop import grade_class

#: the class's due date, and when every submission of the bench was handed in: two days late
PAST = "2026-01-05 17:00:00 UTC"
HANDED_IN = "2026-01-07 12:00:00.000000 UTC"
#: the issue's bound for each command on a class of 400
TARGET_SECONDS = 60.0


def _time(args: list[str]) -> float:
    """Run ``course ARGS`` in a new process; its wall time in seconds (an error stops the bench)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "instructor", *args], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise CourseError(f"`course {' '.join(args)}` failed in the bench: {done.stderr.strip()[-300:]}")
    return round(seconds, 2)


def bench_class_tools(size: int, mistakes: dict[str, list[Mistake]], quiet: bool = False) -> dict:
    """Grade a class of ``size``, then time report, similarity, extend and export on it."""
    assignments = existing_assignments(SOLUTIONS)
    if size < 2 * len(assignments):  # similarity compares pairs: two submissions of each assignment at least
        raise CourseError(
            f"--class-size takes at least {2 * len(assignments)} for part class-tools "
            "(two submissions of each assignment)."
        )
    with tempfile.TemporaryDirectory(prefix="course-bench-tools-") as scratch:
        tmp = Path(scratch)
        kinds = build_class(tmp / "subs", size, assignments, mistakes)
        for student, a in kinds:  # nbgrader's stamp, as a collected submission has it
            (tmp / "subs" / student / a / "timestamp.txt").write_text(HANDED_IN)
        course = tmp / "course"
        directory.init(course, due={a: PAST for a in assignments})
        into_course_dir(CourseDir.at(course), REPO_ROOT, assignments)
        if not quiet:
            print(f"  grading the class of {size} with {WORKERS} workers (set-up) ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        grade_class(
            CourseDir.at(course),
            find_submissions(tmp / "subs", assignments),
            # the course's own notebooks, as the demo grades them: limits where the machine has them, no refusal
            limits=sandbox.Limits(required=False),
            unsafe=True,
            force=True,
            log=lambda *_: None,
            jobs=WORKERS,
        )
        graded = time.perf_counter() - start
        where = ["--course-dir", str(course)]
        seconds: dict[str, float] = {}
        for a in assignments:
            seconds[f"report {a}"] = _time(["report", a, *where])
            seconds[f"similarity {a}"] = _time(["similarity", a, *where])
        student, assignment = sorted(kinds)[0]
        seconds["extend"] = _time(["extend", student, assignment, "--days", "3", "--because", "bench", *where])
        seconds["export --format canvas"] = _time(
            ["export", "--format", "canvas", "--file", str(tmp / "canvas.csv"), *where]
        )
    return {
        "class_size": size,
        "mix": {k: sum(v == k for v in kinds.values()) for k in KINDS},
        "grading_seconds": round(graded, 1),
        "seconds": seconds,
        "target_seconds": TARGET_SECONDS,
        "all_within_target": all(s <= TARGET_SECONDS for s in seconds.values()),
    }


def table(r: dict) -> list[str]:
    """The class-tools part of the bench table."""
    lines = [
        "",
        f"instructor commands on a graded class of {r['class_size']} "
        f"({', '.join(f'{n} {k}' for k, n in r['mix'].items())}; grading took {r['grading_seconds']:.0f} s)",
    ]
    lines.append(f"{'command':36s} {'s':>7s}")
    for name, s in r["seconds"].items():
        lines.append(f"{'course ' + name:36s} {s:7.2f}{'' if s <= r['target_seconds'] else '  (over the target)'}")
    lines.append(f"every command within {r['target_seconds']:.0f} s: {'yes' if r['all_within_target'] else 'NO'}")
    return lines
