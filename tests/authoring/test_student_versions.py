"""The blank student notebooks: they fail only where work is missing, and every graded test fails."""

from __future__ import annotations

import ast

import pytest

from instructor.authoring.trial import run_trial
from instructor.cells import read
from instructor.paths import NOTEBOOKS, SOLUTIONS, existing_assignments, notebook_path

ASSIGNMENTS = existing_assignments(SOLUTIONS)


def _assigned_names(source: str) -> set[str]:
    """Names a cell binds at top level (def, class, assignment, import)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a magic line; such cells bind nothing we track
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@pytest.mark.notebook
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_student_version_fails_only_for_missing_work(assignment):
    """Does the blank student notebook raise only NotImplementedError (and its NameError
    echoes), with every graded test cell failing?"""
    path = notebook_path(assignment, NOTEBOOKS)
    nb = read(path)
    run = run_trial(nb, cwd=path.parent)
    unbound: set[str] = set()
    for result in run.cells:
        if result.error is None:
            continue
        source = nb.cells[result.index].source
        if result.error == "NotImplementedError":
            unbound |= _assigned_names(source)
            continue
        # a later cell may only trip over a name that an unfinished cell failed to bind
        assert result.error == "NameError", f"cell {result.index} raised {result.error}: {result.evalue}"
        missing = result.evalue.split("'")[1] if "'" in result.evalue else result.evalue
        assert missing in unbound, (
            f"cell {result.index}: NameError for {missing!r}, not left unbound by unfinished work"
        )
        unbound |= _assigned_names(source)
    graded = run.graded()
    assert graded, "the notebook has no graded test cells"
    passing = [c.grade_id for c in graded if not c.failed]
    assert not passing, f"graded tests pass on the blank notebook: {passing}"
