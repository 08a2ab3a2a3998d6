"""Properties of how a test cell splits (instructor.grading.checks.split) over cells hypothesis writes.

A cell is made of statements over a few names: the student's functions ``f`` and ``g`` (never bound by the
cell), the cell's variables ``a`` and ``b`` (read before the cell binds them, they are an earlier cell's),
and ``np`` (a trusted import). Each statement is drawn with the names it reads and binds, so the split can be
checked against what was written (profile in tests/conftest.py).
"""

from __future__ import annotations

import ast
import builtins

from hypothesis import example, given
from hypothesis import strategies as st

from instructor.grading.checks import split
from instructor.grading.checks.split import GIVEN, JUDGED, KERNEL_ASSERT, PROBE, plan, statement_names

STUDENT = ("f", "g")
VARIABLES = ("a", "b")  # two, so that statements often share one
IMPORTED = {"np"}


def _expressions() -> st.SearchStrategy:
    """(source, names read) of an expression."""
    leaves = st.one_of(
        st.sampled_from([("1", frozenset()), ("2.5", frozenset()), ("np.ones(3)", frozenset({"np"}))]),
        st.sampled_from(VARIABLES).map(lambda v: (v, frozenset({v}))),
    )

    def grow(inner):
        return st.one_of(
            st.tuples(st.sampled_from(STUDENT), inner).map(lambda p: (f"{p[0]}({p[1][0]})", p[1][1] | {p[0]})),
            st.tuples(inner, inner).map(lambda p: (f"({p[0][0]} + {p[1][0]})", p[0][1] | p[1][1])),
            inner.map(lambda e: (f"np.abs({e[0]})", e[1] | {"np"})),
        )

    return st.recursive(leaves, grow, max_leaves=4)


@st.composite
def statements(draw):
    """(source, reads, binds, holds an assert) of one top-level statement."""
    kind = draw(st.sampled_from(["assign", "augassign", "call", "assert", "def", "for"]))
    e, reads = draw(_expressions())
    v = draw(st.sampled_from(VARIABLES))
    if kind == "assign":
        return f"{v} = {e}", reads, {v}, False
    if kind == "augassign":
        return f"{v} += {e}", reads | {v}, {v}, False
    if kind == "call":
        name = draw(st.sampled_from(STUDENT))
        return f"{name}({e})", reads | {name}, set(), False
    if kind == "assert":
        other, more = draw(_expressions())
        return f"assert {e} == {other}, 'they differ'", reads | more, set(), True
    if kind == "def":  # its argument is its own; what else it reads, it reads from the cell
        return f"def h(x):\n    return x + {e}", reads - {"x"}, {"h"}, False
    # a loop's own variables are not read from outside: what it binds is taken out of what it reads
    return f"for i in range(2):\n    {v} = {e}", (reads | {"range"}) - {"i", v}, {"i", v}, False


@given(statements())
def test_a_statement_reads_and_binds_what_it_was_written_with(drawn):
    source, reads, binds, _ = drawn
    assert statement_names(ast.parse(source).body[0]) == (set(reads), set(binds))


cells = st.lists(statements(), min_size=1, max_size=6)


def _cell(drawn) -> str:
    return "\n".join(source for source, *_ in drawn) + "\n"


@given(cells)
def test_a_cell_splits_statement_by_statement_in_order(drawn):
    """One plan statement per statement written, its text and first line; an assert is judged or runs in the
    kernel; anything else is a probe or a given; a call of the student's code is never a given or judged."""
    found = plan("c", _cell(drawn), IMPORTED)
    assert [s.source for s in found.statements] == [source for source, *_ in drawn]
    lines = [1]
    for source, *_ in drawn[:-1]:
        lines.append(lines[-1] + source.count("\n") + 1)
    assert [s.line for s in found.statements] == lines
    for s, (source, _, _, asserts) in zip(found.statements, drawn, strict=True):
        assert s.kind in ((JUDGED, KERNEL_ASSERT) if asserts else (PROBE, GIVEN)), source
        if s.reads & set(STUDENT) and not source.startswith("def "):
            assert s.kind in (PROBE, KERNEL_ASSERT), source


#: a value the grader made again after a probe made it, and one a probe touched after the grader made it
_REBOUND = [
    ("b = f(1)", {"f"}, {"b"}, False),
    ("b = 1", set(), {"b"}, False),
    ("assert b == 1, 'x'", {"b"}, set(), True),
]
_TOUCHED = [
    ("a = 1", set(), {"a"}, False),
    ("f(a)", {"f", "a"}, set(), False),
    ("b = (a + 1)", {"a"}, {"b"}, False),
    ("assert b == 1, 'x'", {"b"}, set(), True),
]


@given(cells)
@example(_REBOUND)
@example(_TOUCHED)
def test_what_the_kernel_gets_holds_no_judged_statement(drawn):
    """The kernel's code parses, maps each of its lines back to one of the cell's, holds no judged statement and
    sends every kernel value a judged statement reads; a given reads no kernel value; a judged statement reads
    nothing but the grader's own names and the values sent."""
    source = _cell(drawn)
    found = plan("c", source, IMPORTED)
    code, origin = found.kernel_code()
    ast.parse(code)
    assert len(origin) == len(code.splitlines()) and set(origin) <= set(range(1, source.count("\n") + 1))
    kernel_lines = code.splitlines()
    grader = IMPORTED | set(dir(builtins))
    own: set[str] = set()  # the grader's values: made by a given or judged statement, not touched by a probe since
    for index, s in enumerate(found.statements):
        if s.kind == GIVEN:
            assert s.reads <= own | grader, s.source
        if s.kind == JUDGED:
            # in its place, one line: the call that sends what it reads (by its place in the cell)
            (sent,) = [line for line, at in zip(kernel_lines[1:], origin[1:], strict=True) if at == s.line]
            assert sent.startswith(split.SEND_NAME) and f"('c', {index}" in sent and "assert" not in sent
            # the kernel is asked for what the kernel made or touched, and nothing the grader made itself
            assert s.kernel_values == sorted(s.reads - own - grader), s.source
            assert all(f"{n}={n}" in sent for n in s.kernel_values)
        if s.kind in (GIVEN, JUDGED):
            own |= s.binds
        else:  # what a probe binds or reads is the kernel's from here on (the student's code may change it)
            own -= s.binds | s.reads


@given(cells)
def test_a_plan_is_the_same_made_again(drawn):
    """Is the split a function of the cell (the cached plan equal to one made afresh)?"""
    source = _cell(drawn)
    first = plan("c", source, IMPORTED)
    split._plan.cache_clear()
    assert plan("c", source, IMPORTED) == first
