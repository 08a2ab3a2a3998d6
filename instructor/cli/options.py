"""Options several commands share, spelled once."""

from __future__ import annotations

from pathlib import Path

from instructor.coursedir.directory import DEFAULT, ENV
from instructor.paths import REPO_ROOT


def add_course_dir(parser) -> None:
    """``--course-dir DIR``: the course directory."""
    parser.add_argument(
        "--course-dir",
        dest="course_dir",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"the course directory (default: ${ENV}, else {DEFAULT})",
    )


def add_db(parser) -> None:
    """``--db URL``: a gradebook on a database server."""
    parser.add_argument("--db", metavar="URL", help="gradebook database URL (default: the course directory's setting)")


def add_root(parser, what: str = "course repository") -> None:
    """``--root DIR``: the course repository to read ``solutions/`` from."""
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help=f"{what} (default: this one)")


def names(values: list[str] | None) -> list[str]:
    """Repeated and comma-separated flag values, flattened (``-a 01 -a 02,03``)."""
    return [n.strip() for v in (values or []) for n in v.split(",") if n.strip()]
