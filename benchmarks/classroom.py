"""`course bench --only class`: grade a synthetic class serially, with local Dask workers, on a Dask cluster.

The class: ``class_size`` submissions spread over the four assignments
(student ``s000`` hands in 01-04, then ``s001``, ...). Each is, in turn, one
of three kinds, so every assignment gets all three:

* ``reference``: the solution notebook (full marks);
* ``blank``: the student version as released (0);
* ``mistake``: the solution with one deliberate mistake written into its
  task's cell, cycling through the catalogue it is handed (the course's,
  ``tests/mistakes/``, holds the mistakes the suite proves lose points).

Modes (``--modes``, default all three):

* ``serial``: :func:`instructor.scheduling.loop.grade_class` in this process;
* ``jobs``: the same with ``jobs=2`` (a ``LocalCluster`` of 2 processes);
* ``scheduler``: a ``dask scheduler`` and two ``dask worker --nthreads 1``
  processes started here as separate commands, then ``scheduler=ADDRESS``.

Each mode grades into a fresh course directory. Reported: wall time, submissions
per minute, speed-up over serial (when serial ran), the coordinator's peak
resident memory (sampled after every record) after 100 submissions (a
quarter of a smaller class) and at
the end, and whether every mode gave each submission the same status and
score.
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from benchmarks.cluster import WORKERS, Cluster
from instructor import sandbox
from instructor.authoring.mistakes import Mistake, apply_mistake
from instructor.authoring.to_course_dir import into_course_dir
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.grading.intake import find_submissions
from instructor.paths import NOTEBOOKS, REPO_ROOT, SOLUTIONS, existing_assignments, notebook_path
from instructor.scheduling.loop import grade_class

MODES = ("serial", "jobs", "scheduler")
KINDS = ("reference", "blank", "mistake")
#: the memory comparison point (the issue: peak at 400 <= 1.1x peak at 100); a quarter of a smaller class
EARLY = 100


def early_point(size: int) -> int:
    return EARLY if size > EARLY else max(1, size // 4)


def rss_mb() -> float:
    """This process's resident memory now, in MB (Linux /proc; else the peak so far)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _with_mistake(nb, mistake: Mistake):
    try:
        return apply_mistake(nb, mistake)
    except (KeyError, ValueError):
        raise CourseError(
            f"mistake {mistake.name!r} no longer applies to the solution cell {mistake.task!r}."
        ) from None


def build_class(
    folder: Path, size: int, assignments: list[str], mistakes: dict[str, list[Mistake]]
) -> dict[tuple[str, str], str]:
    """Write ``size`` submissions under ``folder``; returns the kind of each (student, assignment)."""
    solutions = {a: nbformat.read(str(notebook_path(a, SOLUTIONS)), as_version=4) for a in assignments}
    kinds = {}
    for n in range(size):
        student, k = f"s{n // len(assignments):03d}", n % len(assignments)
        a = assignments[k]
        kind = KINDS[(n // len(assignments) + k) % len(KINDS)]
        target = folder / student / a
        target.mkdir(parents=True)
        if kind == "blank":
            shutil.copy(notebook_path(a, NOTEBOOKS), target / f"{a}.ipynb")
        else:
            nb = solutions[a]
            if kind == "mistake":
                nb = _with_mistake(nb, mistakes[a][(n // len(assignments)) % len(mistakes[a])])
            nbformat.write(nb, str(target / f"{a}.ipynb"))
        kinds[(student, a)] = kind
    return kinds


def _grade_mode(mode: str, tmp: Path, subs: list, assignments: list[str], quiet: bool) -> dict:
    early = early_point(len(subs))
    directory.init(tmp / f"course-dir-{mode}")
    course_dir = CourseDir.at(tmp / f"course-dir-{mode}")
    into_course_dir(course_dir, REPO_ROOT, assignments)
    peaks = {"early": 0.0, "all": 0.0}
    stamps: list[float] = []

    def on_record(n: int) -> None:
        now = rss_mb()
        peaks["all"] = max(peaks["all"], now)
        if n <= early:
            peaks["early"] = max(peaks["early"], now)
        stamps.append(time.perf_counter())

    jobs = WORKERS if mode == "jobs" else None
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    if mode == "scheduler":
        with Cluster(tmp / "cluster") as address:
            start = time.perf_counter()  # the cluster's start-up is the instructor's, not the grading's
            run = grade_class(
                course_dir,
                subs,
                unsafe=True,
                scheduler=address,
                force=True,
                log=lambda *_: None,
                progress=True,
                on_record=on_record,
            )
    else:
        run = grade_class(
            course_dir,
            subs,
            unsafe=True,
            force=True,
            log=lambda *_: None,
            progress=True,
            on_record=on_record,
            jobs=jobs,
        )
    wall = time.perf_counter() - start
    gaps = [b - a for a, b in zip([start, *stamps], stamps, strict=False)]  # one start more than stamps
    result = {
        "submissions": len(subs),
        "wall_seconds": round(wall, 1),
        "submissions_per_minute": round(60 * len(subs) / wall, 2),
        "seconds_per_submission": round(wall / len(subs), 2),
        "coordinator_peak_rss_early_after": early,
        "coordinator_peak_rss_mb_early": round(peaks["early"], 1),
        "coordinator_peak_rss_mb_at_end": round(peaks["all"], 1),
        "load_average_1min_before": round(load_before, 2),
        "load_average_1min_after": round(os.getloadavg()[0], 2),
        "grades": {f"{r.student}/{r.assignment}": [r.status.shown, r.score] for r in run.results},
        "statuses": run.counts(),
        "total_score": sum(r.score or 0 for r in run.results),
    }
    if mode == "serial":
        result["record_gaps"] = gaps  # one submission each (grade + record), for the per-kind figures
    return result


def bench_class(class_size: int, modes, mistakes: dict[str, list[Mistake]], quiet: bool = False) -> dict:
    """Grade the synthetic class in each mode; figures, speed-ups and the grade check.

    ``mistakes`` maps each assignment to the catalogue its ``mistake`` submissions draw from.
    """
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise CourseError(f"There is no class bench mode {', '.join(bad) or '(none)'} (modes: {', '.join(MODES)}).")
    if class_size < 1:
        raise CourseError("--class-size takes a whole number of at least 1.")
    assignments = existing_assignments(SOLUTIONS)
    out: dict = {"class_size": class_size, "isolation": sandbox.detect().detail, "workers": WORKERS, "modes": {}}
    with tempfile.TemporaryDirectory(prefix="course-bench-class-") as scratch:
        tmp = Path(scratch)
        kinds = build_class(tmp / "subs", class_size, assignments, mistakes)
        out["mix"] = {k: sum(v == k for v in kinds.values()) for k in KINDS}
        subs = find_submissions(tmp / "subs", assignments)
        for mode in modes:
            if not quiet:
                print(f"  class of {class_size}, {mode} ...", file=sys.stderr, flush=True)
            out["modes"][mode] = _grade_mode(mode, tmp, subs, assignments, quiet)
    serial = out["modes"].get("serial")
    if serial:
        gaps = serial.pop("record_gaps")
        order = [(s.student, s.assignment) for s in subs]
        by_kind = {k: [g for key, g in zip(order, gaps, strict=True) if kinds[key] == k] for k in KINDS}
        out["serial_seconds_per_submission_by_kind"] = {k: round(sum(v) / len(v), 2) for k, v in by_kind.items() if v}
        ref_blank = by_kind["reference"] + by_kind["blank"]
        if ref_blank:  # what `course bench --only autograde` averages (a reference and a blank each)
            out["serial_seconds_per_submission_reference_and_blank"] = round(sum(ref_blank) / len(ref_blank), 2)
        for r in out["modes"].values():
            r["speedup"] = round(serial["wall_seconds"] / r["wall_seconds"], 2)
    grades = {m: r.pop("grades") for m, r in out["modes"].items()}
    first = next(iter(grades.values()))
    out["grades_identical"] = all(g == first for g in grades.values())
    out["grade_differences"] = sorted({k for g in grades.values() for k in g if g.get(k) != first.get(k)})[:20]
    return out


def table(r: dict) -> list[str]:
    """The class part of the bench table."""
    lines = [
        "",
        f"class of {r['class_size']} ({', '.join(f'{n} {k}' for k, n in r['mix'].items())}), {r['workers']} workers",
    ]
    at = early_point(r["class_size"])
    lines.append(
        f"{'mode':10s} {'wall s':>8s} {'subs/min':>9s} {'speed-up':>9s} "
        f"{f'RSS@{at} MB':>11s} {'RSS end MB':>11s} {'load':>10s}"
    )
    for mode, m in r["modes"].items():
        lines.append(
            f"{mode:10s} {m['wall_seconds']:8.1f} {m['submissions_per_minute']:9.2f} "
            f"{m.get('speedup', float('nan')):9.2f} {m['coordinator_peak_rss_mb_early']:11.1f} "
            f"{m['coordinator_peak_rss_mb_at_end']:11.1f} "
            f"{m['load_average_1min_before']:4.2f}-{m['load_average_1min_after']:4.2f}"
        )
    if "serial_seconds_per_submission_by_kind" in r:
        kinds = ", ".join(f"{k} {v:.2f}" for k, v in r["serial_seconds_per_submission_by_kind"].items())
        lines.append(f"serial s/submission by kind: {kinds}")
    lines.append(
        "grades identical in every mode"
        if r["grades_identical"]
        else f"GRADES DIFFER between modes: {', '.join(r['grade_differences'])}"
    )
    return lines
