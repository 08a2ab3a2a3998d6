"""A test cell whose output the kernel shaped fails: a returned value or a widget is no pass."""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool

from instructor.cells import grade_id, is_graded_test
from instructor.grading.submission import carried

#: what an ipywidgets view looks like in a cell's outputs
WIDGET = "application/vnd.jupyter.widget-view+json"


def shaped(out) -> str | None:
    """Why an output of a test cell cannot come from the test's own code (None when it can)."""
    if out.get("output_type") == "execute_result":
        # no test cell of the course ends in an expression (tests/authoring checks it), so a returned
        # value is the kernel's doing; nbgrader would read it as partial credit and stop looking for errors
        return "it returned a value"
    if WIDGET in (out.get("data") or {}):
        # an ipywidgets Output captures what is printed, an error included, out of the cell's sight
        return "it shows a widget"
    return None


class FailShapedTestOutputs(Preprocessor):
    """Score 0, and flag, a graded test cell whose outputs the test itself cannot have made.

    nbgrader reads a test cell's points from its outputs: an error (or stderr)
    fails it, a number returned by the cell is partial credit, anything else
    passes. Code in the kernel can return a number before the tests fail, or
    route their error into a widget; neither may decide a grade. The failure
    is an error output put first, so nbgrader's rule gives 0.
    """

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        for cell in nb.cells:
            if not is_graded_test(cell):
                continue
            reasons = list(dict.fromkeys(r for r in map(shaped, cell.get("outputs", [])) if r))
            if not reasons:
                continue
            why = " and ".join(reasons)
            carried(resources).flag(
                f"the test cell {grade_id(cell)!r} came back shaped by the kernel ({why}): scored 0"
            )
            cell.outputs = [
                new_output(
                    "error",
                    ename="ShapedOutput",
                    traceback=[],
                    evalue=f"this test cell's output was shaped by the kernel ({why})",
                )
            ]
        return nb, resources
