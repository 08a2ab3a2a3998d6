"""Which check of a test cell failed, named in its author's words.

A test cell is a list of checks (``assert`` statements and ``raise``
statements, visible or hidden). When the cell fails, its error output's
traceback says at which line of the cell the error came out; the statement
at that line is the check that failed, and its message (the text its author
wrote after ``assert ..., ``) names the mistake. ``{...}`` parts of an
f-string message are values the student's code produced: they become
``…``, so every student who failed the same check gets the same words.
A check whose message is not text of its own (``assert x.shape == (4, 29),
x.shape``) is named by its condition's code.

Only the author's words come out of here: the traceback (written in the
student's kernel) chooses *which* of the author's statements is named, never
adds text of its own. A traceback that points nowhere known gives
:data:`UNNAMED`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

#: a traceback that names no statement of the test cell (no error output, a forged or cut traceback)
UNNAMED = "failed without naming one of its checks"
#: what IPython writes before a frame of a cell: ``Cell In[12], line 7``
_FRAME = re.compile(r"Cell In\[\d*\], line (\d+)")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: an exception name shown as it is only when it looks like one (it is chosen in the student's kernel)
_EXCEPTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,59}")
#: a task left as released: its stub raised NotImplementedError
NOT_ATTEMPTED = "not attempted (the stub's NotImplementedError)"
#: the common exceptions of an unfinished or broken answer, said in words
_SAID = {
    "NotImplementedError": NOT_ATTEMPTED,
    "NameError": "a name it uses is not defined (an earlier task not run or not done)",
}


@dataclass(frozen=True)
class Check:
    """One statement of a test cell: its lines (1-based, inclusive) and how it is named."""

    first: int
    last: int
    words: str  # the author's message, or the condition's code
    judges: bool  # an assert or raise: the check itself said no (else the answer failed while it ran)


def _template(node: ast.expr, source: str) -> str | None:
    """The author's message of ``node`` with formatted values as ``…``, or None if it is not text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "…" for part in node.values)
    return None


def _words(stmt: ast.stmt, source: str) -> str:
    """How one statement is named: the message its author wrote, else its condition's code."""
    if isinstance(stmt, ast.Assert):
        words = _template(stmt.msg, source) if stmt.msg is not None else None
        return words or f"`{ast.get_source_segment(source, stmt.test)}`"
    if isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call) and stmt.exc.args:
        words = _template(stmt.exc.args[0], source)
        if words:
            return words
    return f"`{(ast.get_source_segment(source, stmt) or '').splitlines()[0]}`"


def checks(source: str) -> list[Check]:
    """Every simple statement of a test cell's source, innermost first when they nest (a loop's assert)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = [Check(node.lineno, node.end_lineno or node.lineno, _words(node, source),
                   isinstance(node, (ast.Assert, ast.Raise)))
             for node in ast.walk(tree)
             if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    return sorted(found, key=lambda c: c.last - c.first)


def failing_line(error: dict) -> int | None:
    """The test cell's line an error output points at: its traceback's first cell frame."""
    for entry in error.get("traceback") or []:
        m = _FRAME.search(_ANSI.sub("", str(entry)))
        if m:
            return int(m.group(1))
    return None


def exception_name(error: dict) -> str:
    """The error's exception name if it looks like one, else ``an exception``."""
    name = str(error.get("ename", ""))
    return name if _EXCEPTION_NAME.fullmatch(name) else "an exception"


def name_failure(source: str, outputs: list[dict]) -> str:
    """The failed check of a test cell whose trusted ``source`` gave ``outputs``, in its author's words.

    An ``AssertionError`` at an ``assert`` (or ``raise``) is that check's
    words; any other error is said as such ("IndexError at: <statement>"):
    the answer failed while the check ran, before the check could judge it.
    """
    errors = [o for o in outputs if o.get("output_type") == "error"]
    if not errors:
        return UNNAMED
    error = errors[-1]
    line = failing_line(error)
    ename = exception_name(error)
    if ename in _SAID:
        return _SAID[ename]
    at = next((c for c in checks(source) if line is not None and c.first <= line <= c.last), None)
    if at is None:
        return UNNAMED
    return at.words if ename == "AssertionError" and at.judges else f"{ename} at: {at.words}"
