"""Apply the deliberate mistakes of tests/mistakes/ to the solution notebooks.

A command for notebook authors::

    python -m tests.nbexec 01_rnn              # apply every mistake, report what fails
    python -m tests.nbexec 01_rnn --visible    # the same, with the hidden tests left out (as Validate runs)
"""

from __future__ import annotations

import copy
import os
import sys
from pathlib import Path

from nbclient import NotebookClient
from nbformat.v4 import new_code_cell
from traitlets.config import Config

from instructor.authoring import mistakes
from instructor.authoring.mistakes import apply_mistake
from instructor.authoring.trial import QUICK_ENV, TrialRun, result_of
from instructor.cells import is_graded_test, read, tags, visible_source
from instructor.grading.checks.notebook import judge_split, split_notebook
from instructor.kernels import kernel_transport
from instructor.paths import SOLUTIONS, notebook_path

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
            copy.deepcopy(self.source), timeout=600, kernel_name="python3", allow_errors=True,
            config=kernel_transport(Config()), resources={"metadata": {"path": str(self.path.parent)}},
        )
        self._kernel = self._client.setup_kernel()
        self._kernel.__enter__()

    def run(self, mistake) -> TrialRun:
        """Execute the fast cells with ``mistake`` applied, in a clean namespace.

        The graded test cells run as ``course grade`` runs them: their kernel
        part in the kernel, their checks judged outside it
        (:mod:`instructor.grading.checks`).
        """
        return self.run_notebook(apply_mistake(self.source, mistake))

    def run_notebook(self, nb) -> TrialRun:
        """Execute the fast cells of ``nb`` (a submission whose test cells are the release's), judged as in
        :meth:`run`."""
        checks = split_notebook(nb)
        reset = new_code_cell("%reset -f\nimport matplotlib.pyplot as _plt\n_plt.close('all')\ndel _plt")
        self._client.execute_cell(reset, 0, store_history=False)
        kept = [i for i, c in enumerate(nb.cells) if "slow" not in tags(c)]
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


def main(argv: list[str]) -> int:
    visible_only = "--visible" in argv
    argv = [a for a in argv if a != "--visible"]
    if len(argv) != 1:
        print("usage: python -m tests.nbexec ASSIGNMENT [--visible]", file=sys.stderr)
        return 2
    bad = 0
    runner = MistakeRunner(argv[0], visible_only=visible_only)
    for mistake in load_mistakes(argv[0]):
        run = runner.run(mistake)
        failed = [c.grade_id for c in run.failed_tests(mistake.task)]
        bad += not failed
        status = "loses points" if failed else "NOT CAUGHT"
        print(f"{mistake.task:24s} {mistake.name:36s} {status:12s} {', '.join(map(str, failed))}", flush=True)
    runner.close()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
