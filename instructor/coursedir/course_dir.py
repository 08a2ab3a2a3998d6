"""The course directory as one value: resolved once where a command starts, then passed down.

A command names the directory (``--course-dir``, ``$COURSE_DIR``, the
default: :func:`instructor.coursedir.directory.resolve`) and opens it here
once. What its settings say (``nbgrader_config.json`` and ``due.json``: exchange,
gradebook, late rule, due dates, the whole nbgrader configuration) and the gradebook's URL then
travel with the path; nothing below the command reads the file again or
works the URL out again::

    course_dir = CourseDir.at(directory.resolve(args.course_dir), db=args.db)
    course_dir.path            <dir>
    course_dir.settings        what `course init` wrote: exchange, db_url, late penalty, due dates
    course_dir.gradebook_url   --db, else the settings' db_url, else sqlite:///<dir>/gradebook.db
    course_dir.exchange        nbgrader's exchange root (students fetch and submit there)
    course_dir.config          the nbgrader Config of those settings (the grading and feedback layers add
                               their chains: grading.config, reporting.feedback.chain)

It is the one door to the directory: every place in it is named here, and
nothing else spells a folder or file name of it. For a student ``s`` and an
assignment ``a``::

    <dir>/source/a/a.ipynb          the instructor's version (from solutions/)     source_notebook(a)
    <dir>/release/a/a.ipynb         the newest student version nbgrader generated  student_version(a)
    <dir>/releases/a/               the archived versions of a (.releases)         archive(a)
    <dir>/submitted/s/a/            what `nbgrader collect` copied                 submitted
    <dir>/autograded/s/a/a.ipynb    the executed, scored notebook                  autograded_notebook(s, a)
    <dir>/feedback/s/a/             the feedback pages                             feedback
    <dir>/results/s/a.json          the recorded Result of one submission          result(s, a)
    <dir>/logs/s/a.log              what happened while grading it                 log(s, a)
    <dir>/reviews/s/a.json          flags a person cleared (.reviews)              reviews(s, a)
    <dir>/overrides.json            every grade changed by hand (.overrides)       overrides
    <dir>/arrivals.json             when each exchange folder's bytes arrived      arrivals
    <dir>/extensions.json           later due dates (.extensions)                  extensions
    <dir>/grade-journals/<n>.jsonl  who wrote each grade, one file per account     journals
    <dir>/roster.csv                the class (.roster)                            roster_file
    <dir>/.hidden-inputs.key        the key of the hidden checks' inputs (0600)    hidden_key

The stores of those files (coursedir.extensions, .overrides, .reviews,
.arrivals, .journal, .releases, .roster, .hidden_seed) take a CourseDir and
find their file through it.

It is frozen and plain data (paths, strings, a Config), so a Dask worker
receives it whole with each task.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path

from traitlets.config import Config

from instructor.coursedir import directory, gradebook
from instructor.coursedir.ids import is_student_id
from instructor.errors import CourseError
from instructor.paths import COURSE_ID

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
#: the class list (coursedir.roster)
ROSTER_NAME = "roster.csv"
#: what the course's reports write by default: `course export` (CSV, Canvas), `course report`, `course similarity`
GRADES_CSV = "grades.csv"
CANVAS_CSV = "canvas.csv"
REPORTS = "reports"
SIMILARITY = "similarity"
#: the lock file of a folder's side files (coursedir.store)
LOCK = ".course-lock"

#: what `course` writes inside a course directory (root hands them back to the owner: coursedir.owner)
COURSE_WRITES = (
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
    GRADES_CSV,
    ROSTER_NAME,
)


def _bad_name(s: str, a: str) -> tuple[str, str] | None:
    """(bucket, stem) for a name that is no valid id (a bad folder found at intake); None for valid ids."""
    if is_student_id(s) and is_student_id(a):
        return None
    # several bad folders share one name: keep each
    return (s if is_student_id(s) else "_invalid"), re.sub(r"[^A-Za-z0-9_.-]", "_", f"{s}-{a}")[:80]


@dataclass(frozen=True)
class CourseDir:
    """One course directory, read once: its path, settings, gradebook URL and nbgrader configuration."""

    path: Path
    settings: directory.Settings
    gradebook_url: str
    course_id: str = COURSE_ID
    #: the directory's nbgrader configuration, from its data (empty for a directory `course init` has not made yet)
    config: Config = field(default_factory=Config, repr=False, compare=False)
    #: ``--db URL`` as given (None: the directory's own setting), kept so that :meth:`init` keeps it
    given_db: str | None = field(default=None, repr=False)

    @property
    def exchange(self) -> Path:
        """nbgrader's exchange root: students fetch from and submit to ``<exchange>/<course id>/``."""
        return self.settings.exchange

    # ------------------------------------------------------------------ every place of the directory

    @property
    def archive_root(self) -> Path:
        """``<dir>/releases/``: the archived versions, every student version of each assignment (:mod:`.releases`)."""
        return self.path / RELEASES

    @property
    def submitted(self) -> Path:
        """``<dir>/submitted/``: the default folder ``course grade`` grades."""
        return self.path / SUBMITTED

    @property
    def results(self) -> Path:
        """``<dir>/results/``: one file per recorded submission (:meth:`result`)."""
        return self.path / RESULTS

    @property
    def feedback(self) -> Path:
        """``<dir>/feedback/``: the feedback pages, by student and assignment."""
        return self.path / FEEDBACK

    @property
    def overrides(self) -> Path:
        """``<dir>/overrides.json``: the overrides: grades changed by hand."""
        return self.path / OVERRIDES

    @property
    def arrivals(self) -> Path:
        """``<dir>/arrivals.json``: when each exchange folder's bytes arrived."""
        return self.path / ARRIVALS

    @property
    def extensions(self) -> Path:
        """``<dir>/extensions.json``: the extensions granted."""
        return self.path / EXTENSIONS

    @property
    def logs(self) -> Path:
        """``<dir>/logs/``: one log per graded submission (:meth:`log`)."""
        return self.path / LOGS

    @property
    def autograded_root(self) -> Path:
        """``<dir>/autograded/``: the executed, scored notebooks (:meth:`autograded`)."""
        return self.path / AUTOGRADED

    @property
    def reviews_root(self) -> Path:
        """``<dir>/reviews/``: one file per submission whose flags a person cleared (:meth:`reviews`)."""
        return self.path / REVIEWS

    @property
    def journals(self) -> Path:
        """``<dir>/grade-journals/``: each account's journal of the grades it wrote (coursedir.journal)."""
        return self.path / JOURNALS

    @property
    def roster_file(self) -> Path:
        """``<dir>/roster.csv``: the class as `course roster import` wrote it (coursedir.roster)."""
        return self.path / ROSTER_NAME

    @property
    def grades_csv(self) -> Path:
        """``<dir>/grades.csv``: where `course export` writes by default (``canvas_csv`` with --format canvas)."""
        return self.path / GRADES_CSV

    @property
    def canvas_csv(self) -> Path:
        """``<dir>/canvas.csv``: `course export --format canvas`'s default file."""
        return self.path / CANVAS_CSV

    @property
    def similarity_root(self) -> Path:
        """``<dir>/similarity/``: `course similarity`'s pages and tables, one of each per assignment."""
        return self.path / SIMILARITY

    def report(self, assignment: str) -> Path:
        """``<dir>/reports/<a>/``: `course report`'s default folder for ``a``."""
        return self.path / REPORTS / assignment

    @property
    def hidden_key(self) -> Path:
        """``<dir>/.hidden-inputs.key``: the key the seeds of the hidden checks' inputs are made with
        (the autograder's alone: coursedir.hidden_seed)."""
        return self.path / HIDDEN_KEY

    def source(self, assignment: str) -> Path:
        """``<dir>/source/<a>/``: the instructor's version nbgrader generates the student version from."""
        return self.path / SOURCE / assignment

    def source_notebook(self, assignment: str) -> Path:
        """``<dir>/source/<a>/<a>.ipynb``: the instructor's notebook as ``course grade`` copied it last."""
        return self.source(assignment) / f"{assignment}.ipynb"

    def release(self, assignment: str) -> Path:
        """``<dir>/release/<a>/``: the newest student version and its files."""
        return self.path / RELEASE / assignment

    def student_version(self, assignment: str) -> Path:
        """``<dir>/release/<a>/<a>.ipynb``: the newest student version."""
        return self.release(assignment) / f"{assignment}.ipynb"

    def archive(self, assignment: str) -> Path:
        """``<dir>/releases/<a>/``: the archived versions of ``a`` (coursedir.releases)."""
        return self.archive_root / assignment

    def result(self, student: str, assignment: str) -> Path:
        """``<dir>/results/<s>/<a>.json``: the recorded Result (a name that is no valid id gets a file of its own
        under ``_invalid``)."""
        bad = _bad_name(student, assignment)
        return self.results / (f"{student}/{assignment}.json" if bad is None else f"{bad[0]}/{bad[1]}.json")

    def log(self, student: str, assignment: str) -> Path:
        """``<dir>/logs/<s>/<a>.log`` (a name that is no valid id: as :meth:`result`)."""
        bad = _bad_name(student, assignment)
        return self.logs / (f"{student}/{assignment}.log" if bad is None else f"{bad[0]}/{bad[1]}.log")

    def autograded(self, student: str, assignment: str) -> Path | None:
        """``<dir>/autograded/<s>/<a>/``; None for a name that is no valid id (nothing of it is autograded)."""
        return self.autograded_root / student / assignment if _bad_name(student, assignment) is None else None

    def autograded_notebook(self, student: str, assignment: str, notebook: str | None = None) -> Path:
        """``<dir>/autograded/<s>/<a>/<notebook>.ipynb`` (``notebook`` defaults to ``a``): the notebook the
        formgrader shows (the one overrides are typed over)."""
        return self.autograded_root / student / assignment / f"{notebook or assignment}.ipynb"

    def reviews(self, student: str, assignment: str) -> Path:
        """``<dir>/reviews/<s>/<a>.json``: the flags a person cleared for one submission."""
        return self.reviews_root / student / f"{assignment}.json"

    @property
    def due(self) -> dict[str, str]:
        """The class's due dates, {assignment: date text (UTC)}, as the settings give them."""
        return self.settings.due

    @property
    def exists(self) -> bool:
        """True once `course init` has written the directory's settings."""
        return directory.is_course_dir(self.path)

    def graded_gradebook(self) -> str:
        """The gradebook URL, or a one-sentence error if nothing has been graded here yet."""
        if not gradebook.exists(self.gradebook_url):
            raise CourseError(f"{self.path} has no gradebook: run `course grade` first.")
        return self.gradebook_url

    @classmethod
    def at(cls, path: Path, db: str | None = None) -> CourseDir:
        """The course directory at ``path``, its settings read once; one sentence if it is not one.

        ``db`` (``--db URL``) names a gradebook on a server: it wins over the
        settings, and is opened once here (the one check of the server).
        """
        gradebook.require_server(db)
        return cls._read(directory.require(Path(path)), db)

    @classmethod
    def planned(cls, path: Path, db: str | None = None) -> CourseDir:
        """:meth:`at`, or for a folder `course init` has not made yet the settings it would write.

        ``course grade`` makes the directory with those defaults once its
        submissions are found (:meth:`init`).
        """
        gradebook.require_server(db)
        path = Path(path)
        if directory.is_course_dir(path):
            return cls._read(path, db)
        settings = directory.Settings(exchange=path / "exchange", db_url=_sqlite(path))
        return cls(path, settings, db or settings.db_url, given_db=db)

    @classmethod
    def places_at(cls, path: Path) -> CourseDir:
        """The places of the folder at ``path``, its settings NOT read (`course init`'s defaults stand in).

        For what nbgrader starts with a path alone and must not make read the
        settings: the formgrader's pages (the server serves one directory and
        never runs its configuration again, issue 58) and the export plugin
        beside a ``results/`` that may be in no course directory. Only the
        places and the stores they name are to be used of it.
        """
        path = Path(path)
        settings = directory.Settings(exchange=path / "exchange", db_url=_sqlite(path))
        return cls(path, settings, settings.db_url)

    def init(self) -> CourseDir:
        """Write the directory's settings with `course init`'s defaults; the directory as then read."""
        directory.init(self.path)
        return self._read(self.path, self.given_db)

    def grading_config(self) -> Config:
        """A copy of the directory's nbgrader configuration, with the gradebook in use (callers add to it)."""
        cfg = copy.deepcopy(self.config)
        cfg.CourseDirectory.db_url = self.gradebook_url
        return cfg

    @classmethod
    def _read(cls, path: Path, db: str | None) -> CourseDir:
        config = directory.load_config(path)  # the one read of the settings
        settings = directory.settings_of(config, path)
        return cls(
            path=path,
            settings=settings,
            gradebook_url=db or settings.db_url or _sqlite(path),
            course_id=str(config.CourseDirectory.get("course_id", COURSE_ID)),
            config=config,
            given_db=db,
        )


def _sqlite(path: Path) -> str:
    """The default gradebook: an SQLite file inside the course directory."""
    return f"sqlite:///{path / gradebook.SQLITE_NAME}"
