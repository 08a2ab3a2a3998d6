"""Withhold every output the autograder's run produced once hidden code had run; show the student's own instead.

(Run before ClearHiddenTests.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool, Unicode

from instructor.cells import hidden_lines, is_graded_test
from instructor.grading.intake import read_regular


@dataclass
class Withheld:
    """What a feedback page must never show, gathered along the feedback chain."""

    hidden_lines: list[str] = field(default_factory=list)  # taken from the cells before ClearHiddenTests


def withheld(resources: dict) -> Withheld:
    """The :class:`Withheld` record of this page, in ``resources["withheld"]``."""
    return resources.setdefault("withheld", Withheld())


def own_outputs(config, resources: dict) -> dict[str, list]:
    """The outputs of each code cell of the notebook the student handed in, by cell id ({} if not found).

    ``submitted/<student>/<assignment>/<notebook>.ipynb`` (nbgrader's layout), made on the student's machine
    from the release, which holds no hidden test: nothing in it is a function of what a hidden check passed.
    Read once per page (kept in ``resources["own_outputs"]``): :class:`ExplainVerdicts` and this step both use it.
    """
    _read_once(config, resources)
    return resources["own_outputs"]


def own_counts(config, resources: dict) -> dict[str, int]:
    """The run count (``In [n]``) of each code cell the student ran in the notebook they handed in, by cell id."""
    _read_once(config, resources)
    return resources["own_counts"]


def _read_once(config, resources: dict) -> None:
    if "own_outputs" not in resources or "own_counts" not in resources:
        outputs, counts = _read_own(config, resources)
        resources.setdefault("own_outputs", outputs)
        resources.setdefault("own_counts", counts)


def _read_own(config, resources: dict) -> tuple[dict[str, list], dict[str, int]]:
    try:
        from nbgrader.coursedir import CourseDirectory

        info = resources["nbgrader"]
        coursedir = CourseDirectory(config=config)
        folder = Path(coursedir.format_path(coursedir.submitted_directory, info["student"], info["assignment"]))
        if folder.is_symlink() or folder.parent.is_symlink():
            return {}, {}
        raw = read_regular(folder / f"{info['notebook']}.ipynb")
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
    except (KeyError, OSError, ValueError, RecursionError, UnicodeDecodeError, json.JSONDecodeError):
        return {}, {}
    cells = [cell for cell in nb.cells if cell.cell_type == "code" and isinstance(cell.get("id"), str)]
    counts = {
        cell.id: count
        for cell in cells
        if isinstance(count := cell.get("execution_count"), int) and not isinstance(count, bool)
    }
    return {cell.id: list(cell.get("outputs", [])) for cell in cells}, counts


class HideHiddenTestOutputs(Preprocessor):
    """Replace the outputs of cells with hidden tests, and of every code cell after the first of them.

    Code in the kernel can print, or encode, what a hidden test passes it
    (or the test's own text, from ``In``, a stack frame or the history),
    while the test runs or in any cell after it, a locked one included (its
    values' ``__format__`` is the student's code): base64, reversed, split or
    drawn into a PNG, no filter of verbatim lines can tell. So no output the
    grader's run produced once hidden code had run is shown; the verdicts are
    the gradebook's and their reasons come from the trusted cell source
    (:class:`ExplainVerdicts`, which runs before this step). The hidden lines
    are kept in :class:`Withheld` for :class:`WithholdLeaks`.

    What such a cell shows instead, if it is not a test cell, is the
    student's own output: the outputs the same cell (by its id) holds in the
    notebook they handed in (``submitted/<student>/<assignment>/``, nbgrader's
    layout), made on their machine, which never held a hidden test. Later
    steps escape, cap and check them as any output. Where that notebook is
    not in the course directory (submissions graded from another folder), the
    cell shows no output, and no note: the page's heading says why once. Its
    run count (``In [n]``), and that of the cells that ran hidden tests, is
    the student's own run's too (none without it): code in the kernel sets
    the count the autograder's run recorded.

    The note on a cell that ran hidden tests stands only where a hidden check
    ran and failed (``hidden_failed``, set by :class:`ExplainVerdicts`); a
    cell that passed, or failed at a visible check, just shows no output.
    """

    enabled = Bool(True).tag(config=True)
    note = Unicode(
        "This cell ran hidden tests; its output is not shown. Its verdict is above, and below when it failed."
    ).tag(config=True)
    own_note = Unicode("From your own run (the notebook you handed in):").tag(config=True)

    def preprocess(self, nb, resources):
        found = withheld(resources).hidden_lines
        after_hidden = False
        own: dict[str, list] | None = None
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            lines = hidden_lines(cell.source)
            if lines or after_hidden:
                # the run count too: code in the kernel sets it (``In [10342]`` carried a hidden value)
                cell.execution_count = own_counts(self.config, resources).get(cell.get("id"))
            if lines:
                found.extend(lines)
                after_hidden = True
                failed_hidden = cell.get("metadata", {}).get("nbgrader", {}).get("hidden_failed")
                cell.outputs = [new_output("stream", name="stdout", text=self.note + "\n")] if failed_hidden else []
            elif after_hidden:
                if own is None:
                    own = own_outputs(self.config, resources)
                mine = [] if is_graded_test(cell) else own.get(cell.get("id"), [])
                note = [new_output("stream", name="stdout", text=self.own_note + "\n")] if mine else []
                cell.outputs = note + [nbformat.from_dict(o) for o in mine]
        return nb, resources
