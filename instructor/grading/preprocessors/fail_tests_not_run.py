"""After execution, outside the sandbox: did every test cell really run, in order?"""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool

from instructor.cells import is_graded_test
from instructor.grading.submission import carried


class FailTestsNotRun(Preprocessor):
    """Score 0 (and flag) a test cell that came back without running; flag hidden executions.

    nbgrader gives full points to a test cell without an error, even one that
    never ran. The executor numbers each cell it runs 1, 2, 3, ...; a gap
    means the kernel ran code that no cell shows (``run_cell`` from student
    code), a missing number means the cell did not run.
    """

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        flag = carried(resources).flag
        expected = 1
        for cell in nb.cells:
            if cell.cell_type != "code" or not cell.source.strip():
                continue
            count = cell.get("execution_count")
            if is_graded_test(cell) and not isinstance(count, int):
                grade_id = cell.metadata["nbgrader"]["grade_id"]
                flag(f"the test cell {grade_id!r} came back without running (scored 0)")
                cell.outputs = [
                    new_output("error", ename="TestNotRun", evalue="this test cell did not run", traceback=[])
                ]
                continue
            if isinstance(count, int):
                if count != expected:
                    flag("the kernel ran code that no cell of the notebook shows (execution counts jump)")
                expected = count + 1
        return nb, resources
