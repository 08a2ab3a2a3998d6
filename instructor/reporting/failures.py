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

Only the author's words come out of here, and values: the traceback
(written in the student's kernel) chooses *which* of the author's
statements is named, never adds text of its own. A traceback that points
nowhere known gives :data:`UNNAMED`.

Values in feedback (:func:`tell_student_parts`). The failing error's message
(the judge's, or the kernel's as Validate shows it) is read back against the
check's own f-string: each ``{...}`` field's text is taken from it, and shown
when it may be:

* a visible check's fields (its inputs are in the student's notebook), if no
  hidden code had run before it (no hidden line before it in its cell, no
  cell with hidden checks before its cell); after hidden code, only a field
  whose text the student's own run of the cell (the notebook they handed in)
  held in the same place of the same message: the kernel that runs a check
  after hidden code may have kept what hidden checks passed it, and could
  return it as a value or raise it (36 hidden inputs reached a page so);
* a hidden check's fields whose names the author marked with a comment line
  ``# feedback shows: name1, name2`` in the hidden block (for the checks after
  it in that cell); every other field of a hidden check stays ``…``;
* and in every case only a value's text: numbers, shapes, dtypes, booleans
  and words the cell's visible code holds (``Wq``), at most
  :data:`MAX_VALUE_CHARS` (other text the student's code chose, which could
  carry anything, stays ``…``).

The class report keeps grouping by the elided form (:func:`name_failure`),
written on one line with each field named by its code (``{mask[:, 0]}``).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from instructor.cells import hidden_line_numbers, visible_source
from instructor.grading.syntax import parse

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
#: the same, with the cell's run count: which cell of the notebook the frame is in
_CELL_FRAME = re.compile(r"Cell In\[(\d+)\], line (\d+)")
#: the longest line of a student's code a feedback page quotes
MAX_LINE_CHARS = 200
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: an exception name shown as it is only when it looks like one (it is chosen in the student's kernel)
_EXCEPTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,59}")
#: the common exceptions of an unfinished or broken answer, said in words
_SAID = {
    "NotImplementedError": NOT_ATTEMPTED,
    "NameError": "a name it uses is not defined (an earlier task not run or not done)",
}
#: the author's mark, in a hidden block, of the names whose values the feedback may show
_SHOWS = re.compile(r"^\s*#\s*feedback shows:\s*(.*?)\s*$")
#: the longest value text a feedback page shows
MAX_VALUE_CHARS = 400
#: a value's text: the characters of numbers, arrays, tuples and dtypes
_VALUE_CHARS = re.compile(r"[A-Za-z0-9_ \n\t\[\](),.+\-:=']*")
_NUMBER = re.compile(r"(?<![A-Za-z_\d])\d+(?:\.\d*)?(?:[eE][+-]?\d+)?")
#: the words a value's text may hold
_VALUE_WORDS = {
    "nan",
    "inf",
    "True",
    "False",
    "None",
    "array",
    "dtype",
    "bool",
    "bool_",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "complex64",
    "complex128",
    "Tensor",
    "tensor",
    "shape",
    "ndim",
    "size",
    "grad",
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
    parts: tuple[str, ...] = ()  # a message with values: its literal text around the fields (one more than fields)
    fields: tuple[tuple[str, frozenset[str]], ...] = ()  # each ``{...}`` field: its code and the names it reads
    shows: frozenset[str] = frozenset()  # names whose values the author marked safe to show (hidden checks)
    after_hidden: bool = False  # a hidden line of its cell comes before it (its values may hold hidden inputs)

    def report_words(self) -> str:
        """The words on one line, each value named by its code: for the instructor's class report."""
        if not self.fields:
            return " ".join(self.words.split())
        text = self.parts[0] + "".join(
            f"{{{code}}}{after}" for (code, _), after in zip(self.fields, self.parts[1:], strict=True)
        )
        return " ".join(text.split())


@dataclass(frozen=True)
class Failure:
    """Where a failed test cell stopped: the statement (None if unknown) and the exception's name."""

    check: Check | None
    exception: str


def _template(node: ast.expr, source: str = "") -> tuple[str, tuple, tuple] | None:
    """The author's message of ``node`` with formatted values as ``…``, its literal parts and its fields
    (code, names read); None if it is not text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, (), ()
    if isinstance(node, ast.JoinedStr):
        parts, fields = [""], []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts[-1] += str(part.value)
            elif isinstance(part, ast.FormattedValue):  # an f-string holds only these two kinds of part
                code = ast.get_source_segment(source, part.value) if source else None
                names = frozenset(n.id for n in ast.walk(part.value) if isinstance(n, ast.Name))
                fields.append((code or ast.unparse(part.value), names))
                parts.append("")
        return "…".join(parts), tuple(parts), tuple(fields)
    return None


def _message(stmt: ast.stmt, source: str) -> tuple[str, tuple, tuple] | None:
    if isinstance(stmt, ast.Assert) and stmt.msg is not None:
        return _template(stmt.msg, source)
    if isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call) and stmt.exc.args:
        return _template(stmt.exc.args[0], source)
    return None


def _words(stmt: ast.stmt, source: str) -> tuple[str, bool]:
    """How one statement is named, and whether that is its author's text (else its code)."""
    found = _message(stmt, source)
    if found and found[0]:
        return found[0], True
    code = ast.get_source_segment(source, stmt.test if isinstance(stmt, ast.Assert) else stmt) or ""
    return f"`{code.splitlines()[0] if code else ''}`", False


def _marked(source: str) -> dict[int, frozenset[str]]:
    """For each line of ``source``: the names marked ``# feedback shows:`` before it in its hidden block."""
    hidden = hidden_line_numbers(source)
    marked: dict[int, frozenset[str]] = {}
    shows: frozenset[str] = frozenset()
    for number, line in enumerate(source.splitlines(), start=1):
        if number not in hidden:
            shows = frozenset()
            continue
        m = _SHOWS.match(line)
        if m:
            shows = shows | {n.strip() for n in m.group(1).split(",") if n.strip().isidentifier()}
        marked[number] = shows
    return marked


@functools.lru_cache(maxsize=1024)
def checks(source: str) -> tuple[Check, ...]:
    """Every simple statement of a test cell's source, innermost first when they nest (a loop's assert).

    Cached: a class's pages and reports ask about the same few release test cells for every submission, and
    each call parses the cell and cuts the code of each statement out of it (``ast.get_source_segment`` reads
    the whole cell again each time). A ``Check`` is frozen, so every caller may share one.
    """
    try:
        tree = parse(source)
    except SyntaxError:
        return ()
    hidden = hidden_line_numbers(source)
    first_hidden = min(hidden, default=None)
    marked = _marked(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            words, literal = _words(node, source)
            message = _message(node, source) if literal else None
            parts, fields = (message[1], message[2]) if message else ((), ())
            found.append(
                Check(
                    node.lineno,
                    node.end_lineno or node.lineno,
                    words,
                    isinstance(node, (ast.Assert, ast.Raise)),
                    literal,
                    node.lineno in hidden,
                    parts,
                    fields,
                    marked.get(node.lineno, frozenset()),
                    first_hidden is not None and first_hidden < node.lineno,
                )
            )
    return tuple(sorted(found, key=lambda c: c.last - c.first))


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


#: the exception names a kernel that ran hidden code may still have shown: Python's own and NumPy's (fixed words;
#: a class the student's code makes can be named with anything it holds)
KNOWN_EXCEPTIONS = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
) | {"AxisError", "LinAlgError"}


def last_error(outputs) -> dict | None:
    """The last error output of ``outputs`` (None without one)."""
    errors = [o for o in outputs or () if isinstance(o, dict) and o.get("output_type") == "error"]
    return errors[-1] if errors else None


def _evalue(error: dict | None) -> str | None:
    return None if error is None else _ANSI.sub("", str(error.get("evalue", ""))).strip()


def _vouched_exception(name: str, own_error: dict | None) -> str:
    """After hidden code: ``name`` if it is Python's or NumPy's, or the one the student's own run raised in this
    cell (``own_error``), else ``an exception``."""
    if name in KNOWN_EXCEPTIONS or (own_error is not None and exception_name(own_error) == name):
        return name
    return "an exception"


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
    return _named(failed_check(source, outputs), outputs)


def _named(failure: Failure | None, outputs: list[dict]) -> str:
    if failure is None:
        return WROTE_STDERR if _wrote_stderr(outputs) else UNNAMED
    if failure.exception in _SAID:
        return _SAID[failure.exception]
    if failure.check is None:
        return UNNAMED
    check = failure.check
    if failure.exception == "AssertionError" and check.judges:
        return check.words
    return f"{failure.exception} at: {check.words}"


def report_line(source: str, outputs: list[dict]) -> str:
    """:func:`name_failure` on one line, each elided value named by its code: what the class report prints.

    Failures are grouped by :func:`name_failure` (one group per check); this
    is only how a group reads.
    """
    failure = failed_check(source, outputs)
    said = name_failure(source, outputs)
    if failure is None or failure.check is None or not failure.check.fields or failure.check.words not in said:
        return " ".join(said.split())
    return " ".join(said.replace(failure.check.words, failure.check.report_words()).split())


_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def is_value_text(text: str, known: frozenset[str] = frozenset()) -> bool:
    """Is ``text`` only a value's (numbers, arrays, shapes, dtypes, booleans, the ``known`` words: those of the
    cell's visible code), short enough to show?"""
    if len(text) > MAX_VALUE_CHARS or not _VALUE_CHARS.fullmatch(text):
        return False
    return all(w in _VALUE_WORDS or w in known for w in _WORD.findall(_NUMBER.sub("0", text)))


def _field_texts(parts: tuple[str, ...], message: str) -> list[str] | None:
    """The text of each field in ``message``, read against the literal ``parts`` around them; None if it does
    not read (not this check's message, a cut one, or two fields side by side). Linear in the message."""
    if len(parts) < 2 or not message.startswith(parts[0]):
        return None
    pos, texts = len(parts[0]), []
    for index, literal in enumerate(parts[1:], start=1):
        if index == len(parts) - 1:
            end = len(message) - len(literal)
            if end < pos or not message.endswith(literal):
                return None
        else:
            end = message.find(literal, pos) if literal else -1
            if end < 0:
                return None
        texts.append(message[pos:end])
        pos = end + len(literal)
    return texts


def _with_values(
    check: Check, source: str, outputs: list[dict], tainted: bool, own: list[dict]
) -> list[tuple[str, bool]] | None:
    """The check's message as (text, is a value) pieces, with the values it may show; None to keep ``…``.

    ``tainted``: hidden code had run in the kernel before the check (its values may carry what hidden checks
    passed); then a visible check's value shows only where the student's own run of the cell (``own``, its
    outputs in the notebook they handed in) failed with the same text in that place.
    """
    error = last_error(outputs)
    if not check.fields or error is None:
        return None
    texts = _field_texts(check.parts, str(error.get("evalue", "")))
    if texts is None:
        return None
    vouched: list[str] | None = None
    if tainted and not check.hidden:
        own_message = _evalue(last_error(own))
        vouched = _field_texts(check.parts, own_message) if own_message is not None else None
    known = frozenset(_WORD.findall(visible_source(source)))
    pieces = [(check.parts[0], False)]
    for index, ((_, names), text, after) in enumerate(zip(check.fields, texts, check.parts[1:], strict=True)):
        if check.hidden:
            may = bool(names and names <= check.shows)
        else:
            may = not tainted or (vouched is not None and vouched[index] == text)
        shown = may and is_value_text(text, known)
        pieces += [(text, True) if shown else ("…", False), (after, False)]
    return [p for p in pieces if p[0]]


def tell_student_parts(
    source: str, outputs: list[dict], hidden_ran_before: bool = False, own: list[dict] | tuple = ()
) -> list[tuple[str, bool]]:
    """:func:`tell_student` as (text, is a value) pieces: the page sets values apart from the author's words.

    ``hidden_ran_before``: a cell with hidden checks ran before this one; ``own``: this cell's outputs in the
    student's own run (the notebook they handed in). Once hidden code has run, the kernel's words (an exception's
    name, a visible check's values) show only as :func:`_with_values` and :func:`_vouched_exception` allow.
    """
    failure = failed_check(source, outputs)
    tainted = failure is not None and failure.check is not None and _tainted(failure.check, hidden_ran_before)
    if tainted and failure is not None:
        failure = dataclasses.replace(failure, exception=_vouched_exception(failure.exception, last_error(own)))
    if (
        failure is not None
        and failure.check is not None
        and failure.exception == "AssertionError"
        and failure.check.judges
        and failure.check.literal
    ):
        pieces = _with_values(failure.check, source, outputs, tainted, list(own))
        if pieces is not None:
            return pieces
    return [(_tell_student(outputs, failure), False)]


def _tainted(check: Check, hidden_ran_before: bool) -> bool:
    """Had hidden code run in the kernel by the time ``check`` ran?"""
    return hidden_ran_before or check.hidden or check.after_hidden


def tell_student(
    source: str, outputs: list[dict], hidden_ran_before: bool = False, own: list[dict] | tuple = ()
) -> str:
    """The failed check for the student's feedback: a hidden check only by the message its author wrote,
    with the values it may show (see the module doc)."""
    return "".join(text for text, _ in tell_student_parts(source, outputs, hidden_ran_before, own))


def _tell_student(outputs: list[dict], failure: Failure | None) -> str:
    if failure is None or failure.check is None or not failure.check.hidden:
        return _named(failure, outputs)
    if failure.exception in _SAID:
        return _SAID[failure.exception]
    check = failure.check
    if failure.exception == "AssertionError" and check.judges:
        return check.words if check.literal else HIDDEN
    return (
        f"{failure.exception} during the hidden check: {check.words}"
        if check.literal
        else f"{failure.exception} during a hidden check"
    )


@dataclass(frozen=True)
class Raised:
    """An exception the student's code raised while a check ran it (not a check's own verdict).

    ``message`` is the exception's text, or None where it is withheld. Code
    in a kernel can keep what a hidden check passed it and pass it on in the
    text of an exception it raises later, and a hidden check's own error can
    quote its inputs (a broadcast error names their shapes). So the message
    shows whole where no hidden code had run before it (a visible statement
    in a cell before the notebook's first hidden check); after hidden code it
    shows at a visible check only if the student's own run of the same cell
    (the notebook they handed in, made from the release, which holds no
    hidden test) failed with the very same message, which therefore holds
    nothing of the autograder's run (words that read as NumPy's, with numbers,
    carried 36 hidden inputs); during a hidden check, never. ``exception``
    after hidden code is the exception's name only if it is Python's or
    NumPy's or the one the student's own run raised (a class made at run time
    can be named with anything), else ``an exception``. ``line`` is the
    student's own line the exception came out of (the deepest frame in one of
    their cells), read from their cell, never from the traceback's text.
    """

    exception: str
    message: str | None
    line: str | None
    hidden: bool  # raised during a hidden check
    after_hidden: bool  # hidden code had run in the kernel before it (its words show only as the own run vouches)


def cell_frames(error: dict) -> list[tuple[int, int]]:
    """(run count, line) of each cell frame of an error's traceback, outermost first."""
    frames = []
    for entry in error.get("traceback") or []:
        m = _CELL_FRAME.search(_ANSI.sub("", str(entry)))
        if m:
            frames.append((int(m.group(1)), int(m.group(2))))
    return frames


#: a message holding this many characters of a hidden line in a row is withheld
QUOTE_CHARS = 16


def quotes(text: str, lines: list[str], size: int = QUOTE_CHARS) -> bool:
    """Does ``text`` hold ``size`` characters in a row of one of ``lines`` (spaces aside)?"""
    flat = "".join(text.split())
    for line in lines:
        squeezed = "".join(line.split())
        if any(squeezed[i : i + size] in flat for i in range(max(len(squeezed) - size + 1, 0))):
            return True
    return False


def raised_in_answer(
    source: str,
    outputs: list[dict],
    student_line: Callable[[int, int], str | None],
    hidden_ran_before: bool,
    secret_lines: tuple[str, ...] | list[str] = (),
    own: list[dict] | tuple = (),
) -> Raised | None:
    """The exception the student's code raised while the test cell whose trusted ``source`` gave ``outputs``
    ran it; None when the cell failed otherwise (a check said no, a task not attempted, no error).

    ``student_line(count, line)`` is the text of line ``line`` of the student's own cell that ran as
    ``In[count]`` (None for any other cell: a test cell holds hidden lines); ``hidden_ran_before`` says
    that a cell with hidden checks ran before this one; a message quoting one of ``secret_lines`` (the
    notebook's hidden lines) is withheld wherever it came from; ``own`` is this cell's outputs in the
    student's own run (the notebook they handed in), which alone can vouch for words after hidden code.
    """
    failure = failed_check(source, outputs)
    if failure is None or failure.check is None or failure.exception in _SAID:
        return None
    check = failure.check
    if failure.exception == "AssertionError" and check.judges:
        return None
    error = last_error(outputs) or {}
    line = next((text for count, number in reversed(cell_frames(error)) if (text := student_line(count, number))), None)
    after_hidden = _tainted(check, hidden_ran_before)
    own_error = last_error(own)
    exception = _vouched_exception(failure.exception, own_error) if after_hidden else failure.exception
    message = _evalue(error)
    if check.hidden:
        message = None  # a hidden check's inputs are the kernel's: its error may quote them (shapes, values)
    elif after_hidden and (message != _evalue(own_error) or exception_name(own_error or {}) != failure.exception):
        message = None  # the kernel may hold what hidden checks passed it: only the student's own run vouches
    elif message and len(message) > MAX_VALUE_CHARS:
        message = message[:MAX_VALUE_CHARS] + " …"
    if message and quotes(message, list(secret_lines)):
        message = None
    if line is not None and len(line) > MAX_LINE_CHARS:
        line = line[:MAX_LINE_CHARS] + " …"
    return Raised(exception, message or None, line, check.hidden, after_hidden)
