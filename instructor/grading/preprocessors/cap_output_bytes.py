"""Cap the bytes of every cell's outputs, and of the whole notebook."""

from __future__ import annotations

import json

from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool, Instance

from instructor.sandbox.limits import Limits

NOTE = "[output cut: over the grader's byte limit]\n"


def fails(out) -> bool:
    """An output that fails a test cell by nbgrader's rule: an error, or text on stderr."""
    return out.get("output_type") == "error" or (out.get("output_type") == "stream" and out.get("name") == "stderr")


def shortened(out, chars: int = Limits.verdict_chars):
    """An error with its name and the first ``chars`` of its value and last traceback lines; a stream's start.

    The sandbox's executor does the same inside (``_shorten``), with the same ``Limits.verdict_chars``.
    """
    if out.get("output_type") == "error":
        return new_output(
            "error",
            ename=str(out.get("ename", ""))[:100],
            evalue=str(out.get("evalue", ""))[:chars],
            traceback=[str(line)[:chars] for line in (out.get("traceback") or [])[-3:]],
        )
    return new_output("stream", name="stderr", text=str(out.get("text", ""))[:chars])


def is_image(out) -> bool:
    """A figure: display data whose content is an image (PNG, JPEG, SVG)."""
    return any(str(kind).startswith("image/") for kind in (out.get("data") or {}))


class CapOutputBytes(Preprocessor):
    """Keep outputs in order until a cell or the notebook reaches its byte cap; drop the rest.

    Text and figures have budgets of their own: one attention figure (a PNG
    of 100-300 kB) would use up a cell's text budget, and a page of printed
    text must not crowd out the figures. nbgrader's ``LimitOutput`` counts
    lines; one 100 MB line passes it.
    """

    enabled = Bool(True).tag(config=True)
    #: the sandbox's own value, every field of it (its output budgets and verdict_chars), so the autograder keeps
    #: what the executor kept (never rebuilt field by field: a field left out would fall back to its default)
    limits = Instance(Limits, kw={}, help="the output budgets of one submission (instructor.sandbox.Limits)").tag(
        config=True
    )

    def preprocess(self, nb, resources):
        limits = self.limits
        total = {False: 0, True: 0}  # by is_image
        caps = {
            False: (limits.cell_output_bytes, limits.notebook_output_bytes),
            True: (limits.cell_image_bytes, limits.notebook_image_bytes),
        }
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            kept, used, cut = [], {False: 0, True: 0}, False
            for out in cell.get("outputs", []):
                size, image = len(json.dumps(out)), is_image(out)
                per_cell, per_notebook = caps[image]
                if used[image] + size > per_cell or total[image] + size > per_notebook:
                    if fails(out) and not any(fails(k) for k in kept):  # what fails a cell: shortened, never cut
                        kept.append(shortened(out, limits.verdict_chars))
                    cut = True
                    continue
                used[image] += size
                total[image] += size
                kept.append(out)
            if cut and not any(o.get("text") == NOTE for o in kept):
                kept.append(new_output("stream", name="stdout", text=NOTE))
            cell.outputs = kept
        return nb, resources
