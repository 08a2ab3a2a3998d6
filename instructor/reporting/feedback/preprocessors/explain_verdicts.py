"""Say, on every graded cell of a feedback page, whether it passed, failed or waits, and why it failed.

Runs after ``GetGrades`` and ``MarkPendingGrades`` (which put the score,
points and pending mark on each graded cell) and before
``HideHiddenTestOutputs`` (which replaces the outputs of cells that ran
hidden tests): it needs the hidden tests' lines and the error output to find
the check that failed. It writes into ``metadata.nbgrader``:

* ``verdict``: ``passed``, ``failed`` or ``waiting`` (the page shows it by
  colour, symbol and word, not by the number alone);
* ``why``: the failed check in its author's words
  (:func:`instructor.reporting.failures.tell_student`: a hidden check only by
  the message written for it, never its code or inputs), with the values it
  may show; ``why_parts``, the same as ``[text, is a value]`` pieces, for
  the page to set the values apart;
* ``hidden_failed``: the check that failed is a hidden one (only then does
  the page say that the cell's output is withheld because it ran hidden tests);
* ``raised``: for an exception the student's code raised while a check
  ran it (:func:`instructor.reporting.failures.raised_in_answer`): its type,
  the student's own line it came from, and its message where no hidden code
  had run before it, after hidden code only as the student's own run of the
  cell (the notebook they handed in) vouches for it (``message`` None:
  withheld, ``hidden``: during a hidden check);
* ``depends``: ``[name, task]`` pairs (when the student's code raised an
  error, the task whose answer cell the error came out of, if that is an
  earlier failed one; none if it came out of this task's own answer): a function or class of an earlier
  task that this cell uses and whose own checks failed, so that one mistake
  that fails six cells reads as one cause ("fix that first").

Names come from the release's test cells only (the functions a task's checks
call), so nothing a student chose is written here.
"""

from __future__ import annotations

import ast

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from instructor.cells import grade_id, hidden_lines, is_graded_test, task_of, visible_source
from instructor.grading.syntax import parse
from instructor.reporting.failures import failed_check, raised_in_answer, tell_student_parts
from instructor.reporting.feedback.preprocessors.hide_hidden_test_outputs import own_outputs


def _names(source: str, top_level_definitions: bool = False) -> set[str]:
    """Names a piece of code uses (or, with ``top_level_definitions``, the functions and classes it defines)."""
    try:
        tree = parse(source)
    except SyntaxError:
        return set()
    if top_level_definitions:
        return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _student_cells(nb) -> dict[int, tuple[str, str | None]]:
    """The source and grade id (None for a cell of their own) of each cell the student writes in (an answer,
    or a cell of their own), by its run count.

    Locked cells are left out: a test cell holds hidden lines, and a traceback (written in the
    student's kernel) chooses only which of the student's own lines is quoted.
    """
    cells = {}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        count = cell.get("execution_count")
        if cell.cell_type == "code" and isinstance(count, int) and not meta.get("locked") and not meta.get("grade"):
            cells[count] = (cell.source, meta.get("grade_id") if meta.get("solution") else None)
    return cells


def _verdict(meta: dict) -> str:
    if meta.get("pending"):
        return "waiting"
    score, points = float(meta.get("score") or 0), float(meta.get("points") or 0)
    if score >= points:
        return "passed"
    # a written answer a grader gave some of its points is no failure (a check passes or fails whole)
    return "partly" if meta.get("solution") and score > 0 else "failed"


class ExplainVerdicts(Preprocessor):
    """Mark each graded cell passed / failed / waiting; name a failed check and what it depends on."""

    enabled = Bool(True, help="nbconvert preprocessors are off unless enabled").tag(config=True)

    def preprocess(self, nb, resources):
        answers = {
            grade_id(c): (i, c.source)
            for i, c in enumerate(nb.cells)
            if c.get("metadata", {}).get("nbgrader", {}).get("solution") and c.cell_type == "code"
        }
        tests = [(i, c) for i, c in enumerate(nb.cells) if is_graded_test(c)]
        called = {}  # task -> names its checks use (the release's words)
        for _, cell in tests:
            called.setdefault(task_of(cell), set()).update(_names(visible_source(cell.source)))
        offers = {
            task: _names(answers[task][1], top_level_definitions=True) & called.get(task, set()) for task in answers
        }

        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("grade"):
                meta["verdict"] = _verdict(meta)
        failed_tasks = {task_of(c) for _, c in tests if c.metadata.nbgrader.get("verdict") == "failed"}

        students = _student_cells(nb)
        origin: list[str | None] = [None]  # the answer cell the quoted line stands in

        def student_line(count: int, number: int) -> str | None:
            source, answer = students.get(count, ("", None))
            lines = source.splitlines()
            text = (lines[number - 1].strip() or None) if 0 < number <= len(lines) else None
            if text is not None:
                origin[0] = answer
            return text

        with_hidden = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and hidden_lines(c.source)]
        first_hidden = with_hidden[0] if with_hidden else None
        secrets = [line for i in with_hidden for line in hidden_lines(nb.cells[i].source)]
        own = own_outputs(self.config, resources) if with_hidden else {}  # the student's own run vouches
        for index, cell in tests:
            meta = cell.metadata.nbgrader
            if meta["verdict"] != "failed":
                continue
            hidden_ran_before = first_hidden is not None and first_hidden < index
            origin[0] = None
            mine = own.get(cell.get("id"), [])  # this cell's outputs in the student's own run
            raised = raised_in_answer(
                cell.source, cell.get("outputs", []), student_line, hidden_ran_before, secrets, mine
            )
            if raised is not None:
                meta["raised"] = {
                    "exception": raised.exception,
                    "message": raised.message,
                    "line": raised.line,
                    "hidden": raised.hidden,
                    "after_hidden": raised.after_hidden,
                }
            parts = tell_student_parts(cell.source, cell.get("outputs", []), hidden_ran_before, mine)
            meta["why"] = "".join(text for text, _ in parts)
            meta["why_parts"] = [[text, value] for text, value in parts]
            failure = failed_check(cell.source, cell.get("outputs", []))
            meta["hidden_failed"] = bool(failure and failure.check and failure.check.hidden)
            task = task_of(cell)
            used = _names(visible_source(cell.source)) | _names(answers.get(task, (0, ""))[1])
            meta["depends"] = sorted(
                [name, other]
                for other in failed_tasks
                if other != task and other in answers and answers[other][0] < index
                for name in offers.get(other, set()) & used
            )
            came_from = origin[0] if raised is not None and raised.line is not None else None
            if came_from == task:  # the error came out of this task's own answer: the cause is here
                meta["depends"] = []
            elif came_from in failed_tasks and came_from in answers and answers[came_from][0] < index:
                # it came out of an earlier task's answer whose checks failed: that one, and only that one
                named = sorted(offers.get(came_from) or _names(answers[came_from][1], top_level_definitions=True))
                meta["depends"] = [[named[0], came_from]] if named else meta["depends"]
        return nb, resources
