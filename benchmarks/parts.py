"""What ``python -m benchmarks`` (and ``course bench`` in a checkout) was asked, run part by part."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from benchmarks.against_torch import bench_against_torch
from benchmarks.autograde import bench_autograde
from benchmarks.class_tools import bench_class_tools
from benchmarks.classroom import MODES, bench_class
from benchmarks.machine import machine_info
from benchmarks.models import MODELS, bench_model
from benchmarks.notebooks import bench_notebooks
from benchmarks.report import table
from instructor.authoring import mistakes
from instructor.errors import CourseError
from instructor.paths import REPO_ROOT, SOLUTIONS, existing_assignments

PARTS = [p.key for p in MODELS] + ["notebooks", "autograde", "class", "class-tools", "claims", "busy"]
#: the course's catalogue of deliberate mistakes, which the class part grades
MISTAKES = REPO_ROOT / "tests" / "mistakes"


@dataclass(frozen=True)
class BenchRequest:
    """What ``python -m benchmarks`` was asked to measure."""

    only: str | None = None  # one part, or all
    json: Path | None = None  # also write the figures here
    full: bool = False  # also time each notebook in full mode
    jobs: int = 2  # parallel autograde jobs
    class_size: int = 200
    modes: tuple[str, ...] = MODES
    mistakes: Path = MISTAKES  # the catalogue the class part writes into its submissions
    against: str | None = None  # "torch": time the models against their PyTorch twins instead
    rounds: int = 3  # rounds of the comparison
    steps: int = 50  # interleaved steps per model per round
    seeds: int = 5  # runs of each notebook in part claims


def _catalogue(folder: Path, assignments: list[str]) -> dict[str, list[mistakes.Mistake]]:
    try:
        return {a: mistakes.load(folder, a) for a in assignments}
    except FileNotFoundError as err:
        raise CourseError(f"the class bench needs a mistake catalogue: {err} (see --mistakes).") from None


def run(req: BenchRequest) -> dict:
    """Measure the parts ``req`` names, print the table (and write the JSON); returns the figures."""
    if req.against:
        return _run_against(req)
    only = req.only
    if only and only not in PARTS:
        raise CourseError(f"There is no bench part {only!r} (parts: {', '.join(PARTS)}).")
    if req.jobs < 1:
        raise CourseError("--jobs takes a whole number of at least 1.")
    quiet = not sys.stderr.isatty()
    if only == "claims":  # never part of a run of every part: it takes about an hour
        if req.seeds < 1:
            raise CourseError("--seeds takes a whole number of at least 1.")
        from benchmarks.claims import RESULTS, bench_claims
        from benchmarks.claims import table as claims_table

        claims = bench_claims(req.seeds, out=req.json or RESULTS, quiet=False)
        print("\n".join(claims_table(claims)))
        print(f"wrote {req.json or RESULTS}")
        return claims
    if only == "busy":  # never part of a run of every part: it keeps the machine busy for minutes
        from benchmarks.busy import bench_busy
        from benchmarks.busy import table as busy_table

        figures = {"machine": machine_info(), "busy": bench_busy(quiet=quiet)}
        print("\n".join(busy_table(figures["busy"])))
        if req.json:
            Path(req.json).write_text(json.dumps(figures, indent=2) + "\n")
            print(f"wrote {req.json}")
        return figures
    results: dict = {"machine": machine_info()}
    present = existing_assignments(SOLUTIONS)
    for part in MODELS:
        if only in (None, part.key) and part.assignment in present:
            print(f"timing {part.title} ...", flush=True)
            results.setdefault("models", {})[part.key] = bench_model(part, quiet)
    if only in (None, "notebooks"):
        print("timing the solution notebooks ...", flush=True)
        results["notebooks"] = bench_notebooks(req.full, quiet)
    if only in (None, "autograde"):
        print(f"timing autograde, serial and with {req.jobs} jobs ...", flush=True)
        results["autograde"] = bench_autograde(req.jobs, quiet)
    if only in (None, "class"):
        print(f"grading a class of {req.class_size}: {','.join(req.modes)} ...", flush=True)
        results["class"] = bench_class(req.class_size, list(req.modes), _catalogue(req.mistakes, present), quiet)
    if only in (None, "class-tools"):
        print(f"grading a class of {req.class_size}, then timing report, similarity, extend, export ...", flush=True)
        results["class_tools"] = bench_class_tools(req.class_size, _catalogue(req.mistakes, present), quiet)
    return _report(results, req.json)


def _run_against(req: BenchRequest) -> dict:
    """``--against torch``: the four models' steps against their PyTorch twins."""
    if req.against != "torch":
        raise CourseError(f"--against takes torch, not {req.against!r}.")
    figures = bench_against_torch(req.only, rounds=req.rounds, steps=req.steps, quiet=not sys.stderr.isatty())
    return _report({"machine": machine_info(), "against_torch": figures}, req.json)


def _report(results: dict, json_path: Path | None) -> dict:
    """Print the table of ``results``, write them as JSON if asked; return them."""
    print(table(results))
    if json_path:
        Path(json_path).write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {json_path}")
    return results
