"""The course's figures, carried inside the feedback page as data.

A course cell shows a figure as ``![what it shows](figures/<file>.svg)``. The
page's Content-Security-Policy admits images only as ``data:`` (``img-src
data:``), and the page is read away from its folder, so each such reference
becomes ``data:image/svg+xml;base64,...`` of the course's own file: the
assignment's source folder first (``source/<a>/figures/`` of the course
directory, the instructor's copy), then its release. A file the student handed
in is never read, and a student's cell is never touched (it was made inert
before). An SVG shown through ``<img>`` runs no script, whatever it holds.

The formgrader's submission view runs it too (``HTMLExporter.preprocessors``,
:func:`instructor.reporting.feedback.template.use_course_templates`): the course's
grading keeps only the notebook in ``autograded/``, so a relative ``figures/x.svg``
would not load there either.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from instructor.authoring.figures import FIGURE_IMAGE


def course_folders(config, resources) -> list[Path]:
    """The course's own copies of the assignment's folder: source, then release."""
    from nbgrader.coursedir import CourseDirectory

    try:
        # nbgrader's converters (generate_feedback) fill resources["nbgrader"]; the formgrader's
        # submission view passes "assignment_id"
        assignment = (resources.get("nbgrader") or {}).get("assignment") or resources["assignment_id"]
        coursedir = CourseDirectory(config=config)
        return [
            Path(coursedir.format_path(folder, ".", assignment))
            for folder in (coursedir.source_directory, coursedir.release_directory)
        ]
    except (KeyError, TypeError, ValueError):
        return []


def inline(source: str, folders: list[Path]) -> str:
    """``source`` with each figure reference replaced by its file's bytes as a data URI (when found)."""

    def one(m: re.Match) -> str:
        for folder in folders:
            path = folder / m.group(2)
            if path.is_file():
                data = base64.b64encode(path.read_bytes()).decode("ascii")
                return f"{m.group(1)}data:image/svg+xml;base64,{data}{m.group(3)}"
        return m.group(0)

    return FIGURE_IMAGE.sub(one, source)


class InlineFigures(Preprocessor):
    """Put each figure of a course cell into the page (see the module doc)."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        folders = course_folders(self.config, resources)
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if cell.cell_type == "markdown" and meta.get("locked") and not meta.get("solution"):
                cell.source = inline(cell.source, folders)
        return nb, resources
