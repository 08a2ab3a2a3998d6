"""Generate student notebooks from solution notebooks with nbgrader.

``solutions/<a>/<a>.ipynb`` → ``notebooks/<a>/<a>.ipynb`` (plus the other files
of the assignment folder). Before nbgrader runs, each assignment's given cells
are regenerated, so a student version always carries the current reference
code of earlier assignments; its figures are drawn into ``solutions/<a>/figures/``
(:mod:`instructor.authoring.figures`), so nbgrader copies them beside the
student notebook; and its text form ``solutions/<a>.py`` is written
(:mod:`instructor.authoring.text_form`).
"""

from __future__ import annotations

from pathlib import Path

from nbgrader.apps.api import capture_log
from nbgrader.converters import GenerateAssignment
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config

from instructor.authoring.figures import write_figures
from instructor.authoring.given import sync_given
from instructor.authoring.text_form import write_text_form
from instructor.coursedir.nbgrader_settings import configure_course
from instructor.errors import CourseError
from instructor.paths import existing_assignments, notebook_path


def resolve_assignments(solutions: Path, requested=None) -> list[str]:
    """The requested assignments (all by default), checked to exist."""
    if not solutions.is_dir():
        raise CourseError(f"There is no solutions folder at {solutions}.")
    known = existing_assignments(solutions)
    if not requested:
        return known
    for name in requested:
        if name not in known:
            raise CourseError(f"There is no assignment {name!r} in {solutions} (known: {', '.join(known) or 'none'}).")
    return [a for a in known if a in requested]


def generate_assignment(
    root: Path, assignment: str, source: str, release: str, database: bool = False, db_url: str | None = None
) -> None:
    """Run nbgrader's generate_assignment for one assignment, quietly (``db_url``: the gradebook to record it in;
    ``source``, ``release``: nbgrader's folders, named as nbgrader names them)."""
    cfg = configure_course(Config(), root, source=source, release=release)
    if db_url:
        cfg.CourseDirectory.db_url = db_url
    if not database:  # what nbgrader's --no-db flag sets
        cfg.GenerateAssignment.no_database = True
        cfg.SaveCells.enabled = False
    coursedir = CourseDirectory(config=cfg)
    coursedir.assignment_id = assignment
    app = GenerateAssignment(coursedir=coursedir, config=cfg)
    app.force = True
    app.create_assignment = True
    result = capture_log(app)
    if not result["success"]:
        detail = _last_error_line(result.get("log", "") + "\n" + result.get("error", ""))
        raise CourseError(f"nbgrader could not generate {assignment}: {detail}")


def _last_error_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for line in reversed(lines):
        if "Error" in line or "error" in line or "Exception" in line:
            return line
    return lines[-1] if lines else "unknown error"


def generate(
    root: Path, assignments=None, sync: bool = True, figures: bool = True, text: bool = True
) -> list[tuple[str, list[str]]]:
    """Generate the student versions ``notebooks/`` from ``solutions/`` under a course repo ``root``.

    ``figures``: draw each assignment's figures into ``solutions/<a>/figures/`` first
    (``course verify`` generates without, so the committed files are what it generates from);
    ``text``: write each text form ``solutions/<a>.py``.
    Returns, for each assignment, the given cells that were refreshed.
    """
    solutions = root / "solutions"
    names = resolve_assignments(solutions, assignments)
    refreshed = []
    for name in names:
        path = notebook_path(name, solutions)
        if not path.is_file():
            raise CourseError(f"{path} is missing: each assignment folder holds <assignment>.ipynb.")
        try:
            stale = sync_given(path, solutions) if sync else []
        except (KeyError, ValueError, FileNotFoundError) as err:
            raise CourseError(f"Cannot regenerate the given cells of {name}: {err}.") from None
        refreshed.append((name, stale))
        if figures:
            write_figures(solutions, name)
        if text:
            write_text_form(solutions, name)
    for name in names:
        generate_assignment(root, name, source="solutions", release="notebooks")
    return refreshed
