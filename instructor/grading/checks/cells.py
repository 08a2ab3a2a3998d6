"""Before the sandbox: a test cell's code becomes its kernel part. After: the grader judges it.

Both ``course grade`` (the preprocessors ``SplitChecks`` and ``JudgeChecks``)
and the test suite's mistake runner use these, so a mistake is proven to
lose points exactly as the grader takes them.
"""

from __future__ import annotations

import json
import re
from functools import partial

from nbformat.v4 import new_output

from course.values import MIME
from instructor.cells import grade_id, is_graded_test
from instructor.grading.checks.judge import Verdict, imported_names, trusted_imports
from instructor.grading.checks.split import JUDGED, Plan, plan
from instructor.grading.checks.worker import Budget, judge_isolated

#: what IPython writes before a frame of a cell: ``Cell In[12], line 7`` (colour codes between any two words)
_ANSI = r"(?:\x1b\[[0-9;]*[A-Za-z])*"
_FRAME = re.compile(rf"(Cell{_ANSI} {_ANSI}In\[)(\d*)(\]{_ANSI}, line {_ANSI})(\d+)")


def setup_sources(nb) -> tuple[str, ...]:
    """The code of the set-up cells of ``nb`` (a release or source notebook: the author's), whose imports of
    trusted modules the grader makes itself (:func:`~instructor.grading.checks.judge.trusted_imports`)."""
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


def split_cell(cell, imported: set[str], setup: tuple[str, ...] = ()) -> tuple[Plan, list[int]] | None:
    """Put the kernel part of graded test ``cell`` in its place; the plan and the line map, None if it cannot be split.

    ``setup`` are the release's set-up cells: the kernel part binds their trusted imports privately.
    """
    if not is_graded_test(cell):
        return None
    try:
        found = plan(test_cell_id(cell), cell["source"], imported)
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


#: what the sandbox's executor writes in a cell whose value record it dropped (instructor/sandbox/executor.py)
VALUES_STRAY = "\n[value record dropped: no check of this cell asked for it]\n"
VALUES_CUT = "\n[value record cut: over the grader's byte limit]\n"
#: verdicts that say the value channel was tampered with: the submission is flagged
CHANNEL_FAULTS = ("ForgedValues", "StrayValues", "CutValues", "LostValues")


def _channel_note(out) -> str:
    """The executor's note on a dropped or cut record that ``out`` is, else ""."""
    text = out.get("text") if out.get("output_type") == "stream" else None
    return text if text in (VALUES_STRAY, VALUES_CUT) else ""


def records(cell, name: str, asked: set[int] | None = None) -> tuple[dict[int, dict], str]:
    """The value records among ``cell``'s outputs (removed from them), by check; and what was wrong with the
    channel, "" if nothing: a record sent twice, one no check of ``asked`` (the cell's judged statements)
    asked for, one for another cell, one the executor dropped or cut."""
    found, fault, kept = {}, "", []
    for out in cell.get("outputs", []):
        data = out.get("data") or {}
        note = _channel_note(out)
        if note:
            fault = fault or ("CutValues" if note == VALUES_CUT else "StrayValues")
            continue
        if isinstance(data, dict) and MIME in data:
            sent = data[MIME]
            ok = (
                out.get("output_type") == "display_data"
                and list(data) == [MIME]
                and isinstance(sent, dict)
                and sent.get("cell") == name
                and type(sent.get("check")) is int
                and isinstance(sent.get("values"), dict)
                and (asked is None or sent["check"] in asked)
            )
            if not ok:
                fault = fault or "StrayValues"
            elif sent["check"] in found:
                fault = fault or "ForgedValues"
            else:
                found[sent["check"]] = json.loads(json.dumps(sent["values"]))  # plain dicts, as the kernel sent them
            continue
        kept.append(out)
    cell["outputs"] = kept
    return found, fault


#: the grader's words for each fault of the channel
_FAULT_MESSAGES = {
    "ForgedValues": "the kernel sent the values of one check twice",
    "StrayValues": "a value record that no check of this cell asked for was shown in it",
    "CutValues": "a value record of this cell was cut on its way to the grader",
    "LostValues": "the values of this check never reached the grader, and the kernel showed no error",
}


def stray_records(nb, plans: dict) -> list[str]:
    """The cells of ``nb`` that are not split test cells (not in ``plans``) but showed a value record, or whose
    record the executor dropped; such records are removed. One line per cell, for the submission's flag."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code" or (is_graded_test(cell) and grade_id(cell) in plans):
            continue
        outputs = cell.get("outputs", [])
        kept = [o for o in outputs if not _channel_note(o) and MIME not in (o.get("data") or {})]
        if len(kept) != len(outputs):
            found.append(f"cell {index} showed a value record no check asked for")
            cell["outputs"] = kept
    return found


def _map_lines(cell, origin: list[int]) -> None:
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


def judge_cell(
    cell, found: Plan, original: str, origin: list[int], setup: tuple[str, ...], budget: Budget | None = None
) -> Verdict:
    """Judge executed test ``cell`` outside; its source is the release's again, a failure is an error output.

    ``budget`` is the submission's judging time (:class:`~instructor.grading.checks.worker.Budget`).
    """
    name = found.cell
    asked = {index for index, st in enumerate(found.statements) if st.kind == JUDGED}
    sent, fault = records(cell, name, asked)
    cell["source"] = original
    _map_lines(cell, origin)
    kernel_failed = any(o.get("output_type") == "error" for o in cell["outputs"])
    if fault:
        verdict = Verdict(False, 1, fault, _FAULT_MESSAGES[fault], missing=True)
    else:
        verdict = judge_isolated(found, setup, sent, budget)
        if verdict.missing and not kernel_failed and cell.get("execution_count") is not None:
            # the cell ran to its end, yet a record it asked for is not here: something took it away
            verdict = Verdict(False, verdict.line, "LostValues", _FAULT_MESSAGES["LostValues"], missing=True)
    if not verdict.passed and not (verdict.missing and kernel_failed and not fault):
        # the grader's own words; the traceback's frame names the check (instructor.reporting.failures reads it)
        count = cell.get("execution_count") or ""
        cell["outputs"].append(
            new_output(
                "error",
                ename=verdict.exception,
                evalue=verdict.message,
                traceback=[
                    f"Judged by the grader, outside your kernel: Cell In[{count}], line {verdict.line}",
                    f"{verdict.exception}: {verdict.message}",
                ],
            )
        )
    return verdict
