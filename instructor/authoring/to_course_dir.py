"""The assignments of a course directory: generated from the solutions, recorded, released to students.

``course grade`` and ``course release-to-exchange`` both start here::

    solutions/<a>/  ->  <dir>/source/<a>/   (given cells synced with the repository; variants.json if it has variants)
                    ->  <dir>/release/<a>/  (nbgrader's student version, recorded in the gradebook)
                    ->  <dir>/releases/<a>/ (every release issued, kept: see coursedir.releases)
    due dates of <dir>/due.json            ->  the gradebook

Once submissions are recorded, nbgrader cannot add or remove graded cells of
an assignment: :func:`into_course_dir` refuses that in one sentence, and names each
test cell whose code changed (the submissions are graded with the new code).
"""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nbformat

from instructor.authoring.generate import generate_assignment
from instructor.authoring.given import synced
from instructor.authoring.variants import uses_variants, write_variants
from instructor.coursedir import directory, due, gradebook, releases
from instructor.coursedir.course_dir import RELEASE, SOURCE, CourseDir
from instructor.coursedir.tree_copy import copy_tree
from instructor.errors import CourseError, first_line
from instructor.paths import notebook_path


def into_course_dir(course_dir: CourseDir, repo_root: Path, assignments: list[str]) -> list[str]:
    """Copy the sources into ``course_dir`` and let nbgrader record the assignments.

    Applies the course directory's due dates. Returns one line per test cell
    whose code changed since submissions were recorded.

    Read, decide, write: first what the repository holds (each solution
    notebook with its given cells regenerated) and what the gradebook holds of
    each assignment; an assignment whose nbgrader cells changed after
    submissions were recorded is refused then, before anything is written;
    then each is copied into ``source/``, its release kept, generated
    (nbgrader records it) and the new release kept; the due dates applied;
    last the gradebook is read again, for the test cells whose code changed.
    """
    solutions = repo_root / "solutions"
    notebooks = {name: synced(notebook_path(name, solutions), solutions) for name in assignments}
    folder = directory.require(course_dir.path)
    db_url = course_dir.gradebook_url
    # what the gradebook holds of each before anything changes (nbgrader refuses other graded cells)
    before = {name: gradebook.recorded_cells(db_url, name) for name in assignments}
    for name in assignments:
        if refused := gradebook.refused_cells(name, before[name], notebooks[name][0]):
            raise CourseError(refused)
    for name, (nb, stale) in notebooks.items():
        target = course_dir.source(name)
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(solutions / name, target, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        if stale:  # given cells refer to earlier assignments: the copy carries the repository's current code
            nbformat.write(nb, str(notebook_path(name, target.parent)))
        if uses_variants(nb):  # each student's own parameters, released beside the notebook
            write_variants(course_dir, name, target)
    for name in assignments:
        releases.keep(course_dir, name)  # the release students may hold, before nbgrader replaces it
        generate_assignment(folder, name, source=SOURCE, release=RELEASE, database=True, db_url=db_url)
        releases.keep(course_dir, name)
    due.apply_due_dates(course_dir.due, db_url, assignments)
    return [
        line
        for name in assignments
        for line in gradebook.changed_tests(name, before[name], gradebook.recorded_cells(db_url, name))
    ]


#: the largest file of a student version released (the course's data files are well under it)
RELEASED_FILE_LIMIT = 100 * 2**20


def release_to_exchange(
    course_dir: CourseDir, repo_root: Path, assignments: list[str], force: bool = False, log=print
) -> Path:
    """:func:`into_course_dir`, then ``nbgrader release_assignment``, one assignment at a time; returns the exchange.

    Each assignment is released whole or not at all: if generating or
    releasing it fails, what this run wrote for it (``source/<a>``,
    ``release/<a>``, the archived release, a new gradebook entry) is put back
    as it was, and the error names nbgrader's cause. Assignments released
    before it stay released.
    """
    folder, exchange = course_dir.path, course_dir.exchange
    for name in assignments:
        with _all_or_nothing(course_dir, name):
            for change in into_course_dir(course_dir, repo_root, [name]):
                log(change)
            command = [sys.executable, "-m", "nbgrader", "release_assignment", name, f"--CourseDirectory.root={folder}"]
            # run in an empty folder, the course directory named: nbgrader puts its working folder first on
            # sys.path, and on the hub the staff write the course directory while root releases (issue 58); what
            # it copies into the exchange comes from a copy of release/<a> of this run's own (coursedir.tree_copy)
            with tempfile.TemporaryDirectory(prefix="course-release-") as empty:
                own = Path(empty) / "release"
                (own / name).mkdir(parents=True)
                for line in copy_tree(course_dir.release(name), own / name, RELEASED_FILE_LIMIT):
                    log(f"  {line}")
                command.append(f"--CourseDirectory.release_directory={own}")
                done = subprocess.run(
                    command + (["--force"] if force else []), cwd=empty, capture_output=True, text=True
                )
            if done.returncode != 0:
                cause = nbgrader_cause(done)
                raise CourseError(f"nbgrader could not release {name} ({cause}); nothing of it was kept.")
        log(f"released {name} to {exchange}")
    return exchange


#: nbgrader's log lines that say what went wrong: ``[ReleaseAssignmentApp | CRITICAL] <cause>``
_LOGGED = re.compile(r"^\[\w+ \| (?:CRITICAL|ERROR)\] (?P<text>.+)$")
#: the last line of a Python traceback: ``FileExistsError: [Errno 17] ...``
_RAISED = re.compile(r"^(?:\w+\.)*\w+(?:Error|Exception): .+$")


def nbgrader_cause(done: subprocess.CompletedProcess) -> str:
    """The cause an nbgrader command that failed gives, in one line.

    nbgrader logs the cause as CRITICAL, then "nbgrader <command> failed" as
    ERROR, which says nothing: the cause is the last logged line that is not
    that one, else the last line of a traceback, else the exit status.
    """
    lines = [ln.strip() for ln in (done.stderr + "\n" + done.stdout).splitlines() if ln.strip()]
    logged = [m["text"] for ln in lines if (m := _LOGGED.match(ln)) and not m["text"].startswith("nbgrader ")]
    raised = [ln for ln in lines if _RAISED.match(ln)]
    for found in (logged, raised):
        if found:
            return first_line(found[-1])
    return f"exit status {done.returncode}"


@contextmanager
def _all_or_nothing(course_dir: CourseDir, name: str) -> Iterator[None]:
    """Put back what the block wrote for assignment ``name`` if it raises: its folders, archive and gradebook entry."""
    folder = course_dir.path
    parts = [course_dir.source(name), course_dir.release(name)]
    archive = course_dir.archive(name)
    made = [p for p in (parts[0].parent, parts[1].parent, course_dir.archive_root, archive) if not p.exists()]
    archived = set(archive.glob("*")) if archive.is_dir() else set()
    recorded = gradebook.has_assignment(course_dir.gradebook_url, name)
    with tempfile.TemporaryDirectory(prefix=f".release-{name}-", dir=folder) as kept:
        for i, part in enumerate(parts):
            if part.exists():
                shutil.copytree(part, Path(kept) / str(i), symlinks=True)
        try:
            yield
        except BaseException:
            for i, part in enumerate(parts):
                shutil.rmtree(part, ignore_errors=True)
                if (Path(kept) / str(i)).exists():
                    shutil.copytree(Path(kept) / str(i), part, symlinks=True)
            for new in set(archive.glob("*")) - archived if archive.is_dir() else ():
                new.unlink()
            if not recorded:
                gradebook.forget_assignment(course_dir.gradebook_url, name)
            for empty in reversed(made):  # the folders this run made, innermost first, if nothing else is in them
                with contextlib.suppress(OSError):
                    empty.rmdir()
            raise
