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
    course_dir.releases        <dir>/releases/: every student version issued
    course_dir.result(s, a)    <dir>/results/<s>/<a>.json, and every other place (coursedir.places)
    course_dir.config          the nbgrader Config of those settings (the grading and feedback layers add
                               their chains: grading.config, reporting.feedback.chain)

It is frozen and plain data (paths, strings, a Config), so a Dask worker
receives it whole with each task.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

from traitlets.config import Config

from instructor.coursedir import directory, gradebook, places
from instructor.errors import CourseError
from instructor.paths import COURSE_ID


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

    @property
    def releases(self) -> Path:
        """``<dir>/releases/``: every student version of each assignment issued (:mod:`.releases`)."""
        return self.path / places.RELEASES

    # every place of the directory, named in coursedir.places
    @property
    def submitted(self) -> Path:
        """``<dir>/submitted/``: the default folder ``course grade`` grades."""
        return places.submitted(self.path)

    @property
    def results(self) -> Path:
        """``<dir>/results/``: one file per recorded submission."""
        return places.results(self.path)

    @property
    def feedback(self) -> Path:
        """``<dir>/feedback/``: the feedback pages."""
        return places.feedback(self.path)

    @property
    def overrides(self) -> Path:
        """``<dir>/overrides.json``: the overrides: grades changed by hand."""
        return places.overrides(self.path)

    @property
    def arrivals(self) -> Path:
        """``<dir>/arrivals.json``: when each exchange folder's bytes arrived."""
        return places.arrivals(self.path)

    @property
    def extensions(self) -> Path:
        """``<dir>/extensions.json``: the extensions granted."""
        return places.extensions(self.path)

    @property
    def hidden_key(self) -> Path:
        """``<dir>/.hidden-inputs.key``: the key of the hidden checks' inputs (instructor.coursedir.hidden_seed)."""
        return places.hidden_key(self.path)

    def source(self, assignment: str) -> Path:
        """``<dir>/source/<a>/``."""
        return places.source(self.path, assignment)

    def release(self, assignment: str) -> Path:
        """``<dir>/release/<a>/``."""
        return places.release(self.path, assignment)

    def release_notebook(self, assignment: str) -> Path:
        """``<dir>/release/<a>/<a>.ipynb``: the newest student version."""
        return places.release_notebook(self.path, assignment)

    def result(self, student: str, assignment: str) -> Path:
        """``<dir>/results/<s>/<a>.json``: the recorded Result."""
        return places.result(self.path, student, assignment)

    def log(self, student: str, assignment: str) -> Path:
        """``<dir>/logs/<s>/<a>.log``."""
        return places.log(self.path, student, assignment)

    def autograded(self, student: str, assignment: str) -> Path | None:
        """``<dir>/autograded/<s>/<a>/`` (None for a name that is no valid id)."""
        return places.autograded(self.path, student, assignment)

    def reviews(self, student: str, assignment: str) -> Path:
        """``<dir>/reviews/<s>/<a>.json``: the flags a person cleared."""
        return places.reviews(self.path, student, assignment)

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
        gradebook.check_server(db)
        return cls._read(directory.require(Path(path)), db)

    @classmethod
    def planned(cls, path: Path, db: str | None = None) -> CourseDir:
        """:meth:`at`, or for a folder `course init` has not made yet the settings it would write.

        ``course grade`` makes the directory with those defaults once its
        submissions are found (:meth:`init`).
        """
        gradebook.check_server(db)
        path = Path(path)
        if directory.is_course_dir(path):
            return cls._read(path, db)
        settings = directory.Settings(exchange=path / "exchange", db_url=_sqlite(path))
        return cls(path, settings, db or settings.db_url, given_db=db)

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
