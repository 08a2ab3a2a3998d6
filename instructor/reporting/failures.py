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

Two readers:

* :func:`name_failure`, for the instructor's class report: any check, its
  words or its code;
* :func:`tell_student`, for the feedback page: a hidden check is named only
  by the message its author wrote for it (part of the release, safe to show),
  never by its code or inputs.

Only the author's words come out of here: the traceback (written in the
student's kernel) chooses *which* of the author's statements is named, never
adds text of its own. A traceback that points nowhere known gives
:data:`UNNAMED`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from instructor.cells import hidden_line_numbers

#: a traceback that names no statement of the test cell (no error output, a forged or cut traceback)
UNNAMED = "failed without naming one of its checks"
#: a task left as released: its stub raised NotImplementedError
NOT_ATTEMPTED = "not attempted (the stub's NotImplementedError)"
#: a test cell with no error that wrote to stderr: nbgrader scores it 0
WROTE_STDERR = "it wrote to stderr (a warning, say), which fails a test cell"
#: what a student reads for a hidden check whose author wrote no message
HIDDEN = "a hidden check failed"
#: what IPython writes before a frame of a cell: ``Cell In[12], line 7``
_FRAME = re.compile(r"Cell In\[\d*\], line (\d+)")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: an exception name shown as it is only when it looks like one (it is chosen in the student's kernel)
_EXCEPTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,59}")
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
    words: str  # the author's message, or the statement's code in backquotes
    judges: bool  # an assert or raise: the check itself said no (else the answer failed while it ran)
    literal: bool  # ``words`` is text its author wrote, not code
    hidden: bool = False  # inside the hidden tests


@dataclass(frozen=True)
class Failure:
    """Where a failed test cell stopped: the statement (None if unknown) and the exception's name."""

    check: Check | None
    exception: str


def _template(node: ast.expr) -> str | None:
    """The author's message of ``node`` with formatted values as ``…``, or None if it is not text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "…" for part in node.values)
    return None


def _words(stmt: ast.stmt, source: str) -> tuple[str, bool]:
    """How one statement is named, and whether that is its author's text (else its code)."""
    message = None
    if isinstance(stmt, ast.Assert) and stmt.msg is not None:
        message = _template(stmt.msg)
    elif isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call) and stmt.exc.args:
        message = _template(stmt.exc.args[0])
    if message:
        return message, True
    code = ast.get_source_segment(source, stmt.test if isinstance(stmt, ast.Assert) else stmt) or ""
    return f"`{code.splitlines()[0] if code else ''}`", False


def checks(source: str) -> list[Check]:
    """Every simple statement of a test cell's source, innermost first when they nest (a loop's assert)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    hidden = hidden_line_numbers(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            words, literal = _words(node, source)
            found.append(Check(node.lineno, node.end_lineno or node.lineno, words,
                               isinstance(node, (ast.Assert, ast.Raise)), literal, node.lineno in hidden))
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


def failed_check(source: str, outputs: list[dict]) -> Failure | None:
    """Where the test cell whose trusted ``source`` gave ``outputs`` stopped; None without an error output."""
    errors = [o for o in outputs if o.get("output_type") == "error"]
    if not errors:
        return None
    line = failing_line(errors[-1])
    at = next((c for c in checks(source) if line is not None and c.first <= line <= c.last), None)
    return Failure(at, exception_name(errors[-1]))


def _wrote_stderr(outputs: list[dict]) -> bool:
    return any(o.get("output_type") == "stream" and o.get("name") == "stderr" for o in outputs)


def name_failure(source: str, outputs: list[dict]) -> str:
    """The failed check, in its author's words (or its code), for the instructor.

    An ``AssertionError`` at an ``assert`` (or ``raise``) is that check's
    words; any other error is said as such ("IndexError at: <statement>"):
    the answer failed while the check ran, before the check could judge it.
    """
    failure = failed_check(source, outputs)
    if failure is None:
        return WROTE_STDERR if _wrote_stderr(outputs) else UNNAMED
    if failure.exception in _SAID:
        return _SAID[failure.exception]
    if failure.check is None:
        return UNNAMED
    check = failure.check
    return check.words if failure.exception == "AssertionError" and check.judges else f"{failure.exception} at: {check.words}"


def tell_student(source: str, outputs: list[dict]) -> str:
    """The failed check for the student's feedback: a hidden check only by the message its author wrote."""
    failure = failed_check(source, outputs)
    if failure is None or failure.check is None or not failure.check.hidden:
        return name_failure(source, outputs)
    if failure.exception in _SAID:
        return _SAID[failure.exception]
    check = failure.check
    if failure.exception == "AssertionError" and check.judges:
        return check.words if check.literal else HIDDEN
    return f"{failure.exception} during the hidden check: {check.words}" if check.literal \
        else f"{failure.exception} during a hidden check"
