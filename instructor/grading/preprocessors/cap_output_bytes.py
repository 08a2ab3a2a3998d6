"""Cap the bytes of every cell's outputs, and of the whole notebook."""

from __future__ import annotations

import json

from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool, Int

NOTE = "[output cut: over the grader's byte limit]\n"


class CapOutputBytes(Preprocessor):
    """Keep outputs in order until a cell or the notebook reaches its byte cap; drop the rest.

    nbgrader's ``LimitOutput`` counts lines; one 100 MB line passes it.
    """

    enabled = Bool(True).tag(config=True)
    cell_bytes = Int(64_000, help="output bytes kept per cell").tag(config=True)
    notebook_bytes = Int(1_000_000, help="output bytes kept per notebook").tag(config=True)

    def preprocess(self, nb, resources):
        total = 0
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            kept, used, cut = [], 0, False
            for out in cell.get("outputs", []):
                size = len(json.dumps(out))
                if used + size > self.cell_bytes or total + size > self.notebook_bytes:
                    cut = True
                    continue
                used += size
                total += size
                kept.append(out)
            if cut and not any(o.get("text") == NOTE for o in kept):
                kept.append(new_output("stream", name="stdout", text=NOTE))
            cell.outputs = kept
        return nb, resources
