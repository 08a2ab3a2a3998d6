"""Python source read into a syntax tree by one thread of the process at a time.

CPython 3.11 before 3.11.8 keeps ``ast.parse``'s recursion count in state that
every thread shares, so two threads parsing at once can raise ``SystemError:
AST constructor recursion depth mismatch`` on valid source (CPython issue
gh-106905; the fix, per-parser state, came in 3.11.8). A grader process
parses release and student cells from several threads (a Dask worker's
threads, a thread pool of grading tasks), so every parse of ``instructor``
goes through :func:`parse`, which holds one lock; ``tests/grading/test_checks.py``
finds any ``ast.parse`` left elsewhere.
"""

from __future__ import annotations

import ast
import threading

_ONE_AT_A_TIME = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)`` while no other thread of this process is in :func:`parse`.

    Raises what ``ast.parse`` raises: SyntaxError, or ValueError for a null byte.
    """
    with _ONE_AT_A_TIME:
        return ast.parse(source, filename)
