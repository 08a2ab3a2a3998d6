"""Does student code assign, delete or ``setattr`` an attribute of the student package's modules?

The checks a test cell calls live in ``course`` (``course.checks``, ...), imported into the same kernel
student code runs in: ``course.checks.close = lambda *a: True`` would pass every check after it. The
scan reads the code, never runs it:

* :func:`course_names` -- the names a notebook binds to ``course`` or anything in it (``import course.checks
  as c``, ``from course import checks``, ``c2 = c``), read from every code cell, given ones too (the setup
  cell imports what student cells then use);
* :func:`patches_course` -- does one cell's code change an attribute reached from one of those names
  (``checks.close = ...``, ``course.runtime.QUICK += 1``, ``del c.x``, ``setattr(c, ...)``)?

A call ends the chain: ``model = course.layers.Dense(...)`` makes an object of the student's own, whose
attributes are theirs to set.
"""

from __future__ import annotations

import ast
import re

from instructor.grading.syntax import parse

PACKAGE = "course"
#: the fallback when a cell does not parse: ``course.<name>... =`` (not ``==``)
_ASSIGNED = re.compile(r"\bcourse\s*(\.\s*\w+\s*)+=(?!=)|\bdel\s+course\s*\.")


def _tree(source: str) -> ast.Module | None:
    """The cell's syntax tree without its magic and shell lines, or None if it does not parse."""
    try:
        return parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
    except (SyntaxError, ValueError):
        return None


def _root(node: ast.expr) -> str | None:
    """The name an attribute chain starts from (``a`` of ``a.b.c``), None if it passes through a call."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def course_names(sources: list[str]) -> set[str]:
    """The names these cells bind to the student package or anything imported from it (always ``course``)."""
    names = {PACKAGE}
    trees = [t for t in map(_tree, sources) if t is not None]
    for _ in range(3):  # aliases of aliases (`c = course.checks; d = c`), a few deep
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    for alias in node.names:
                        if alias.name.split(".")[0] == PACKAGE:
                            names.add(alias.asname or PACKAGE)
                elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == PACKAGE:
                    names |= {alias.asname or alias.name for alias in node.names}
                elif isinstance(node, ast.Assign) and _root(node.value) in names:
                    names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def patches_course(source: str, names: set[str]) -> bool:
    """Does this cell assign, delete or ``setattr``/``delattr`` an attribute reached from one of ``names``?"""
    tree = _tree(source)
    if tree is None:
        return bool(_ASSIGNED.search(source))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("setattr", "delattr")
            and node.args
        ):
            targets = [ast.Attribute(value=node.args[0], attr="?", ctx=ast.Store())]
        else:
            continue
        for target in (n for t in targets for n in ast.walk(t)):
            stored = isinstance(getattr(target, "ctx", None), (ast.Store, ast.Del))  # not `x[course.i] = 1`
            if stored and isinstance(target, (ast.Attribute, ast.Subscript)) and _root(target) in names:
                return True
    return False
