"""Is the student package apart from the grader, as the notebooks and the sandbox need it?"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from instructor.paths import REPO_ROOT

STUDENT = REPO_ROOT / "course"
#: what the notebooks import from the student package
MODULES = ["course", "course.runtime", "course.figures", "course.cipher_data"]
#: packages of the instructor's side: none may load when a notebook imports its helpers
GRADER_SIDE = ("instructor", "course_data", "nbgrader", "dask", "distributed", "psycopg2", "sqlalchemy")

# Imports every student module in a fresh interpreter and prints what got loaded.
# With BLOCK set, importing any grader-side package fails outright, as it does in the sandbox.
PROBE = """
import json, sys
BLOCK = {block!r}
if BLOCK:
    for name in BLOCK:
        sys.modules[name] = None  # `import name` now raises ImportError
import importlib
for module in {modules!r}:
    importlib.import_module(module)
loaded = sorted({{m.split('.')[0] for m, v in sys.modules.items() if v is not None}})
print(json.dumps(loaded))
"""


def _probe(block: tuple[str, ...] = ()) -> list[str]:
    code = PROBE.format(block=list(block), modules=MODULES)
    # -I: no user site, no PYTHON* variables, the working folder not on sys.path
    done = subprocess.run(
        [sys.executable, "-I", "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
        env={"PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg", "HOME": "/tmp"},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_student_package_loads_nothing_of_the_grader():
    """Does importing every module the notebooks use, in a clean interpreter, load no grader-side package?"""
    loaded = _probe()
    assert "course" in loaded
    assert not set(GRADER_SIDE) & set(loaded), sorted(set(GRADER_SIDE) & set(loaded))


def test_student_package_imports_with_the_grader_unimportable():
    """Do the student modules import when every grader-side package is made unimportable?"""
    assert "course" in _probe(block=GRADER_SIDE)


def test_no_student_module_names_the_grader():
    """Does no file of course/ import a grader-side package, even inside a function?"""
    offenders = []
    for path in sorted(STUDENT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in GRADER_SIDE]
    assert offenders == []
