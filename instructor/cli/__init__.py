"""The ``course`` command: one module per verb.

Each has ``NAME``, ``HELP``, ``EXAMPLES``, ``add_arguments(parser)`` and
``run(args) -> int``, which parses, calls one function of the package and
prints. Options several verbs share are in :mod:`instructor.cli.options`.
"""

from __future__ import annotations

import argparse
import os
import sys
import sysconfig

from instructor.cli import (
    bench,
    bundle,
    data,
    demo,
    export,
    extend,
    feedback,
    formgrader,
    generate,
    grade,
    hub,
    init,
    judge,
    lms,
    override,
    release_to_exchange,
    report,
    roster,
    similarity,
    unflag,
    verify,
)
from instructor.cli.options import UNTIL, deprecation
from instructor.coursedir import directory, owner
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.terminal import inert_output

COMMANDS = [
    demo,
    generate,
    verify,
    judge,
    bundle,
    init,
    roster,
    release_to_exchange,
    extend,
    grade,
    unflag,
    formgrader,
    override,
    export,
    feedback,
    report,
    similarity,
    data,
    bench,
    hub,
    lms,
]

#: commands renamed this term (docs/glossary.md): the old name still runs the new command, and says so
RENAMED = [generate, verify]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course",
        description="Generate, verify, grade and benchmark the sequence-models course.",
        epilog="Run `course <command> --help` for the steps and paths of each command.",
    )
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    for module in COMMANDS:
        p = sub.add_parser(
            module.NAME,
            help=module.HELP,
            description=module.HELP,
            epilog=module.EXAMPLES,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    for module in RENAMED:
        p = sub.add_parser(
            module.OLD_NAME,
            help=f"old name of `course {module.NAME}` ({UNTIL})",
            description=f"The old name of `course {module.NAME}`: {module.HELP}",
            epilog=module.EXAMPLES,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        p.set_defaults(run=_old_name(module))
    # the verbs, read from this parser (never copied): the bundle refuses any file that names one
    parser.set_defaults(verbs=tuple(sub.choices))
    return parser


def _old_name(module):
    """``module.run``, after one line on stderr that its old name is deprecated."""

    def run(args) -> int:
        print(
            deprecation(f"course {module.OLD_NAME}", f"`course {module.OLD_NAME}`", f"`course {module.NAME}`"),
            file=sys.stderr,
        )
        return module.run(args)

    return run


def _find_own_scripts() -> None:
    """Put this environment's scripts folder on PATH, for what nbgrader runs by name (``alembic``, when it
    upgrades a gradebook; a new gradebook's version is read in this process: :mod:`instructor.coursedir.gradebook`).

    Without it, ``/path/to/venv/bin/course`` run from a shell where the venv
    is not activated would not find them.
    """
    scripts = sysconfig.get_path("scripts")
    path = os.environ.get("PATH", "")
    if scripts not in path.split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join(filter(None, [scripts, path]))


def main(argv: list[str] | None = None) -> int:
    with inert_output():  # student-chosen names are printed: no terminal control gets through
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    _find_own_scripts()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except CourseError as err:
        print(f"course {args.command}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"course {args.command}: interrupted.", file=sys.stderr)
        return 130
    finally:
        _hand_back(args)


def _hand_back(args) -> None:
    """Run as root (for the sandbox), give what was written in the course directory back to its owner."""
    if not hasattr(args, "course_dir") or os.geteuid() != 0:
        return
    course_path = directory.resolve(args.course_dir or getattr(args, "course_path", None))
    if directory.is_course_dir(course_path):
        owner.hand_back(CourseDir.places_at(course_path))  # its places: nothing read as root


if __name__ == "__main__":
    sys.exit(main())
