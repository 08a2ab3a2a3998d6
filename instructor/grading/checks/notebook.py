"""A notebook's test cells split before the sandbox runs it, and judged by the autograder after.

Both ``course grade`` (the preprocessors ``SplitChecks`` and ``JudgeChecks``)
and the test suite's mistake runner use these, so a mistake is proven to
lose points exactly as the autograder takes them. What the split leaves for the
judge is a :class:`NotebookChecks`, made one way (:func:`plan_checks`) and
carried beside the :class:`~instructor.grading.submission.Submission` in
nbgrader's resources (:func:`carry`, :func:`carried_checks`); it never
enters the sandbox.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from nbformat.v4 import new_output

from instructor.cells import grade_id, is_graded_test
from instructor.grading.checks.channel import FAULT_MESSAGES, sent_values
from instructor.grading.checks.judge import Fault, Verdict, imported_names, trusted_imports
from instructor.grading.checks.split import JUDGED, Plan, plan
from instructor.grading.checks.worker import Budget, judge_isolated

#: what IPython writes before a frame of a cell: ``Cell In[12], line 7`` (colour codes between any two words)
_ANSI = r"(?:\x1b\[[0-9;]*[A-Za-z])*"
_FRAME = re.compile(rf"(Cell{_ANSI} {_ANSI}In\[)(\d*)(\]{_ANSI}, line {_ANSI})(\d+)")
#: where the checks wait in nbgrader's resources, from ``SplitChecks`` to ``JudgeChecks``
RESOURCES_KEY = "course_checks"


@dataclass(frozen=True)
class SplitCell:
    """One graded test cell as the autograder split it: what its kernel runs, and what the judge needs after."""

    plan: Plan  # its statements and how each runs (:mod:`.split`)
    original: str  # its source as the student version has it: the cell shows it again once judged
    kernel_code: str  # what the kernel runs in its place
    origin: tuple[int, ...]  # for each line of ``kernel_code``, the cell's line it stands for

    @property
    def name(self) -> str:
        return self.plan.cell


@dataclass(frozen=True)
class NotebookChecks:
    """The split test cells of one notebook and the student version's set-up code whose trusted imports the autograder
    makes itself (:func:`~instructor.grading.checks.judge.trusted_imports`)."""

    cells: tuple[SplitCell, ...]
    setup: tuple[str, ...]
    seed: int | None = None  # what the hidden checks draw from, in the kernel and in the judge (course.draws)
    variant: int | None = None  # what the student's own parameters are drawn from, in both too (course.draws)

    def get(self, name: str | None) -> SplitCell | None:
        """The split cell whose ``grade_id`` is ``name``, None if no cell of that name was split."""
        return next((c for c in self.cells if c.name == name), None)

    def __contains__(self, name: object) -> bool:
        return any(c.name == name for c in self.cells)


def setup_sources(nb) -> tuple[str, ...]:
    """The code of the set-up cells of ``nb`` (a student version or source notebook: the author's), whose imports of
    trusted modules the autograder makes itself (:func:`~instructor.grading.checks.judge.trusted_imports`)."""
    meta = lambda c: c.get("metadata", {}).get("nbgrader", {})  # noqa: E731
    return tuple(
        c.source for c in nb.cells if c.cell_type == "code" and not meta(c).get("grade") and not meta(c).get("solution")
    )


def notebook_imports(nb) -> dict:
    """The namespace the trusted imports of ``nb``'s set-up cells give."""
    return trusted_imports(list(setup_sources(nb)))


def test_cell_id(cell) -> str:
    """The ``grade_id`` of graded test ``cell``; raises ValueError without one (nbgrader cannot score such a cell)."""
    name = grade_id(cell)
    if name is None:
        raise ValueError("a graded test cell has no nbgrader grade_id")
    return name


def plan_checks(
    sources: Mapping[str, str], setup: Sequence[str], seed: int | None = None, variant: int | None = None
) -> NotebookChecks:
    """The split of each test cell of ``sources`` (grade_id -> the student version's source), with the student
    version's set-up cells ``setup``: the kernel part binds their trusted imports privately, the judge makes them
    itself.

    A cell whose source does not parse is left out: it runs as it is, and nbgrader's rule (an error fails
    it) decides.
    """
    setup = tuple(setup)
    names = imported_names(trusted_imports(list(setup)))
    cells = []
    for name, source in sources.items():
        try:
            found = plan(name, source, names)
        except SyntaxError:
            continue
        code, origin = found.kernel_code(setup, seed, variant)
        cells.append(SplitCell(found, source, code, tuple(origin)))
    return NotebookChecks(tuple(cells), setup, seed, variant)


def split_notebook(nb, release=None, seed: int | None = None, variant: int | None = None) -> NotebookChecks:
    """Put the kernel part of every graded test cell of ``nb`` in its place; the checks, for the judge.

    The imports come from ``release`` (default: ``nb`` itself, for a notebook
    of the author's): a student's edits to a set-up cell never say what the
    grader binds. Hidden checks draw their inputs from ``seed``, and the student's own parameters come from
    ``variant`` (:mod:`course.draws`).
    """
    tests = [cell for cell in nb.cells if is_graded_test(cell)]
    checks = plan_checks(
        {test_cell_id(cell): cell.get("source", "") for cell in tests},
        setup_sources(nb if release is None else release),
        seed,
        variant,
    )
    for cell in tests:
        split = checks.get(grade_id(cell))
        if split is not None:
            cell["source"] = split.kernel_code
    return checks


def carry(resources: dict, checks: NotebookChecks) -> None:
    """Put ``checks`` in nbgrader's ``resources`` for the judge (:func:`carried_checks`)."""
    resources[RESOURCES_KEY] = checks


def carried_checks(resources: dict) -> NotebookChecks | None:
    """The checks ``SplitChecks`` left in ``resources``; None if it did not run in this pass (nbgrader's own
    ``autograde`` prepares in another one)."""
    checks = resources.get(RESOURCES_KEY)
    if checks is not None and not isinstance(checks, NotebookChecks):
        raise TypeError(f"resources[{RESOURCES_KEY!r}] holds a {type(checks).__name__}, not NotebookChecks")
    return checks


def _map_lines(cell, origin: Sequence[int]) -> None:
    """Tracebacks of the kernel part point at the cell's own lines again.

    Only the frames of this cell (``In[<its execution count>]``, or the first
    frame when it has none) are renumbered: the student's cells keep theirs.
    """
    count = cell.get("execution_count")

    def back(m: re.Match[str], first: list[bool]) -> str:
        ours = str(m.group(2)) == str(count) if count is not None else first[0]
        first[0] = False
        if not ours:
            return m.group(0)
        n = int(m.group(4))
        return m.group(1) + m.group(2) + m.group(3) + str(origin[n - 1] if 0 < n <= len(origin) else 0)

    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            state = [True]
            out["traceback"] = [
                _FRAME.sub(partial(back, first=state), str(line)) for line in out.get("traceback") or []
            ]


def judge_split(cell, checks: NotebookChecks, budget: Budget | None = None) -> Verdict | None:
    """:func:`judge_cell` on executed ``cell`` if it is one of ``checks``' split cells, else None."""
    split = checks.get(grade_id(cell)) if is_graded_test(cell) else None
    if split is None:
        return None
    return judge_cell(cell, split.plan, split.original, split.origin, checks.setup, budget, checks.seed, checks.variant)


def judge_cell(
    cell,
    found: Plan,
    original: str,
    origin: Sequence[int],
    setup: tuple[str, ...],
    budget: Budget | None = None,
    seed: int | None = None,
    variant: int | None = None,
) -> Verdict:
    """Judge executed test ``cell`` outside; its source is the student version's again, a failure is an error output.

    ``budget`` is the submission's judging time (:class:`~instructor.grading.checks.worker.Budget`);
    ``seed`` and ``variant``, what the cell's hidden inputs and the student's parameters were drawn from in the
    kernel.
    """
    name = found.cell
    asked = {index for index, st in enumerate(found.statements) if st.kind == JUDGED}
    sent, fault = sent_values(cell, name, asked)
    cell["source"] = original
    _map_lines(cell, origin)
    kernel_failed = any(o.get("output_type") == "error" for o in cell["outputs"])
    if fault:
        verdict = Verdict(False, 1, fault, FAULT_MESSAGES[fault], missing=True)
    else:
        verdict = judge_isolated(found, setup, sent, budget, seed, variant)
        if verdict.missing and not kernel_failed and cell.get("execution_count") is not None:
            # the cell ran to its end, yet values it asked for are not here: something took them away
            verdict = Verdict(False, verdict.line, Fault.LOST, FAULT_MESSAGES[Fault.LOST], missing=True)
    if not verdict.passed and not (verdict.missing and kernel_failed and not fault):
        # the autograder's own words; the traceback's frame names the check (instructor.reporting.failures reads it)
        count = cell.get("execution_count") or ""
        cell["outputs"].append(
            new_output(
                "error",
                ename=str(verdict.exception),
                evalue=verdict.message,
                traceback=[
                    f"Judged by the grader, outside your kernel: Cell In[{count}], line {verdict.line}",
                    f"{verdict.exception}: {verdict.message}",
                ],
            )
        )
    return verdict
