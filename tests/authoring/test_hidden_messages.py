"""No hidden check's message tells its expected value or its inputs (issue 42, part 4).

The feedback page shows a failed hidden check by its message (the literal
text, always; an f-string field only where the author marked it, see
:mod:`instructor.reporting.failures`). Each round of feedback would then hand
a student the next answer: "expected accuracy 5/8" let an answer that never
computes an accuracy (a table keyed by call order) reach full marks. So in
every hidden ``assert`` of the four notebooks:

* the literal text holds no number: a number there is an input the student
  cannot see (a length, a width, a seed's draw) or an expected value;
* every ``{...}`` field reads only the student's own outputs (names the
  split of :mod:`instructor.grading.checks.split` calls kernel values), never
  a name the cell binds itself (an input, a shape it chose, an expected value);
* no field is marked ``# feedback shows:``: a hidden check's outputs are
  functions of inputs the student does not see, which an answer can write into
  what it returns (a zero-size array of any shape carried the 12 hidden
  ``W_xh`` weights onto the page that way), so the page shows none of them.
"""

from __future__ import annotations

import ast
import re

import pytest

from instructor.cells import grade_id, hidden_line_numbers, is_graded_test, read
from instructor.grading.checks.judge import imported_names
from instructor.grading.checks.notebook import notebook_imports
from instructor.grading.checks.split import KERNEL_ASSERT, PROBE, plan
from instructor.paths import SOLUTIONS, existing_assignments, notebook_path

ASSIGNMENTS = existing_assignments(SOLUTIONS)

#: functions a field may apply to the student's outputs
BUILTIN_NAMES = {"type", "getattr", "len", "round", "repr", "str", "sorted", "set", "float", "int", "bool", "list"}

#: a number in prose: not part of a name (``float32``, ``W1``, ``x_t``)
_NUMBER = re.compile(r"(?<![A-Za-z_\d.])\d+(?:\.\d+)?")
#: the numbers of formulas, which tell nothing of a check's inputs: ``T - 1``, ``(1, N, D)``, ``h_(t-1)``
FORMULA_NUMBERS = {"0", "1"}


def _bound_by_loop(node: ast.AST, kernel: set[str]) -> set[str]:
    """Names a ``for`` or comprehension in ``node`` binds from the student's outputs alone.

    ``for a, s in zip(wanted, answers)`` binds ``s`` from ``answers`` only; a
    target over anything else is the cell's own.
    """
    found: set[str] = set()
    loops = [n for n in ast.walk(node) if isinstance(n, (ast.For, ast.comprehension, ast.Assign))]
    for _ in range(len(loops) + 1):  # a loop over another loop's names: settle in a few rounds
        for loop in loops:
            if isinstance(loop, ast.Assign):  # ``dec_inputs, dec_states, y = got`` inside a loop
                pairs = [(target, loop.value) for target in loop.targets]
            else:
                pairs = [(loop.target, loop.iter)]
            if (
                not isinstance(loop, ast.Assign)
                and isinstance(loop.iter, ast.Call)
                and isinstance(loop.iter.func, ast.Name)
                and loop.iter.func.id in ("zip", "enumerate")
                and isinstance(loop.target, ast.Tuple)
            ):
                if loop.iter.func.id == "enumerate":  # the index is a position, not an input: it may show
                    found |= {n.id for n in ast.walk(loop.target.elts[0]) if isinstance(n, ast.Name)}
                    pairs = list(zip(loop.target.elts[1:], loop.iter.args[:1], strict=False))
                else:
                    pairs = list(zip(loop.target.elts, loop.iter.args, strict=False))
            if (
                not isinstance(loop, ast.Assign)
                and isinstance(loop.iter, ast.Call)
                and isinstance(loop.iter.func, ast.Name)
                and loop.iter.func.id == "range"
            ):
                found |= {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}  # a position
                pairs = []
            for target, source in pairs:
                if isinstance(source, (ast.List, ast.Tuple)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in source.elts
                ):  # names of things (``["W_alpha", "the encoder"]``): words, not inputs
                    found |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
                    continue
                reads = {n.id for n in ast.walk(source) if isinstance(n, ast.Name)}
                if reads <= kernel | found | {"range", "len"} and reads & (kernel | found):
                    found |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return found


def message_leaks(source: str, imported: set[str]) -> list[str]:
    """What each hidden ``assert`` of a test cell's ``source`` tells that is not the student's own output."""
    hidden = hidden_line_numbers(source)
    found = plan("cell", source, imported)
    leaks = []
    # the student's outputs, statement by statement: what a statement that calls the student's code binds (and a
    # list it appends to); a name the cell binds itself (an input, a case, an expected value) is the cell's,
    # even once handed to that code
    kernel: set[str] = set()
    for st, top in zip(found.statements, ast.parse(source).body, strict=True):
        if st.kind in (PROBE, KERNEL_ASSERT):  # a kernel assert also calls the student's code
            kernel |= st.binds
            kernel |= {
                node.func.value.id
                for node in ast.walk(top)
                if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "extend")
                and isinstance(node.func.value, ast.Name)
            }
        if st.kind == PROBE:
            continue
        own = kernel | _bound_by_loop(top, kernel)
        if st.kind != KERNEL_ASSERT:
            kernel -= st.binds
        for node in ast.walk(top):
            if not (isinstance(node, ast.Assert) and node.lineno in hidden and node.msg is not None):
                continue
            literal = "".join(
                str(p.value) for p in ast.walk(node.msg) if isinstance(p, ast.Constant) and isinstance(p.value, str)
            )
            if numbers := [n for n in _NUMBER.findall(literal) if n not in FORMULA_NUMBERS]:
                leaks.append(f"line {node.lineno}: the text holds {', '.join(numbers)}: {literal!r}")
            for field in (p for p in ast.walk(node.msg) if isinstance(p, ast.FormattedValue)):
                names = {n.id for n in ast.walk(field.value) if isinstance(n, ast.Name)}
                names -= {  # a gradient is what the student's code computed, whoever made the tensor
                    n.value.id
                    for n in ast.walk(field.value)
                    if isinstance(n, ast.Attribute) and n.attr == "grad" and isinstance(n.value, ast.Name)
                }
                foreign = names - own - imported - BUILTIN_NAMES
                if foreign:
                    leaks.append(f"line {node.lineno}: {{{ast.unparse(field.value)}}} reads {sorted(foreign)}")
    for number, line in enumerate(source.splitlines(), start=1):
        if number in hidden and re.match(r"\s*#\s*feedback shows:", line):
            leaks.append(f"line {number}: {line.strip()}")
    return leaks


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_hidden_message_tells_an_expected_value_or_an_input(assignment):
    nb = read(notebook_path(assignment, SOLUTIONS))
    imported = imported_names(notebook_imports(nb))
    leaks = {
        grade_id(cell): found
        for cell in nb.cells
        if is_graded_test(cell) and (found := message_leaks(cell.source, imported))
    }
    assert not leaks, f"hidden messages that tell more than the student's own outputs: {leaks}"


IMPORTED = {"np", "mg"}


@pytest.mark.parametrize(
    "source, leak",
    [
        (
            "acc = accuracy(x)\n### BEGIN HIDDEN TESTS\n"
            "assert acc == 0.625, 'expected accuracy 5/8'\n### END HIDDEN TESTS",
            "5, 8",
        ),
        (
            "### BEGIN HIDDEN TESTS\nwant = np.ones(3)\nout = f(want.copy())\n"
            "assert np.allclose(out, want), f'got {out}, expected {want}'\n### END HIDDEN TESTS",
            "['want']",
        ),
        (
            "### BEGIN HIDDEN TESTS\ncases = [np.ones(2), np.ones(3)]\nouts = [f(c.copy()) for c in cases]\n"
            "for c, o in zip(cases, outs):\n    assert o.shape == c.shape, f'input shape {c.shape} gave {o.shape}'\n"
            "### END HIDDEN TESTS",
            "['c']",
        ),
        (
            "### BEGIN HIDDEN TESTS\n# feedback shows: y\ny = f(1)\nassert y == 2, 'wrong'\n### END HIDDEN TESTS",
            "feedback shows",
        ),
    ],
)
def test_the_scan_finds_each_kind_of_leak(source, leak):
    found = message_leaks(source, IMPORTED)
    assert found and leak in " ".join(found), found


def test_the_scan_lets_the_students_own_outputs_show():
    source = (
        "x = np.ones(3)\n### BEGIN HIDDEN TESTS\ncases = [np.ones(2)]\nouts = [f(c.copy()) for c in cases]\n"
        "for c, o in zip(cases, outs):\n    assert o.shape == c.shape, f'the output has shape {o.shape}'\n"
        "out = f(x.copy())\nassert np.allclose(out, x), f'got {np.round(out, 2)}: add the bias'\n### END HIDDEN TESTS"
    )
    assert message_leaks(source, IMPORTED) == []


@pytest.mark.notebook
def test_an_answer_that_learns_accuracies_from_feedback_loses_points():
    """Does the call-order table of the hostile corpus (no accuracy computed, values learned from messages) lose
    the whole-sequence check? With the messages of df821ef it learned 5/8 and 0.0 and kept full marks."""
    from instructor.cells import find_cell
    from tests.hostile.cases import _call_order_table, reference
    from tests.nbexec import MistakeRunner

    nb = reference()
    _call_order_table(nb, {})
    assert "(5, 8): []" in find_cell(nb, "loss_and_accuracy").source  # the messages told it nothing
    runner = MistakeRunner("01_rnn")
    try:
        failed = [c.grade_id for c in runner.run_notebook(nb).failed_tests()]
    finally:
        runner.close()
    assert failed == ["loss_and_accuracy__whole_sequence_accuracy"], failed
