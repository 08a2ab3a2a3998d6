"""A trial run: execute a notebook in a fresh kernel, unsandboxed, and say each code cell's fate.

For the course's own notebooks only (``course demo``, the benchmark, the
tests); student work runs in :mod:`instructor.sandbox`.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from pathlib import Path

from instructor.cells import grade_id, is_graded_test, tags, task_of
from instructor.kernels import execute_in

#: The environment of a quick-mode run (CI, nbval, demo, tests).
QUICK_ENV = {"COURSE_QUICK": "1", "OPENBLAS_NUM_THREADS": "1"}


@dataclass
class CellResult:
    index: int
    grade_id: str | None
    task: str | None
    graded: bool
    error: str | None  # exception class name, or None
    evalue: str = ""
    stderr: str = ""
    traceback: list[str] = field(default_factory=list)  # of the error, as the kernel wrote it

    @property
    def failed(self) -> bool:
        """nbgrader scores a test cell 0 on an error or on any stderr output."""
        return self.error is not None or bool(self.stderr)


@dataclass
class TrialRun:
    cells: list[CellResult] = field(default_factory=list)
    seconds: float = 0.0

    def graded(self) -> list[CellResult]:
        return [c for c in self.cells if c.graded]

    def failed_tests(self, task: str | None = None) -> list[CellResult]:
        return [c for c in self.graded() if c.failed and (task is None or c.task == task)]

    def errors(self) -> list[CellResult]:
        return [c for c in self.cells if c.error is not None]


def run_trial(nb, cwd: Path, skip_tags=(), env: dict | None = None, timeout: int = 600) -> TrialRun:
    """Run ``nb`` with errors allowed; cells tagged with ``skip_tags`` are left out.

    The kernel inherits this process's environment plus :data:`QUICK_ENV`
    (unless ``env`` overrides it) and runs in ``cwd``.
    """
    nb = copy.deepcopy(nb)
    kept = [i for i, c in enumerate(nb.cells) if not set(tags(c)) & set(skip_tags)]
    nb.cells = [nb.cells[i] for i in kept]
    start = time.perf_counter()
    execute_in(nb, cwd, QUICK_ENV if env is None else env, timeout)
    run = TrialRun(seconds=time.perf_counter() - start)
    run.cells = [result_of(i, cell) for i, cell in zip(kept, nb.cells, strict=True) if cell.cell_type == "code"]
    return run


def result_of(index: int, cell) -> CellResult:
    """Read an executed code cell's outputs: its error, if any, and its stderr."""
    error, evalue, stderr, traceback = None, "", "", []
    for out in cell.get("outputs", []):
        if out.output_type == "error":
            error, evalue, traceback = out.ename, out.evalue, list(out.get("traceback", []))
        elif out.output_type == "stream" and out.name == "stderr":
            stderr += out.text
    return CellResult(index, grade_id(cell), task_of(cell), is_graded_test(cell), error, evalue, stderr, traceback)
