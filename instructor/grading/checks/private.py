"""The trusted libraries a test cell's kernel code uses, bound under names of its own.

The kernel code of a test cell (:meth:`~instructor.grading.checks.split.Plan.kernel_code`)
reads ``np``, ``mg`` and the other names the notebook's set-up cells import.
Read as the notebook's globals, they are the student's to rebind: an answer
cell that sets ``mg = <a proxy whose logsoftmax returns zeros>`` changes what
a probe computes outside the student's own code. So the kernel code starts
with one line that imports each trusted module again under a private name
(``import mygrad as _course_3f9a_mg``: an ``import`` statement asks the
interpreter's own import machinery, not a global), and every read of an
imported name in the probes is rewritten to it, in place, so each line keeps
its number. The suffix is drawn once per grading process.

What stays the student's: the module objects themselves (``mg.logsoftmax = f``)
and the import system; the static scan of student code flags both
(:mod:`instructor.grading.preprocessors.flag_test_machinery`).
"""

from __future__ import annotations

import ast
import functools
import secrets

from instructor.grading.syntax import parse

#: modules the autograder imports itself: a name bound by importing one of them is the autograder's, not the kernel's
TRUSTED_MODULES = ("numpy", "mygrad", "mynn", "course", "math", "itertools", "functools", "collections")
#: the start of the line that binds, in a split cell's kernel code, the function the kernel calls in place of a
#: judged statement (course.values.send) under a private name (:mod:`.private`): in every split cell
SEND_IMPORT = "from course.values import send as "


#: the prefix of every private name; the suffix is this process's own
PREFIX = f"_course_{secrets.token_hex(4)}_"
#: the private name of the function that sends a check's values (course.values.send)
SEND_NAME = PREFIX + "send"


def private_name(name: str) -> str:
    return PREFIX + name


def imports_line(setup: tuple[str, ...] | list[str]) -> tuple[str, dict[str, str]]:
    """One line binding the send function and every trusted import of ``setup`` under private names,
    and the map (notebook name -> private name) of what it binds."""
    line, names = _imports_line(tuple(setup))
    return line, dict(names)


# Cached, as :func:`rewrite` is: each test cell of each submission asks again about the student version's same set-up
# cells and statements, and each answer is a pure function of its text (one parse per set-up cell per test cell).
@functools.lru_cache(maxsize=256)
def _imports_line(setup: tuple[str, ...]) -> tuple[str, tuple[tuple[str, str], ...]]:
    statements, names = [SEND_IMPORT + SEND_NAME], {}
    for source in setup:
        try:
            tree = parse(source)
        except SyntaxError:  # a magic or a shell line: the autograder binds nothing from it either
            continue
        for node in tree.body:
            if isinstance(node, ast.Import) and all(a.name.split(".")[0] in TRUSTED_MODULES for a in node.names):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    private = private_name(bound)
                    if alias.asname or "." not in alias.name:
                        statements.append(f"import {alias.name} as {private}")
                    else:  # `import a.b` binds a (with a.b imported)
                        statements += [f"import {alias.name} as {private}", f"import {bound} as {private}"]
                    names[bound] = private
            elif (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and node.module
                and node.module.split(".")[0] in TRUSTED_MODULES
                and all(a.name != "*" for a in node.names)
            ):
                for alias in node.names:
                    bound = alias.asname or alias.name
                    statements.append(f"from {node.module} import {alias.name} as {private_name(bound)}")
                    names[bound] = private_name(bound)
    return "; ".join(statements), tuple(names.items())


def rewrite(source: str, names: dict[str, str]) -> str:
    """``source`` (one top-level statement) with every read of a name of ``names`` replaced by its private name.

    A name the statement binds itself anywhere (an argument, a target, an
    import) is left alone in it. Lines keep their number; only the columns move.
    """
    return _rewrite(source, tuple(sorted(names.items())))


@functools.lru_cache(maxsize=4096)
def _rewrite(source: str, pairs: tuple[tuple[str, str], ...]) -> str:
    names = dict(pairs)
    tree = parse(source)
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            own.add(node.id)
        elif isinstance(node, ast.arg):
            own.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            own |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
    lines = source.split("\n")
    spots = sorted(
        (
            (n.lineno, n.col_offset, n.end_col_offset, n.id)
            for n in ast.walk(tree)
            if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)
            and n.id in names
            and n.id not in own
            and n.lineno == n.end_lineno
        ),
        reverse=True,
    )
    for lineno, start, end, name in spots:
        raw = lines[lineno - 1].encode()  # offsets count UTF-8 bytes
        if raw[start:end].decode(errors="replace") == name:  # (a position inside an f-string can be off: left alone)
            lines[lineno - 1] = (raw[:start] + names[name].encode() + raw[end:]).decode()
    return "\n".join(lines)
