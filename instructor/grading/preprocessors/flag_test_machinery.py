"""Flag student code that reaches into the test machinery (read outside the kernel)."""

from __future__ import annotations

import io
import re
import tokenize

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from instructor.grading.submission import carried

#: (what it is, pattern) -- matched against student code with comments and strings removed
PATTERNS = [
    ("IPython's machinery", r"\bget_ipython\b|\binput_transformers\w*|\bast_transformers\b|\bevents\s*\.\s*register\b|__IPYTHON__|\brun_cell\b"),
    ("the input history", r"\b(_ih|_oh|_dh|_i\d*|_ii+|In|Out)\b"),
    ("builtins", r"\bbuiltins\b|__builtins__|__import__"),
    ("the import system", r"\bsys\s*\.\s*(modules|meta_path|path_hooks|path_importer_cache)\b|\bimportlib\b"),
    ("the interpreter's hooks", r"\bsys\s*\.\s*(settrace|setprofile|_getframe|excepthook|displayhook|audit|addaudithook)\b|\binspect\b|\bgc\s*\.|\bctypes\b|\batexit\b|\bframe\b\s*\.\s*f_"),
    ("a library function (monkeypatching)", r"\b(np|numpy|mg|mygrad|mynn|noggin|math|random|testing|plt|matplotlib)\s*(\.\s*\w+\s*)+=(?!=)|\bsetattr\s*\(|\bdelattr\s*\(|__code__|__globals__|__subclasses__|__dict__"),
    ("the grader's own code", r"\b(from|import)\s+(instructor|course_data)\b|\bnbgrader\b"),
    ("processes or signals", r"\bos\s*\.\s*(kill|killpg|system|fork|forkpty|exec\w*|spawn\w*|setsid|_exit|popen)\b|\bsubprocess\b|\bmultiprocessing\b|\bsignal\b|\bthreading\b|\bPopen\b"),
    ("files outside the notebook's folder, or the environment", r"['\"]/(etc|proc|sys|root|work|home|tmp|dev)\b|\bos\s*\.\s*(environ|getenv)\b|\bsocket\b|\burllib\b|\brequests\b"),
    ("dynamic code", r"(?<![\w.])(eval|exec|compile)\s*\("),
]
_COMPILED = [(what, re.compile(p)) for what, p in PATTERNS]


def _code_only(source: str, strings: bool = True) -> str:
    """The source without comments and docstrings (and without any string unless ``strings``)."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    text = "\n".join(lines)
    try:
        out = []
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                continue
            if tok.type == tokenize.STRING and (not strings or tok.string.lstrip("rbuRBUfF").startswith(('"""', "'''"))):
                continue
            out.append(tok.string)
        return " ".join(out)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return text


def magics(source: str) -> list[str]:
    return [line.strip().split()[0] for line in source.splitlines() if line.lstrip().startswith(("%", "!"))
            and not line.strip().startswith("%matplotlib")]


class FlagTestMachinery(Preprocessor):
    """Flag for review any student code cell that touches what the tests rely on.

    Tests run in the kernel that student code controls, so no check inside
    it proves anything; this one reads the code from outside. Only cells a
    student may edit are read (unlocked ones; locked cells are restored from
    the release). A flagged notebook keeps its score, marked for a human.
    """

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        found: dict[str, list[str]] = {}
        for index, cell in enumerate(nb.cells):
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if cell.cell_type != "code" or meta.get("locked"):
                continue
            where = meta.get("grade_id") or f"cell {index}"
            code, names = _code_only(cell.source), _code_only(cell.source, strings=False)
            for what, pattern in _COMPILED:
                # paths live in strings; every other pattern is about names
                if pattern.search(code if what.startswith("files") else names):
                    found.setdefault(what, []).append(where)
            if magics(cell.source):
                found.setdefault("IPython magics or shell commands", []).append(where)
        sub = carried(resources)
        for what, cells in found.items():
            sub.flag(f"student code reaches into {what} (in {', '.join(dict.fromkeys(cells))})")
        return nb, resources
