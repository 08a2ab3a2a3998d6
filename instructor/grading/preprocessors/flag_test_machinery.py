"""Flag student code that reaches into the test machinery (read outside the kernel)."""

from __future__ import annotations

import ast
import io
import re
import tokenize

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from instructor.grading.course_patching import course_names, patches_course
from instructor.grading.submission import carried
from instructor.grading.syntax import parse

#: (what it is, pattern) -- matched against student code with comments and strings removed
PATTERNS = [
    (
        "IPython's machinery",
        r"\bget_ipython\b|\binput_transformers\w*|\bast_transformers\b|\bevents\s*\.\s*register\b|__IPYTHON__|\brun_cell\b",
    ),
    ("the input history", r"\b(_ih|_oh|_dh|_i\d*|_ii+|In|Out)\b"),  # read as code: see reads_history
    ("builtins", r"\bbuiltins\b|__builtins__|__import__"),
    ("the import system", r"\bsys\s*\.\s*(modules|meta_path|path_hooks|path_importer_cache)\b|\bimportlib\b"),
    (
        "the interpreter's hooks",
        r"\bsys\s*\.\s*(settrace|setprofile|_getframe|excepthook|displayhook|audit|addaudithook)\b|\binspect\b|\bgc\s*\.|\bctypes\b|\batexit\b|\bframe\b\s*\.\s*f_",
    ),
    (
        "a library function (monkeypatching)",
        r"\b(np|numpy|mg|mygrad|mynn|noggin|math|random|testing|plt|matplotlib)\s*(\.\s*\w+\s*)+=(?!=)|\bsetattr\s*\(|\bdelattr\s*\(|__code__|__globals__|__subclasses__|__dict__",
    ),
    ("the grader's own code", r"\b(from|import)\s+(instructor|course_data)\b|\bnbgrader\b"),
    (
        "processes or signals",
        r"\bos\s*\.\s*(kill|killpg|system|fork|forkpty|exec\w*|spawn\w*|setsid|_exit|popen)\b|\bsubprocess\b|\bmultiprocessing\b|\bsignal\b|\bthreading\b|\bPopen\b",
    ),
    (
        "files outside the notebook's folder, or the environment",
        r"['\"]/(etc|proc|sys|root|work|home|tmp|dev)\b|\bos\s*\.\s*(environ|getenv)\b|\bsocket\b|\burllib\b|\brequests\b",
    ),
    ("dynamic code", r"(?<![\w.])(eval|exec|compile)\s*\("),
    # where hidden checks draw their inputs (course.draws): a student's code has no use for it
    (
        "the hidden checks' draws",
        r"\bcourse\s*\.\s*draws\b|\bfrom\s+course\s+import\b[^\n]*\bdraws\b|\b(hidden_rng|use_seed|use_variant)\b",
    ),
    # the kernel sends the values a check reads to the grader as display data of its own MIME type (course.values)
    (
        "the grader's value channel",
        r"\bcourse\s*\.\s*values\b|\bfrom\s+course\s+import\b[^\n]*\bvalues\b|"
        r"\bpublish_display_data\b|\bdisplay_pub\b|\bvnd\s*\.\s*course\b",
    ),
]
_COMPILED = [(what, re.compile(p)) for what, p in PATTERNS]
#: The student package holds fused forms of two tasks' answers, for notebooks to use and show, not to submit:
#: 01's RNN (course.recurrent, ops.tanh_recurrence), named in no cell a student may edit, and 04's layer norm
#: (ops.layer_norm), which 04's timing cell calls, so it counts only inside an answer cell.
COURSE_ANSWERS = "the course's own answer to a task (course.recurrent, ops.tanh_recurrence, ops.layer_norm)"
_RECURRENCE = re.compile(
    r"\bcourse\s*\.\s*recurrent\b|\bfrom\s+course\s+import\b[^\n]*\brecurrent\b|\btanh_recurrence\b"
)
_LAYER_NORM = re.compile(r"\bops\s*\.\s*layer_norm\b|\bfrom\s+course\s*\.\s*ops\s+import\b[^\n]*\blayer_norm\b")
HISTORY = "the input history"
COURSE_MODULES = "the student package's modules (assigning or deleting an attribute of course.*)"
#: what is matched against the code with its strings (paths, module and MIME names live in strings)
_IN_STRINGS = ("files outside the notebook's folder, or the environment", "the grader's value channel")
#: IPython's names for the input and output history
_HISTORY_NAME = re.compile(r"_ih|_oh|_dh|_i\d*|_ii+|In|Out")


def reads_history(source: str) -> bool:
    """Does this code read one of IPython's history names that it has not bound itself first?

    ``for _i in range(3): total += _i`` binds ``_i`` and reads its own value;
    ``print(In)`` reads the history. A name is the code's own when the cell
    binds it before reading it (an assignment, a loop, a ``with ... as``, an
    argument) or anywhere as a comprehension's loop variable (which Python
    reads before it appears). Code that does not parse falls back to the
    pattern: a history name anywhere is flagged.
    """
    try:
        tree = parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
    except SyntaxError:
        return bool(re.search(rf"\b({_HISTORY_NAME.pattern})\b", _code_only(source, strings=False)))
    bound: dict[str, tuple[int, int]] = {}  # name -> where the code first binds it
    reads: list[tuple[str, tuple[int, int]]] = []
    always = set()  # comprehension targets: bound for the whole comprehension

    def bind(name: str, at: tuple[int, int]) -> None:
        bound[name] = min(bound.get(name, at), at)

    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            always |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            # the value is read before the targets are bound (`In = In` reads the history)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for name in (n for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)):
                bind(name.id, _end(node))
                if isinstance(node, ast.AugAssign):  # `_i += 1` reads _i first
                    reads.append((name.id, (name.lineno, name.col_offset)))
        elif isinstance(node, ast.arg):
            bind(node.arg, (node.lineno, node.col_offset))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                reads.append((node.id, (node.lineno, node.col_offset)))
            elif node.id not in bound:  # a loop's, a `with ... as`'s, a walrus's target
                bind(node.id, (node.lineno, node.col_offset))
    far = (10**9, 0)
    return any(_HISTORY_NAME.fullmatch(name) and name not in always and at < bound.get(name, far) for name, at in reads)


def _end(node: ast.stmt) -> tuple[int, int]:
    """Where statement ``node`` ends (line, column); every node parsed from source has it."""
    if node.end_lineno is None or node.end_col_offset is None:
        raise ValueError(f"the statement at line {node.lineno} has no end position (not parsed from source)")
    return node.end_lineno, node.end_col_offset


def _code_only(source: str, strings: bool = True) -> str:
    """The source without comments and docstrings (and without any string unless ``strings``)."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    text = "\n".join(lines)
    try:
        out = []
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                continue
            if tok.type == tokenize.STRING and (
                not strings or tok.string.lstrip("rbuRBUfF").startswith(('"""', "'''"))
            ):
                continue
            out.append(tok.string)
        return " ".join(out)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return text


def magics(source: str) -> list[str]:
    return [
        line.strip().split()[0]
        for line in source.splitlines()
        if line.lstrip().startswith(("%", "!")) and not line.strip().startswith("%matplotlib")
    ]


class FlagTestMachinery(Preprocessor):
    """Flag for review any student code cell that touches what the tests rely on.

    Tests run in the kernel that student code controls, so no check inside
    it proves anything; this one reads the code from outside. Only cells a
    student may edit are read (unlocked ones; locked cells are restored from
    the student version). A flagged notebook keeps its score, marked for a human.
    """

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        found: dict[str, list[str]] = {}
        # given cells count too: the setup cell's `from course import checks` names what a student cell patches
        bound = course_names([cell.source for cell in nb.cells if cell.cell_type == "code"])
        for index, cell in enumerate(nb.cells):
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if cell.cell_type != "code" or meta.get("locked"):
                continue
            where = meta.get("grade_id") or f"cell {index}"
            code, names = _code_only(cell.source), _code_only(cell.source, strings=False)
            for what, pattern in _COMPILED:
                if what == HISTORY:
                    hit = reads_history(cell.source)
                else:  # paths live in strings; every other pattern is about names
                    hit = bool(pattern.search(code if what in _IN_STRINGS else names))
                if hit:
                    found.setdefault(what, []).append(where)
            if _RECURRENCE.search(names) or (meta.get("solution") and _LAYER_NORM.search(names)):
                found.setdefault(COURSE_ANSWERS, []).append(where)
            if patches_course(cell.source, bound):
                found.setdefault(COURSE_MODULES, []).append(where)
            if magics(cell.source):
                found.setdefault("IPython magics or shell commands", []).append(where)
        sub = carried(resources)
        for what, cells in found.items():
            sub.flag(f"student code reaches into {what} (in {', '.join(dict.fromkeys(cells))})")
        return nb, resources
