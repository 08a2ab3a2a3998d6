"""The student version of the notebook being graded (nbgrader's ``release/``), for comparisons."""

from __future__ import annotations

from pathlib import Path

import nbformat

from instructor.grading.submission import carried


def read_student_version(config, resources):
    """Read ``<release>/<assignment>/<notebook>.ipynb`` of nbgrader's course directory, or None.

    The student version named by the submission in ``resources["course"]`` comes first.
    """
    path = carried(resources).student_version
    if path is None:
        try:
            from nbgrader.coursedir import CourseDirectory

            info = resources["nbgrader"]
            coursedir = CourseDirectory(config=config)
            path = (
                Path(coursedir.format_path(coursedir.release_directory, ".", info["assignment"]))
                / f"{info['notebook']}.ipynb"
            )
        except (KeyError, ValueError):
            return None
    path = Path(path)
    return nbformat.read(str(path), as_version=4) if path.is_file() else None
