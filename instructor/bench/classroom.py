"""`course bench --only class`: grade a synthetic class serially, with local Dask workers, on a Dask cluster.

The class: ``class_size`` submissions spread over the four assignments
(student ``s000`` hands in 01-04, then ``s001``, ...). Each is, in turn, one
of three kinds, so every assignment gets all three:

* ``reference``: the solution notebook (full marks);
* ``blank``: the student version as released (0);
* ``mistake``: the solution with one deliberate mistake of
  ``tests/mistakes/<a>.py`` written into its task's cell (the mistakes the
  suite proves lose points), cycling through the list.

Modes (``--modes``, default all three):

* ``serial``: :func:`course.schedule.grade_class` in this process;
* ``jobs``: the same with ``jobs=2`` (a ``LocalCluster`` of 2 processes);
* ``scheduler``: a ``dask scheduler`` and two ``dask worker --nthreads 1``
  processes started here as separate commands, then ``scheduler=ADDRESS``.

Each mode grades into a fresh workspace. Reported: wall time, submissions
per minute, speed-up over serial (when serial ran), the coordinator's peak
resident memory (sampled after every record) after 100 submissions (a
quarter of a smaller class) and at
the end, and whether every mode gave each submission the same status and
score.
"""

from __future__ import annotations

import copy
import importlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from course.errors import CourseError
from course.paths import NOTEBOOKS, REPO_ROOT, SOLUTIONS, existing_assignments, notebook_path

MODES = ("serial", "jobs", "scheduler")
KINDS = ("reference", "blank", "mistake")
#: the memory comparison point (the issue: peak at 400 <= 1.1x peak at 100); a quarter of a smaller class
EARLY = 100


def early_point(size: int) -> int:
    return EARLY if size > EARLY else max(1, size // 4)
WORKERS = 2


def rss_mb() -> float:
    """This process's resident memory now, in MB (Linux /proc; else the peak so far)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _mistakes(assignment: str) -> list:
    """The deliberate mistakes of ``tests/mistakes/<assignment>.py`` (a repository checkout has them)."""
    if not (REPO_ROOT / "tests" / "mistakes" / f"{assignment}.py").is_file():
        raise CourseError(f"the class bench needs tests/mistakes/{assignment}.py (run it from a repository checkout).")
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))
    return list(importlib.import_module(f"tests.mistakes.{assignment}").MISTAKES)


def _with_mistake(nb, mistake):
    for cell in nb.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == mistake.task:
            if cell.source.count(mistake.replace) != 1:
                break
            cell.source = cell.source.replace(mistake.replace, mistake.by)
            return nb
    raise CourseError(f"mistake {mistake.name!r} no longer applies to the solution cell {mistake.task!r}.")


def build_class(folder: Path, size: int, assignments: list[str]) -> dict[tuple[str, str], str]:
    """Write ``size`` submissions under ``folder``; returns the kind of each (student, assignment)."""
    solutions = {a: nbformat.read(str(notebook_path(a, SOLUTIONS)), as_version=4) for a in assignments}
    mistakes = {a: _mistakes(a) for a in assignments}
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
            nb = copy.deepcopy(solutions[a])
            if kind == "mistake":
                nb = _with_mistake(nb, mistakes[a][(n // len(assignments)) % len(mistakes[a])])
            nbformat.write(nb, str(target / f"{a}.ipynb"))
        kinds[(student, a)] = kind
    return kinds


# --------------------------------------------------------------------------- a Dask cluster of separate processes


class Cluster:
    """``dask scheduler`` plus ``workers`` x ``dask worker --nthreads 1``, as separate commands."""

    def __init__(self, folder: Path, workers: int = WORKERS):
        self.folder, self.workers, self.procs = folder, workers, []
        folder.mkdir(parents=True, exist_ok=True)
        self.file = folder / "scheduler.json"
        self.log = (folder / "dask.log").open("w")

    def __enter__(self) -> str:
        dask = [sys.executable, "-m", "dask"]
        common = {"stdout": self.log, "stderr": subprocess.STDOUT, "start_new_session": True}
        self.procs.append(subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                            "--no-dashboard", "--scheduler-file", str(self.file)], **common))
        for _ in range(self.workers):
            self.procs.append(subprocess.Popen([*dask, "worker", "--scheduler-file", str(self.file), "--nthreads", "1",
                                                "--nworkers", "1", "--no-dashboard", "--memory-limit", "0"], **common))
        from distributed import Client

        deadline = time.monotonic() + 120
        while not self.file.is_file():
            if time.monotonic() > deadline or self.procs[0].poll() is not None:
                raise CourseError(f"dask scheduler did not start (see {self.folder / 'dask.log'}).")
            time.sleep(0.2)
        with Client(scheduler_file=str(self.file), timeout="60s") as client:
            client.wait_for_workers(self.workers, timeout=120)
            return client.scheduler.address

    def __exit__(self, *exc) -> None:
        for proc in reversed(self.procs):  # workers first, then the scheduler
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.log.close()


# --------------------------------------------------------------------------- the bench


def _grade_mode(mode: str, tmp: Path, subs: list, assignments: list[str], quiet: bool) -> dict:
    from course import grading, schedule

    early = early_point(len(subs))
    workspace = tmp / f"ws-{mode}"
    grading.prepare_workspace(workspace, REPO_ROOT, assignments)
    peaks = {"early": 0.0, "all": 0.0}
    stamps: list[float] = []

    def on_record(n: int) -> None:
        now = rss_mb()
        peaks["all"] = max(peaks["all"], now)
        if n <= early:
            peaks["early"] = max(peaks["early"], now)
        stamps.append(time.perf_counter())

    options = {"jobs": WORKERS} if mode == "jobs" else {}
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    if mode == "scheduler":
        with Cluster(tmp / "cluster") as address:
            start = time.perf_counter()  # the cluster's start-up is the instructor's, not the grading's
            run = schedule.grade_class(workspace, subs, unsafe=True, scheduler=address, force=True,
                                       log=lambda *_: None, progress=True, on_record=on_record)
    else:
        run = schedule.grade_class(workspace, subs, unsafe=True, force=True, log=lambda *_: None,
                                   progress=True, on_record=on_record, **options)
    wall = time.perf_counter() - start
    gaps = [b - a for a, b in zip([start, *stamps], stamps)]
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
        "grades": {f"{o['student']}/{o['assignment']}": [o["status"], o["score"]] for o in run.summaries},
        "statuses": run.counts(),
        "total_score": sum(o["score"] or 0 for o in run.summaries),
    }
    if mode == "serial":
        result["record_gaps"] = gaps  # one submission each (grade + record), for the per-kind figures
    return result


def bench_class(class_size: int = 200, modes=MODES, quiet: bool = False) -> dict:
    """Grade the synthetic class in each mode; figures, speed-ups and the grade check."""
    from course import sandbox

    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise CourseError(f"There is no class bench mode {', '.join(bad) or '(none)'} (modes: {', '.join(MODES)}).")
    if class_size < 1:
        raise CourseError("--class-size takes a whole number of at least 1.")
    assignments = existing_assignments(SOLUTIONS)
    out: dict = {"class_size": class_size, "isolation": sandbox.detect().detail, "workers": WORKERS, "modes": {}}
    with tempfile.TemporaryDirectory(prefix="course-bench-class-") as tmp:
        tmp = Path(tmp)
        kinds = build_class(tmp / "subs", class_size, assignments)
        out["mix"] = {k: sum(v == k for v in kinds.values()) for k in KINDS}
        from course import grading

        subs = grading.find_submissions(tmp / "subs", assignments)
        for mode in modes:
            if not quiet:
                print(f"  class of {class_size}, {mode} ...", file=sys.stderr, flush=True)
            out["modes"][mode] = _grade_mode(mode, tmp, subs, assignments, quiet)
    serial = out["modes"].get("serial")
    if serial:
        gaps = serial.pop("record_gaps")
        order = [(s.student, s.assignment) for s in subs]
        by_kind = {k: [g for key, g in zip(order, gaps) if kinds[key] == k] for k in KINDS}
        out["serial_seconds_per_submission_by_kind"] = {k: round(sum(v) / len(v), 2) for k, v in by_kind.items() if v}
        ref_blank = by_kind["reference"] + by_kind["blank"]
        if ref_blank:  # what `course bench --only autograde` averages (a reference and a blank each)
            out["serial_seconds_per_submission_reference_and_blank"] = round(sum(ref_blank) / len(ref_blank), 2)
        for mode, r in out["modes"].items():
            r["speedup"] = round(serial["wall_seconds"] / r["wall_seconds"], 2)
    grades = {m: r.pop("grades") for m, r in out["modes"].items()}
    first = next(iter(grades.values()))
    out["grades_identical"] = all(g == first for g in grades.values())
    out["grade_differences"] = sorted({k for g in grades.values() for k in g if g.get(k) != first.get(k)})[:20]
    return out


def table(r: dict) -> list[str]:
    """The class part of the bench table."""
    lines = ["", f"class of {r['class_size']} ({', '.join(f'{n} {k}' for k, n in r['mix'].items())}), "
                 f"{r['workers']} workers"]
    at = early_point(r["class_size"])
    lines.append(f"{'mode':10s} {'wall s':>8s} {'subs/min':>9s} {'speed-up':>9s} {f'RSS@{at} MB':>11s} {'RSS end MB':>11s} {'load':>10s}")
    for mode, m in r["modes"].items():
        lines.append(f"{mode:10s} {m['wall_seconds']:8.1f} {m['submissions_per_minute']:9.2f} "
                     f"{m.get('speedup', float('nan')):9.2f} {m['coordinator_peak_rss_mb_early']:11.1f} "
                     f"{m['coordinator_peak_rss_mb_at_end']:11.1f} "
                     f"{m['load_average_1min_before']:4.2f}-{m['load_average_1min_after']:4.2f}")
    if "serial_seconds_per_submission_by_kind" in r:
        kinds = ", ".join(f"{k} {v:.2f}" for k, v in r["serial_seconds_per_submission_by_kind"].items())
        lines.append(f"serial s/submission by kind: {kinds}")
    lines.append("grades identical in every mode" if r["grades_identical"] else
                 f"GRADES DIFFER between modes: {', '.join(r['grade_differences'])}")
    return lines
