"""Withhold every output of a test cell that ran hidden tests (run before ClearHiddenTests)."""

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
    """Replace the outputs of cells with hidden tests by one neutral line.

    Code in the kernel can print, or encode, what a hidden test passes it
    (or the test's own text, from ``In`` or a stack frame); so nothing
    produced while hidden tests ran is shown. The hidden lines are kept in
    :class:`Withheld` for :class:`WithholdLeaks`.
    """

    enabled = Bool(True).tag(config=True)
    note = Unicode("This cell ran hidden tests; its output is not shown. Its verdict is above, and below "
                   "when it failed.").tag(config=True)

    def preprocess(self, nb, resources):
        found = withheld(resources).hidden_lines
        for cell in nb.cells:
            lines = hidden_lines(cell.source) if cell.cell_type == "code" else []
            if not lines:
                continue
            found.extend(lines)
            cell.outputs = [new_output("stream", name="stdout", text=self.note + "\n")]
        return nb, resources
