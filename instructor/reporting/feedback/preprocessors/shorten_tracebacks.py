"""Show a failed test's last line, never the traceback through its code."""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool


class ShortenTracebacks(Preprocessor):
    """Replace the traceback of a failed graded test cell by its last line.

    A traceback quotes the source lines it passes through, and so would show
    the hidden tests that ``ClearHiddenTests`` removed from the cell.
    """

    enabled = Bool(True, help="nbconvert preprocessors are off unless enabled").tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        graded = cell.get("metadata", {}).get("nbgrader", {}).get("grade", False)
        if cell.cell_type == "code" and graded:
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    out["traceback"] = [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}".rstrip(": ")]
        return cell, resources
