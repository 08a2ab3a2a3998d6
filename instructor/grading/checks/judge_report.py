"""The judge's report on an assignment: which checks the autograder judges outside the kernel, and which it cannot.

    course judge 01_rnn [--run]        (instructor/cli/judge.py)

Lists, per graded test cell, how many checks are judged outside and each
check that runs in the kernel (a ``kernel assert``: it calls the student's
code itself), then the checks whose expected value the kernel could
influence (every value they compare is the kernel's:
:mod:`instructor.grading.checks.influence`), visible and hidden, with their
cells. With ``--run`` the reference solution's fast cells run in a local
kernel with the test cells split, and every cell is judged outside as
``course grade`` judges it: all must pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from instructor.cells import hidden_line_numbers, is_graded_test, read, tags
from instructor.grading.checks.influence import Influenced, influenced
from instructor.grading.checks.judge import imported_names
from instructor.grading.checks.notebook import judge_split, notebook_imports, split_notebook, test_cell_id
from instructor.grading.checks.split import JUDGED, KERNEL_ASSERT, plan
from instructor.paths import SOLUTIONS, notebook_path

if TYPE_CHECKING:
    from instructor.coursedir.course_dir import CourseDir


def static_report(assignment: str, solutions=SOLUTIONS) -> tuple[int, int, list[str]]:
    """(checks judged outside, kernel asserts, lines naming each kernel assert) of ``assignment``'s source."""
    return where_judged(read(notebook_path(assignment, solutions)))


def where_judged(nb) -> tuple[int, int, list[str]]:
    """(checks judged outside, kernel asserts, lines naming each kernel assert) of the source notebook ``nb``."""
    names = imported_names(notebook_imports(nb))
    plans = [plan(test_cell_id(cell), cell.source, names) for cell in nb.cells if is_graded_test(cell)]
    lines = [
        f"  {found.cell} line {st.line}: {st.source.splitlines()[0][:100]}"
        for found in plans
        for st in found.statements
        if st.kind == KERNEL_ASSERT
    ]
    return sum(p.count(JUDGED) for p in plans), sum(p.count(KERNEL_ASSERT) for p in plans), lines


def influence_report(assignment: str, solutions=SOLUTIONS) -> list[Influenced]:
    """The checks of ``assignment``'s source whose every compared value the kernel chose."""
    return kernel_influenced(read(notebook_path(assignment, solutions)))


def kernel_influenced(nb) -> list[Influenced]:
    """The checks of the source notebook ``nb`` whose every compared value the kernel chose, in cell order."""
    names = imported_names(notebook_imports(nb))
    return [
        weak
        for cell in nb.cells
        if is_graded_test(cell)
        for weak in influenced(plan(test_cell_id(cell), cell.source, names), hidden_line_numbers(cell.source))
    ]


def judged_lines(course_dir: CourseDir, assignments) -> list[str]:
    """One line per assignment for the grade report: how many checks the autograder judged outside the kernel."""
    lines = []
    for assignment in assignments:
        path = course_dir.source_notebook(assignment)
        if not path.is_file():
            continue
        judged, kernel, named = where_judged(read(path))
        where = f"; in the kernel: {', '.join(n.strip() for n in named)}" if named else ""
        lines.append(f"{assignment}: {judged} checks judged by the grader outside the kernel, {kernel} in it{where}")
    return lines


def run_reference(assignment: str, solutions=SOLUTIONS) -> list[str]:
    """The reference's fast cells run with split test cells; one line per cell the autograder failed outside."""
    from instructor.authoring.trial import QUICK_ENV
    from instructor.kernels import execute_in

    path = notebook_path(assignment, solutions)
    nb = read(path)
    nb.cells = [c for c in nb.cells if "slow" not in tags(c)]
    checks = split_notebook(nb)
    execute_in(nb, path.parent, QUICK_ENV)
    failed = []
    for cell in nb.cells:
        verdict = judge_split(cell, checks)
        if verdict is None:
            continue
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if not verdict.passed or errors:
            error = f"{errors[0].get('ename')}: {errors[0].get('evalue')}" if errors else ""
            shown = verdict.message if not verdict.passed else error
            failed.append(f"  {test_cell_id(cell)} line {verdict.line}: {shown[:160]}")
    return failed


def report(assignment: str, solutions=SOLUTIONS, run: bool = False) -> tuple[str, bool]:
    """The report ``course judge`` prints, and whether the reference passed every cell judged outside (True
    without ``run``)."""
    judged, kernel, lines = static_report(assignment, solutions)
    weak = influence_report(assignment, solutions)
    hidden = sum(w.hidden for w in weak)
    parts = [
        f"{assignment}: {judged} checks judged outside the kernel, {kernel} in it",
        "\n".join(lines),
        f"{assignment}: {len(weak) - hidden} visible and {hidden} hidden checks whose expected value "
        "the kernel could influence",
        "\n".join(w.describe() for w in weak),
    ]
    if not run:
        return "\n".join(parts), True
    failed = run_reference(assignment, solutions)
    parts += [
        f"reference judged outside: {'all cells pass' if not failed else f'{len(failed)} cell(s) fail'}",
        "\n".join(failed),
    ]
    return "\n".join(parts), not failed
