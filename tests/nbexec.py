"""Apply the deliberate mistakes of tests/mistakes/ to the solution notebooks.

A command for notebook authors::

    python -m tests.nbexec 01_rnn      # apply every mistake, report what fails
"""

from __future__ import annotations

import copy
import importlib
import sys
from pathlib import Path

from course.execute import Run, execute
from course.nbsource import find_cell, read
from course.paths import SOLUTIONS, notebook_path


def load_mistakes(assignment: str):
    module = importlib.import_module(f"tests.mistakes.{assignment}")
    return list(module.MISTAKES)


def apply_mistake(nb, mistake):
    """A copy of ``nb`` with one mistake written into its task's solution cell."""
    nb = copy.deepcopy(nb)
    cell = find_cell(nb, mistake.task)
    count = cell.source.count(mistake.replace)
    if count != 1:
        raise ValueError(
            f"mistake {mistake.name!r}: the text to replace occurs {count} times "
            f"in cell {mistake.task!r} (must be exactly once)"
        )
    cell.source = cell.source.replace(mistake.replace, mistake.by)
    return nb


def run_mistake(assignment: str, mistake, solutions: Path = SOLUTIONS) -> Run:
    """Execute the fast (not ``slow``) cells of a solution notebook with one mistake."""
    path = notebook_path(assignment, solutions)
    nb = apply_mistake(read(path), mistake)
    return execute(nb, cwd=path.parent, skip_tags=("slow",))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.nbexec ASSIGNMENT", file=sys.stderr)
        return 2
    bad = 0
    for mistake in load_mistakes(argv[0]):
        run = run_mistake(argv[0], mistake)
        failed = [c.grade_id for c in run.failed_tests(mistake.task)]
        bad += not failed
        status = "loses points" if failed else "NOT CAUGHT"
        print(f"{mistake.task:24s} {mistake.name:36s} {status:12s} {', '.join(map(str, failed))}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
