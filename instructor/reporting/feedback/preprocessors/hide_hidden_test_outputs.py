"""Withhold every output of a cell that ran hidden tests or ran after one (run before ClearHiddenTests)."""

from __future__ import annotations

from dataclasses import dataclass, field

from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool, Unicode

from instructor.cells import hidden_lines


@dataclass
class Withheld:
    """What a feedback page must never show, gathered along the feedback chain."""

    hidden_lines: list[str] = field(default_factory=list)  # taken from the cells before ClearHiddenTests


def withheld(resources: dict) -> Withheld:
    """The :class:`Withheld` record of this page, in ``resources["withheld"]``."""
    return resources.setdefault("withheld", Withheld())


class HideHiddenTestOutputs(Preprocessor):
    """Replace the outputs of cells with hidden tests, and of every code cell after the first of them.

    Code in the kernel can print, or encode, what a hidden test passes it
    (or the test's own text, from ``In``, a stack frame or the history),
    while the test runs or in any cell after it, a locked one included (its
    values' ``__format__`` is the student's code): base64, reversed, split or
    drawn into a PNG, no filter of verbatim lines can tell. So no output
    produced once hidden code has run is shown; the verdicts are the
    gradebook's and their reasons come from the trusted cell source
    (:class:`ExplainVerdicts`, which runs before this step). The hidden lines
    are kept in :class:`Withheld` for :class:`WithholdLeaks`.

    The note saying so stands only where a hidden check ran and failed
    (``hidden_failed``, set by :class:`ExplainVerdicts`); a cell that passed,
    or failed at a visible check, just shows no output.
    """

    enabled = Bool(True).tag(config=True)
    note = Unicode(
        "This cell ran hidden tests; its output is not shown. Its verdict is above, and below when it failed."
    ).tag(config=True)
    after_note = Unicode(
        "Output not shown: this cell ran after hidden checks, and code in a notebook can "
        "pass on what they hold. Your own output is in your notebook."
    ).tag(config=True)

    def preprocess(self, nb, resources):
        found = withheld(resources).hidden_lines
        after_hidden = False
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            lines = hidden_lines(cell.source)
            if lines:
                found.extend(lines)
                after_hidden = True
                failed_hidden = cell.get("metadata", {}).get("nbgrader", {}).get("hidden_failed")
                cell.outputs = [new_output("stream", name="stdout", text=self.note + "\n")] if failed_hidden else []
            elif after_hidden and cell.get("outputs"):
                cell.outputs = [new_output("stream", name="stdout", text=self.after_note + "\n")]
        return nb, resources
