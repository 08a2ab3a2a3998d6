"""Grade a notebook that lost its nbgrader metadata by moving its answers into the student version."""

from __future__ import annotations

import ast
import copy

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from instructor.grading.preprocessors.student_version import read_student_version
from instructor.grading.submission import NotGraded, carried
from instructor.grading.syntax import parse


def defined_names(source: str) -> set[str]:
    """Functions and classes a code cell defines at top level (empty if it does not parse)."""
    try:
        tree = parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


class MatchStudentVersion(Preprocessor):
    """If no cell carries nbgrader metadata, rebuild the notebook from the student version.

    An honest student who pasted their code into a fresh notebook loses every
    ``grade_id``; nbgrader would then grade nothing and score 0. Each code
    answer cell of the student version is matched to the last student cell that
    defines the same functions and classes; the student version with those
    answers filled in is graded. Nothing matched raises :class:`NotGraded`.
    """

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        if any(c.get("metadata", {}).get("nbgrader") for c in nb.cells):
            return nb, resources
        version = read_student_version(self.config, resources)
        if version is None:
            raise NotGraded("the notebook has no nbgrader metadata and there is no release to match it to")
        student = [c for c in nb.cells if c.cell_type == "code"]
        answers = [c for c in version.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")]
        rebuilt, matched = copy.deepcopy(version), 0
        by_id = {
            c.metadata["nbgrader"]["grade_id"]: c
            for c in rebuilt.cells
            if c.metadata.get("nbgrader", {}).get("grade_id")
        }
        for answer in answers:
            names = defined_names(answer.source)
            hits = [c for c in student if names and names <= defined_names(c.source)]
            if hits:
                by_id[answer.metadata["nbgrader"]["grade_id"]].source = hits[-1].source
                matched += 1
        if not matched:
            raise NotGraded(
                "the notebook has no nbgrader metadata and none of its cells defines what the release asks for"
            )
        carried(resources).note(
            f"no nbgrader metadata: {matched} of {len(answers)} answers matched to the release by name"
        )
        return rebuilt, resources
