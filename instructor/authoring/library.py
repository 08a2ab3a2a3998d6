"""A solution notebook's ``library`` cells, as Python source or as a module.

``library`` cells hold the definitions later notebooks and the benchmark
reuse (imports, the tasks' functions and classes); no training, plotting or
magics. The benchmark and the tests use the reference solutions this way, so
the notebook is the only copy of that code.
"""

from __future__ import annotations

import types
from pathlib import Path

from instructor.cells import read, strip_markers, tags
from instructor.paths import SOLUTIONS, notebook_path


def library_source(assignment: str, solutions: Path = SOLUTIONS) -> str:
    """All ``library`` cells of a solution notebook as one Python source."""
    nb = read(notebook_path(assignment, solutions))
    chunks = [strip_markers(cell.source) for cell in nb.cells if cell.cell_type == "code" and "library" in tags(cell)]
    return "\n\n".join(chunks) + "\n"


def load_library(assignment: str, solutions: Path = SOLUTIONS) -> types.ModuleType:
    """Execute a solution notebook's library cells into a fresh module."""
    module = types.ModuleType(f"course_solutions_{assignment}")
    module.__file__ = str(notebook_path(assignment, solutions))
    code = compile(library_source(assignment, solutions), module.__file__, "exec")
    exec(code, module.__dict__)
    return module
