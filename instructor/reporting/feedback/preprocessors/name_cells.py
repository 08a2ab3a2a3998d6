"""Give every graded cell a readable title for the feedback."""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool


def title_of(cell) -> str:
    """A graded cell's title, from its ``grade_id``.

    Test cells are named ``<task>__<check>`` (AUTHORING.md), so
    ``attend__hand_computed`` reads "attend: hand computed"; a written answer
    ``why_rnn_fails`` reads "why rnn fails (written answer)".
    """
    meta = cell.get("metadata", {}).get("nbgrader", {})
    gid = meta.get("grade_id", "")
    task, _, check = gid.partition("__")
    if check:
        return f"{task}: {check.replace('_', ' ')}"
    if meta.get("solution") and cell.get("cell_type") == "markdown":
        return f"{gid.replace('_', ' ')} (written answer)"
    return gid.replace("_", " ")


class NameGradedCells(Preprocessor):
    """Store :func:`title_of` in ``metadata.nbgrader.title`` of every graded cell."""

    enabled = Bool(True, help="nbconvert preprocessors are off unless enabled").tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") or meta.get("task"):
            meta["title"] = title_of(cell)
        return cell, resources
