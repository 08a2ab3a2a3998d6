"""Every place in a course directory, named once: nothing else spells a folder or file name of it.

nbgrader's own folders and the course's side files, for a course directory
``d``, a student ``s`` and an assignment ``a``::

    d/source/a/                  the instructor's version (copied from solutions/)   source(d, a)
    d/release/a/a.ipynb          the student version nbgrader generated, newest       release_notebook(d, a)
    d/releases/a/                every release issued (coursedir.releases)            archive(d, a)
    d/submitted/s/a/             what `nbgrader collect` copied from the exchange     submitted(d)
    d/autograded/s/a/a.ipynb     the executed, scored notebook                        autograded(d, s, a)
    d/feedback/s/a/              the feedback pages                                   feedback(d)
    d/results/s/a.json           the recorded Result of one submission                result(d, s, a)
    d/logs/s/a.log               what happened while grading it                       log(d, s, a)
    d/reviews/s/a.json           flags a person cleared                               reviews(d, s, a)
    d/overrides.json             every grade changed by hand                          overrides(d)
    d/arrivals.json              when each exchange folder's bytes arrived            arrivals(d)
    d/extensions.json            later due dates                                      extensions(d)
    d/grade-journals/<name>.jsonl  who wrote each grade, one file per account          journals(d)
    d/.hidden-inputs.key         the key of the hidden checks' inputs (0600)          hidden_key(d)

:class:`~instructor.coursedir.course_dir.CourseDir` names the same places
as methods (``course_dir.result(s, a)``); the functions here take the
directory's path for the side-file stores that hold a path.
"""

from __future__ import annotations

import re
from pathlib import Path

from instructor.coursedir.roster import is_student_id

SOURCE = "source"
RELEASE = "release"
RELEASES = "releases"
SUBMITTED = "submitted"
AUTOGRADED = "autograded"
FEEDBACK = "feedback"
RESULTS = "results"
LOGS = "logs"
REVIEWS = "reviews"
OVERRIDES = "overrides.json"
ARRIVALS = "arrivals.json"
EXTENSIONS = "extensions.json"
#: one journal of grade changes per account (coursedir.journal); never handed back to the owner: its files'
#: owners are their authors
JOURNALS = "grade-journals"
HIDDEN_KEY = ".hidden-inputs.key"
#: the lock file of a folder's side files (coursedir.store)
LOCK = ".course-lock"

#: what `course` writes inside a course directory (root hands them back to the owner: coursedir.owner)
GRADER_WRITES = (
    LOCK,
    ARRIVALS,
    EXTENSIONS,
    OVERRIDES,
    AUTOGRADED,
    FEEDBACK,
    LOGS,
    RESULTS,
    REVIEWS,
    RELEASE,
    RELEASES,
    SOURCE,
    "gradebook.db",
    "grades.csv",
    "roster.csv",
)


def source(d: Path, a: str) -> Path:
    """``d/source/a/``: the instructor's version nbgrader generates the release from."""
    return Path(d) / SOURCE / a


def release(d: Path, a: str) -> Path:
    """``d/release/a/``: the newest student version and its files."""
    return Path(d) / RELEASE / a


def release_notebook(d: Path, a: str) -> Path:
    """``d/release/a/a.ipynb``."""
    return release(d, a) / f"{a}.ipynb"


def archive(d: Path, a: str) -> Path:
    """``d/releases/a/``: every student version of ``a`` issued."""
    return Path(d) / RELEASES / a


def submitted(d: Path) -> Path:
    """``d/submitted/``: the default folder ``course grade`` grades."""
    return Path(d) / SUBMITTED


def feedback(d: Path) -> Path:
    """``d/feedback/``: the feedback pages, by student and assignment."""
    return Path(d) / FEEDBACK


def results(d: Path) -> Path:
    """``d/results/``: one file per recorded submission (:func:`result`)."""
    return Path(d) / RESULTS


def logs(d: Path) -> Path:
    """``d/logs/``: one file per graded submission (:func:`log`)."""
    return Path(d) / LOGS


def hidden_key(d: Path) -> Path:
    """``d/.hidden-inputs.key``: the key the seeds of the hidden checks' inputs are made with (the grader's alone)."""
    return Path(d) / HIDDEN_KEY


def autograded_root(d: Path) -> Path:
    """``d/autograded/``: the executed, scored notebooks."""
    return Path(d) / AUTOGRADED


def _bad_name(s: str, a: str) -> tuple[str, str] | None:
    """(bucket, stem) for a name that is no valid id (a bad folder found at intake); None for valid ids."""
    if is_student_id(s) and is_student_id(a):
        return None
    # several bad folders share one name: keep each
    return (s if is_student_id(s) else "_invalid"), re.sub(r"[^A-Za-z0-9_.-]", "_", f"{s}-{a}")[:80]


def result(d: Path, s: str, a: str) -> Path:
    """``d/results/s/a.json`` (a name that is no valid id gets a file of its own under ``_invalid``)."""
    bad = _bad_name(s, a)
    return results(d) / s / f"{a}.json" if bad is None else results(d) / bad[0] / f"{bad[1]}.json"


def log(d: Path, s: str, a: str) -> Path:
    """``d/logs/s/a.log`` (a name that is no valid id: as :func:`result`)."""
    bad = _bad_name(s, a)
    return logs(d) / s / f"{a}.log" if bad is None else logs(d) / bad[0] / f"{bad[1]}.log"


def autograded(d: Path, s: str, a: str) -> Path | None:
    """``d/autograded/s/a/``; None for a name that is no valid id (nothing of it is autograded)."""
    return autograded_root(d) / s / a if _bad_name(s, a) is None else None


def autograded_notebook(d: Path, s: str, a: str, notebook: str | None = None) -> Path:
    """``d/autograded/s/a/<notebook>.ipynb`` (``notebook`` defaults to ``a``)."""
    return autograded_root(d) / s / a / f"{notebook or a}.ipynb"


def reviews_root(d: Path) -> Path:
    """``d/reviews/``: one file per submission whose flags a person cleared (:func:`reviews`)."""
    return Path(d) / REVIEWS


def reviews(d: Path, s: str, a: str) -> Path:
    """``d/reviews/s/a.json``: the flags a person cleared for one submission."""
    return reviews_root(d) / s / f"{a}.json"


def overrides(d: Path) -> Path:
    """``d/overrides.json``: the overrides: grades changed by hand."""
    return Path(d) / OVERRIDES


def arrivals(d: Path) -> Path:
    """``d/arrivals.json``: when each exchange folder's bytes arrived."""
    return Path(d) / ARRIVALS


def extensions(d: Path) -> Path:
    """``d/extensions.json``: the extensions granted."""
    return Path(d) / EXTENSIONS


def journals(d: Path) -> Path:
    """``d/grade-journals/``: each account's journal of the grades it wrote (:mod:`instructor.coursedir.journal`)."""
    return Path(d) / JOURNALS
