"""Apply the deliberate mistakes of tests/mistakes/ to the solution notebooks.

A command for notebook authors::

    python -m tests.nbexec 01_rnn              # apply every mistake, report what fails
    python -m tests.nbexec 01_rnn --visible    # the same, with the hidden tests left out (as Validate runs)
    python -m tests.nbexec 01_rnn --points     # also the points each mistake costs, in its own task and in others
"""

from __future__ import annotations

import contextlib
import copy
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from nbclient import NotebookClient
from nbformat.v4 import new_code_cell
from traitlets.config import Config

from instructor.authoring import mistakes
from instructor.authoring.mistakes import apply_mistake
from instructor.authoring.trial import QUICK_ENV, TrialRun, result_of
from instructor.cells import find_cell, grade_id, is_graded_test, read, tags, task_of, visible_source
from instructor.grading.checks.notebook import judge_split, split_notebook
from instructor.kernels import kernel_transport
from instructor.paths import SOLUTIONS, notebook_path
from instructor.reporting.failures import tell_student

#: the course's catalogue of mistakes
CATALOGUE = Path(__file__).resolve().parent / "mistakes"


def load_mistakes(assignment: str):
    return mistakes.load(CATALOGUE, assignment)


def without_hidden_tests(nb):
    """A copy of ``nb`` whose graded test cells keep only what a student sees (``visible_source``)."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if is_graded_test(cell):
            cell.source = visible_source(cell.source)
    return nb


class MistakeRunner:
    """One kernel for all the mistakes of one assignment.

    Starting a kernel and importing MyGrad costs more than running a
    notebook's fast cells, so the kernel is kept and its namespace is reset
    (``%reset -f``) before each mistake. Imported modules stay cached, which is
    all that is shared between runs.

    With ``visible_only`` the graded test cells lose their hidden tests, as in
    the student version: a failure then is one the student sees before
    submitting (Validate runs these same checks).
    """

    def __init__(self, assignment: str, solutions: Path = SOLUTIONS, visible_only: bool = False):
        self.path = notebook_path(assignment, solutions)
        self.source = read(self.path)
        if visible_only:
            self.source = without_hidden_tests(self.source)
        self._env = dict(os.environ)
        os.environ.update(QUICK_ENV)
        self._client = NotebookClient(
            copy.deepcopy(self.source),
            timeout=600,
            kernel_name="python3",
            allow_errors=True,
            config=kernel_transport(Config()),
            resources={"metadata": {"path": str(self.path.parent)}},
        )
        self._kernel = self._client.setup_kernel()
        self._kernel.__enter__()

    def run(self, mistake, through: str | None = None, seed: int | None = None) -> TrialRun:
        """Execute the fast cells with ``mistake`` applied, in a clean namespace.

        The graded test cells run as ``course grade`` runs them: their kernel
        part in the kernel, their checks judged outside it
        (:mod:`instructor.grading.checks`). With ``through`` (a task), the run
        stops after that task's last graded test cell: no later cell can change
        what its tests said. The hidden checks draw their inputs from ``seed``
        (:mod:`course.draws`; None: the author's seed), as a submission's own.
        """
        return self.run_notebook(apply_mistake(self.source, mistake), through, seed)

    def run_notebook(self, nb, through: str | None = None, seed: int | None = None) -> TrialRun:
        """Execute the fast cells of ``nb`` (a submission whose test cells are the release's), judged as in
        :meth:`run`, its hidden inputs drawn from ``seed``; with ``through``, only up to the last graded test
        cell of that task."""
        checks = split_notebook(nb, seed=seed)
        reset = new_code_cell("%reset -f\nimport matplotlib.pyplot as _plt\n_plt.close('all')\ndel _plt")
        self._client.execute_cell(reset, 0, store_history=False)
        end = len(nb.cells)
        if through is not None:
            end = 1 + max(
                (i for i, c in enumerate(nb.cells) if is_graded_test(c) and task_of(c) == through), default=end - 1
            )
        kept = [i for i, c in enumerate(nb.cells[:end]) if "slow" not in tags(c)]
        run = TrialRun()
        for i in kept:
            cell = nb.cells[i]
            if cell.cell_type != "code":
                continue
            self._client.execute_cell(cell, i, store_history=False)
            judge_split(cell, checks)  # a split test cell is judged outside, as the grader does
            run.cells.append(result_of(i, cell))
        return run

    def close(self) -> None:
        self._kernel.__exit__(None, None, None)
        os.environ.clear()
        os.environ.update(self._env)


@contextlib.contextmanager
def runner_per_assignment() -> Iterator[Callable[[str], MistakeRunner]]:
    """A :class:`MistakeRunner` for each assignment asked for, started on first use and closed at the end."""
    started: dict[str, MistakeRunner] = {}

    def get(assignment: str) -> MistakeRunner:
        if assignment not in started:
            started[assignment] = MistakeRunner(assignment)
        return started[assignment]

    try:
        yield get
    finally:
        for runner in started.values():
            runner.close()


def points_of(nb) -> dict[str, float]:
    """The points of each graded test cell of ``nb``, by ``grade_id``."""
    return {grade_id(c): float(c.metadata["nbgrader"].get("points", 0)) for c in nb.cells if is_graded_test(c)}


def points_lost(run: TrialRun, points: dict[str, float], task: str) -> tuple[float, dict[str, float]]:
    """The points ``run`` loses in ``task``, and those it loses in each other task."""
    own, others = 0.0, {}
    for cell in run.failed_tests():
        if cell.task == task:
            own += points[cell.grade_id]
        else:
            others[cell.task] = others.get(cell.task, 0.0) + points[cell.grade_id]
    return own, others


def main(argv: list[str]) -> int:
    visible_only = "--visible" in argv
    with_points = "--points" in argv
    argv = [a for a in argv if a not in ("--visible", "--points")]
    if len(argv) != 1:
        print("usage: python -m tests.nbexec ASSIGNMENT [--visible] [--points]", file=sys.stderr)
        return 2
    bad = 0
    runner = MistakeRunner(argv[0], visible_only=visible_only)
    points = points_of(runner.source)
    for mistake in load_mistakes(argv[0]):
        run = runner.run(mistake)
        failed = [c.grade_id for c in run.failed_tests(mistake.task)]
        bad += not failed
        status = "loses points" if failed else "NOT CAUGHT"
        line = f"{mistake.task:24s} {mistake.name:36s} {status:12s} {', '.join(map(str, failed))}"
        if with_points and failed and mistake.expect:  # the first failure, as the feedback page says it
            first = run.failed_tests(mistake.task)[0]
            error = [
                {"output_type": "error", "ename": first.error, "evalue": first.evalue, "traceback": first.traceback}
            ]
            cell = find_cell(runner.source, first.grade_id)
            said = tell_student(cell.source, error) if first.error else first.stderr
            if not (mistake.expect in said and mistake.expect in first.evalue):
                line += f"  [first failure does not say {mistake.expect!r}]"
        if with_points:
            own, others = points_lost(run, points, mistake.task)
            spread = ", ".join(f"{t} {p:g}" for t, p in others.items())
            line += f"  | lost {own + sum(others.values()):g}: own {own:g}" + (f"; others: {spread}" if spread else "")
        print(line, flush=True)
    runner.close()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
