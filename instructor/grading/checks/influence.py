"""Which checks compare the kernel's values only with the kernel's values.

A judged check is sound when one side of what it compares is the autograder's:
a literal, or a value the cell builds itself (a given). ``assert out.shape
== (2, 3)`` and ``assert np.allclose(out, expected)`` with ``expected`` a
given are; ``assert np.allclose(out.data, expected.data)`` with both bound
by probes is not: a student's code that makes both sides agree (a model of
zeros, a reference run on the model's own degenerate weights) passes it.
Such a check's expected value is one *the kernel could influence*; the
course's target is none (issue 32).

The rule, per ``assert`` of a judged statement:

- a comparison (``a == b``, ``np.allclose(a, b)``, ``np.array_equal`` ...)
  is anchored when at least one side reads no kernel value;
- ``x and y`` is anchored when either is (both must hold), ``x or y`` when
  both are; ``not x``, ``np.all(x)``, ``all(x)``, ``bool(x)`` are what ``x`` is,
  ``all(f(p) for p in ps)`` what ``f(p)`` is;
- a grader's predicate on kernel values (``isinstance(out, np.ndarray)``,
  ``np.isfinite(loss)``) is anchored: the autograder chose what must hold;
- a bare kernel value (``assert same``, ``assert out.ok``) is not: the
  kernel chose the verdict.

A kernel assert (it calls the student's code itself) is never anchored.
"""

from __future__ import annotations

import ast
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from instructor.grading.checks.split import JUDGED, KERNEL_ASSERT, Plan
from instructor.grading.syntax import parse

#: functions whose first two arguments are the two sides of a comparison
_COMPARISONS = {
    "allclose",
    "isclose",
    "array_equal",
    "array_equiv",
    "assert_allclose",
    "assert_array_equal",
    "assert_array_almost_equal",
    "assert_almost_equal",
    "assert_equal",
}
#: functions that hold exactly when their argument does (their truth is their argument's)
_PASS_THROUGH = {"all", "any", "bool", "alltrue"}


@dataclass(frozen=True)
class Influenced:
    """A check of ``cell`` at ``line`` whose every compared value is the kernel's."""

    cell: str
    line: int
    hidden: bool
    source: str

    def describe(self) -> str:
        where = "hidden" if self.hidden else "visible"
        return f"  {self.cell} line {self.line} ({where}): {self.source.splitlines()[0].strip()[:100]}"


def _func_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


class _Taint:
    """The kernel's names inside one judged statement (its own loop variables included)."""

    def __init__(self, statement: ast.stmt, kernel: set[str]):
        self.kernel = set(kernel)
        self._spread(statement)

    def reads_kernel(self, node: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id in self.kernel for n in ast.walk(node))

    def _spread(self, statement: ast.stmt) -> None:
        """Names a loop or an assignment inside the statement binds from the kernel's values are the kernel's."""
        for _ in range(8):  # to a fixed point (a few rounds: statements are short)
            before = len(self.kernel)
            for node in ast.walk(statement):
                if isinstance(node, (ast.For, ast.comprehension)):
                    self._bind(node.target, node.iter)
                elif isinstance(node, ast.Assign):
                    for target in node.targets:
                        self._bind(target, node.value)
                elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
                    self._bind(node.target, node.value)
            if len(self.kernel) == before:
                return

    def _bind(self, target: ast.AST, value: ast.AST) -> None:
        # enumerate(x): the index is the autograder's; zip(a, b): each item comes from its own source
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Call) and _func_name(value) in ("enumerate", "zip"):
            sources = [None, *value.args[:1]] if _func_name(value) == "enumerate" else list(value.args)
            if len(sources) == len(target.elts):
                for elt, source in zip(target.elts, sources, strict=True):
                    if source is not None:
                        self._bind(elt, source)
                return
        if self.reads_kernel(value):
            self.kernel |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _anchored(test: ast.AST, taint: _Taint) -> bool:
    """Does the autograder hold one side of what ``test`` asserts?"""
    if not taint.reads_kernel(test):
        return True
    if isinstance(test, ast.BoolOp):
        results = [_anchored(v, taint) for v in test.values]
        return any(results) if isinstance(test.op, ast.And) else all(results)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _anchored(test.operand, taint)
    if isinstance(test, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
        return _anchored(test.elt, taint)  # all(isinstance(p, mg.Tensor) for p in params): what each item must meet
    if isinstance(test, ast.Compare):
        return any(not taint.reads_kernel(side) for side in (test.left, *test.comparators))
    if isinstance(test, ast.Call):
        name = _func_name(test)
        if name in _COMPARISONS and len(test.args) >= 2:
            return any(not taint.reads_kernel(side) for side in test.args[:2])
        if name in _PASS_THROUGH and len(test.args) == 1:
            return _anchored(test.args[0], taint)
        if isinstance(test.func, ast.Attribute) and test.func.attr in _PASS_THROUGH and not test.args:
            return _anchored(test.func.value, taint)  # (a == b).all()
        # a predicate: anchored when the autograder chose the function (it is not a kernel value itself)
        return not taint.reads_kernel(test.func)
    return False  # a kernel value's own truth


def influenced(found: Plan, hidden_lines: AbstractSet[int] = frozenset()) -> list[Influenced]:
    """The checks of ``found`` whose every compared value the kernel chose (see the module doc).

    ``hidden_lines`` are the cell's line numbers inside hidden-test markers.
    """
    out = []
    for st in found.statements:
        if st.kind == KERNEL_ASSERT:
            weak = True
        elif st.kind == JUDGED:
            node = parse(st.source).body[0]
            taint = _Taint(node, set(st.kernel_values))
            weak = any(not _anchored(a.test, taint) for a in ast.walk(node) if isinstance(a, ast.Assert))
        else:
            continue
        if weak:
            out.append(Influenced(found.cell, st.line, st.line in hidden_lines, st.source))
    return out
