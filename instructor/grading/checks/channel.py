"""The value channel, read by the autograder: the values a kernel sent, taken out of a test cell's outputs.

In place of each judged check, a split test cell's kernel code sends the
values the check reads (:func:`course.values.send`): one ``display_data``
output of type :data:`course.channel.MIME` per check. The sandbox's executor
keeps only those the cell's code asked for, once each, and marks a cell
where it dropped or cut some (:data:`course.channel.DROPPED_NOTE`,
:data:`course.channel.CUT_NOTE`). Anything else on the channel is a
:class:`~instructor.grading.checks.judge.Fault` of it: the cell fails and the
submission is flagged.
"""

from __future__ import annotations

import json
from collections.abc import Container

from course.channel import CUT_NOTE, DROPPED_NOTE, MIME
from instructor.cells import grade_id, is_graded_test
from instructor.grading.checks.judge import Fault

#: the autograder's words for each fault of the channel
FAULT_MESSAGES = {
    Fault.FORGED: "the kernel sent the values of one check twice",
    Fault.STRAY: "this cell showed values no check of it asked for",
    Fault.CUT: "this cell's values were cut on their way to the grader",
    Fault.LOST: "the values of this check never reached the grader, and the kernel showed no error",
}


def _executor_note(out) -> str:
    """The executor's note on values it dropped or cut that ``out`` is, else ""."""
    text = out.get("text") if out.get("output_type") == "stream" else None
    return text if text in (DROPPED_NOTE, CUT_NOTE) else ""


def sent_values(cell, name: str, asked: set[int] | None = None) -> tuple[dict[int, dict], Fault | None]:
    """The values the kernel sent among ``cell``'s outputs (removed from them), by check; and the channel's
    fault, None if there is none: values sent twice, ones no check of ``asked`` (the cell's judged statements)
    asked for, ones for another cell, ones the executor dropped or cut."""
    found: dict[int, dict] = {}
    fault: Fault | None = None
    kept = []
    for out in cell.get("outputs", []):
        data = out.get("data") or {}
        note = _executor_note(out)
        if note:
            fault = fault or (Fault.CUT if note == CUT_NOTE else Fault.STRAY)
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
                fault = fault or Fault.STRAY
            elif sent["check"] in found:
                fault = fault or Fault.FORGED
            else:
                found[sent["check"]] = json.loads(json.dumps(sent["values"]))  # plain dicts, as the kernel sent them
            continue
        kept.append(out)
    cell["outputs"] = kept
    return found, fault


def stray_values(nb, split: Container[str]) -> list[str]:
    """The cells of ``nb`` that are not split test cells (their grade_id not in ``split``) but showed a check's
    values, or whose values the executor dropped; such values are removed. One line per cell, for the
    submission's flag."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code" or (is_graded_test(cell) and grade_id(cell) in split):
            continue
        outputs = cell.get("outputs", [])
        kept = [o for o in outputs if not _executor_note(o) and MIME not in (o.get("data") or {})]
        if len(kept) != len(outputs):
            found.append(f"cell {index} showed values no check asked for")
            cell["outputs"] = kept
    return found
