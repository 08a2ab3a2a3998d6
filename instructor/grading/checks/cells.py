"""Before the sandbox: a test cell's code becomes its kernel part. After: the grader judges it.

Both ``course grade`` (the preprocessors ``SplitChecks`` and ``JudgeChecks``)
and the test suite's mistake runner use these, so a mistake is proven to
lose points exactly as the grader takes them.
"""

from __future__ import annotations

import re

from nbformat.v4 import new_output
import json

from course.values import MIME
from instructor.cells import grade_id, is_graded_test
from instructor.grading.checks.judge import Verdict, imported_names, trusted_imports
from instructor.grading.checks.worker import Budget, judge_isolated
from instructor.grading.checks.split import Plan, plan

#: what IPython writes before a frame of a cell: ``Cell In[12], line 7`` (colour codes between any two words)
_ANSI = r"(?:\x1b\[[0-9;]*[A-Za-z])*"
_FRAME = re.compile(rf"(Cell{_ANSI} {_ANSI}In\[)(\d*)(\]{_ANSI}, line {_ANSI})(\d+)")


def setup_sources(nb) -> tuple[str, ...]:
    """The code of the set-up cells of ``nb`` (a release or source notebook: the author's), whose imports of
    trusted modules the grader makes itself (:func:`~instructor.grading.checks.judge.trusted_imports`)."""
    meta = lambda c: c.get("metadata", {}).get("nbgrader", {})  # noqa: E731
    return tuple(c.source for c in nb.cells if c.cell_type == "code"
                 and not meta(c).get("grade") and not meta(c).get("solution"))


def notebook_imports(nb) -> dict:
    """The namespace the trusted imports of ``nb``'s set-up cells give."""
    return trusted_imports(list(setup_sources(nb)))


def split_cell(cell, imported: set[str], setup: tuple[str, ...] = ()) -> tuple[Plan, list[int]] | None:
    """Put the kernel part of graded test ``cell`` in its place; the plan and the line map, None if it cannot be split.

    ``setup`` are the release's set-up cells: the kernel part binds their trusted imports privately.
    """
    if not is_graded_test(cell):
        return None
    try:
        found = plan(grade_id(cell), cell["source"], imported)
    except SyntaxError:
        return None  # run as it is; nbgrader's rule (an error fails it) decides
    code, origin = found.kernel_code(setup)
    cell["source"] = code
    return found, origin


def split_notebook(nb, release=None) -> tuple[dict, tuple[str, ...]]:
    """Split every graded test cell of ``nb`` in place; (grade_id -> (plan, original source, line map), set-up code).

    The imports come from ``release`` (default: ``nb`` itself, for a notebook
    of the author's): a student's edits to a set-up cell never say what the
    grader binds.
    """
    setup = setup_sources(release if release is not None else nb)
    names = imported_names(trusted_imports(list(setup)))
    plans = {}
    for cell in nb.cells:
        original = cell.get("source", "")
        done = split_cell(cell, names, setup)
        if done:
            plans[grade_id(cell)] = (done[0], original, done[1])
    return plans, setup


def records(cell, name: str) -> tuple[dict[int, dict], bool]:
    """The value records among ``cell``'s outputs (removed from them), by check; and whether any was sent twice."""
    found, twice, kept = {}, False, []
    for out in cell.get("outputs", []):
        data = out.get("data") or {}
        if out.get("output_type") == "display_data" and MIME in data:
            sent = data[MIME]
            ok = isinstance(sent, dict) and sent.get("cell") == name and isinstance(sent.get("check"), int) \
                and isinstance(sent.get("values"), dict)
            if ok:
                twice |= sent["check"] in found
                found[sent["check"]] = json.loads(json.dumps(sent["values"]))  # plain dicts, as the kernel sent them
            continue
        kept.append(out)
    cell["outputs"] = kept
    return found, twice


def _map_lines(cell, origin: list[int]) -> None:
    """Tracebacks of the kernel part point at the cell's own lines again.

    Only the frames of this cell (``In[<its execution count>]``, or the first
    frame when it has none) are renumbered: the student's cells keep theirs.
    """
    count = cell.get("execution_count")

    def back(m, first: list[bool]):
        ours = str(m.group(2)) == str(count) if count is not None else first[0]
        first[0] = False
        if not ours:
            return m.group(0)
        n = int(m.group(4))
        return m.group(1) + m.group(2) + m.group(3) + str(origin[n - 1] if 0 < n <= len(origin) else 0)

    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            state = [True]
            out["traceback"] = [_FRAME.sub(lambda m: back(m, state), str(line)) for line in out.get("traceback") or []]


def judge_cell(cell, found: Plan, original: str, origin: list[int], setup: tuple[str, ...],
               budget: Budget | None = None) -> Verdict:
    """Judge executed test ``cell`` outside; its source is the release's again, a failure is an error output.

    ``budget`` is the submission's judging time (:class:`~instructor.grading.checks.worker.Budget`).
    """
    name = found.cell
    sent, twice = records(cell, name)
    cell["source"] = original
    _map_lines(cell, origin)
    if twice:
        verdict = Verdict(False, 1, "ForgedValues", "the kernel sent the values of one check twice", missing=True)
    else:
        verdict = judge_isolated(found, setup, sent, budget)
    kernel_failed = any(o.get("output_type") == "error" for o in cell["outputs"])
    if not verdict.passed and not (verdict.missing and kernel_failed):
        # the grader's own words; the traceback's frame names the check (instructor.reporting.failures reads it)
        cell["outputs"].append(new_output("error", ename=verdict.exception, evalue=verdict.message, traceback=[
            f"Judged by the grader, outside your kernel: Cell In[{cell.get('execution_count') or ''}], line {verdict.line}",
            f"{verdict.exception}: {verdict.message}"]))
    return verdict
