"""Options several commands share, spelled once."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instructor.coursedir.directory import DEFAULT, ENV
from instructor.errors import CourseError
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


def add_root(parser, what: str = "course repository", recorded: bool = False) -> None:
    """``--root DIR``: the course repository to read ``solutions/`` from (resolved by :func:`repository`)."""
    default = "the one `course init --root` recorded, else this checkout" if recorded else "this checkout"
    parser.add_argument("--root", type=Path, default=None, help=f"{what} (default: {default})")


def repository(passed: Path | None, recorded: Path | None = None) -> Path:
    """The course repository: ``--root``, else the course directory's record, else the checkout ``course`` runs
    from; one sentence if there is none, or it holds no ``solutions/`` (an installed package carries none).
    """
    if passed is None and recorded is None:
        if (REPO_ROOT / "solutions").is_dir():
            return REPO_ROOT
        raise CourseError(
            "this `course` is an installed package, which carries no solutions: name a checkout of the course "
            "repository once with `course init --root DIR` (or pass --root DIR)."
        )
    root = Path(passed if passed is not None else recorded).expanduser().resolve()  # type: ignore[arg-type]
    if not (root / "solutions").is_dir():
        how = "--root" if passed is not None else "the course directory's record (`course init --root DIR` changes it)"
        raise CourseError(f"{root} holds no solutions/ folder ({how}): name a checkout of the course repository.")
    return root


def names(values: list[str] | None) -> list[str]:
    """Repeated and comma-separated flag values, flattened (``-a 01 -a 02,03``)."""
    return [n.strip() for v in (values or []) for n in v.split(",") if n.strip()]


#: how long an old spelling keeps working (docs/glossary.md: renamed options and commands)
UNTIL = "the old spelling goes after this term"


def deprecation(prog: str, old: str, new: str) -> str:
    """The one line an old spelling prints on stderr, e.g. for ``course similarity --min-tokens``."""
    return f"{prog}: {old} is deprecated, use {new} ({UNTIL})."


class _OldSpelling(argparse.Action):
    """An option's old name: stores into the new option's ``dest`` and says, on stderr, to use the new name."""

    def __init__(self, option_strings, dest, new: str, **kwargs):
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(deprecation(parser.prog, str(option_string), self.new), file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_old_spelling(parser, old: str, new: str, dest: str, **kwargs) -> None:
    """Keep ``old`` working for one term as a hidden alias of the option ``new`` (same ``dest``, type, metavar)."""
    parser.add_argument(
        old, dest=dest, action=_OldSpelling, new=new, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kwargs
    )
