"""Report and undo edits to the grading metadata and locked cells of a submission."""

from __future__ import annotations

import copy
from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from instructor.cells import visible_source
from instructor.coursedir import releases
from instructor.coursedir.course_dir import CourseDir
from instructor.grading.preprocessors.student_version import read_student_version
from instructor.grading.submission import carried

#: nbgrader metadata fields a student cannot change through the notebook UI
FIELDS = ("grade", "solution", "locked", "points", "grade_id")


class RestoreTamperedCells(Preprocessor):
    """Compare every cell with the student version it was made from, by ``grade_id``; flag and repair.

    The student version the student fetched (:func:`instructor.coursedir.releases.origin`)
    is what an edit is measured against, so a test fixed mid-term is no
    student's edit; what is put back comes from the newest student version.

    - a cell whose ``grade_id`` the student version does not have (a fake grade
      cell) loses its grading metadata;
    - edited grading metadata, or a changed cell type, is put back;
    - an edited or deleted test or locked cell is reported here; nbgrader's
      ``OverwriteCells`` (with ``add_missing_cells``) then restores it; an
      edited one keeps the student's text and the student version's in
      ``metadata.course_edit`` (the formgrader shows them side by side).

    Runs before ``OverwriteCells``. Findings are flags of the submission in ``resources["course"]``.
    """

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        version = read_student_version(self.config, resources)
        if version is None:
            return nb, resources
        sub = carried(resources)
        flag = sub.flag
        released = _by_id(version)
        fetched = _by_id(releases.origin(nb, version, _archive(self.config, sub)))
        seen = set()
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader")
            if not meta:
                continue
            grade_id = meta.get("grade_id")
            original = released.get(grade_id)
            if original is None or grade_id in seen:
                del cell.metadata["nbgrader"]
                if meta.get("grade") or meta.get("solution") or meta.get("locked"):
                    flag(f"a cell with made-up grading metadata ({str(grade_id)[:40]!r}) was ignored")
                continue
            seen.add(grade_id)
            want = original.metadata["nbgrader"]
            theirs = fetched.get(grade_id, original)
            held = theirs.metadata["nbgrader"]
            if cell.cell_type != theirs.cell_type or any(meta.get(k) != held.get(k) for k in FIELDS):
                flag(f"the grading metadata of cell {grade_id!r} was edited (restored)")
                cell.cell_type = original.cell_type
                cell.metadata["nbgrader"] = copy.deepcopy(want)
                if cell.cell_type != "code":
                    cell.pop("outputs", None)
                    cell.pop("execution_count", None)
                else:
                    cell.setdefault("outputs", [])
                    cell.setdefault("execution_count", None)
            elif meta != want:  # the student version changed it (points, say): nbgrader reads the new one
                cell.metadata["nbgrader"] = copy.deepcopy(want)
            if want.get("locked") and visible_source(cell.source) != visible_source(theirs.source):
                kind = "test" if want.get("grade") else "locked"
                flag(f"the {kind} cell {grade_id!r} was edited (restored)")
                # kept for the reviewer: the formgrader shows it beside the student version's text
                cell.metadata["course_edit"] = {"release": theirs.source, "student": cell.source}
        for grade_id, original in released.items():
            want = original.metadata["nbgrader"]
            if grade_id not in seen and want.get("locked"):
                kind = "test" if want.get("grade") else "locked"
                flag(f"the {kind} cell {grade_id!r} was deleted (restored)")
        return nb, resources


def _by_id(nb) -> dict:
    return {
        c.metadata["nbgrader"]["grade_id"]: c
        for c in nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    }


def _archive(config, sub) -> list:
    """The releases the course directory issued for this assignment (under nbgrader's autograde too)."""
    if sub.student_version is not None:
        folder = sub.student_version.parent.parent.parent  # <dir>/release/<a>/<a>.ipynb
    else:
        from nbgrader.coursedir import CourseDirectory

        folder = Path(CourseDirectory(config=config).root)
    return releases.archived(CourseDir.places_at(folder), sub.assignment)  # the archive's place, nothing read
