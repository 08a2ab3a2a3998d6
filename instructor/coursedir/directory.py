"""The course directory: one nbgrader course folder, outside the repository.

Everything a term produces lives here, never in the repository::

    <dir>/nbgrader_config.py      the settings, read by `course` AND by nbgrader's own tools,
                                  and where the course's sources are (a checkout holding solutions/)
    <dir>/due.json                the due dates, data the settings read (instructor.coursedir.due)
    <dir>/roster.csv              the class list (`course roster import`)
    <dir>/source/, release/       what `course grade` / `course release-to-exchange` generate
    <dir>/submitted/<s>/<a>/      what `nbgrader collect` copies from the exchange
    <dir>/autograded/, feedback/, results/, logs/, gradebook.db

It is named in one place: ``--course-dir``, else the environment variable
``COURSE_DIR``, else ``~/seqmodels-grading``.
"""

from __future__ import annotations

import os
import pwd
from dataclasses import dataclass, field
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from instructor.coursedir import due as course_due
from instructor.coursedir import exchange as course_exchange
from instructor.errors import CourseError
from instructor.paths import COURSE_ID, REPO_ROOT

ENV = "COURSE_DIR"
DEFAULT = Path("~/seqmodels-grading")
CONFIG_NAME = "nbgrader_config.py"
#: where an earlier layout had what the settings file imports, and where it is now
_MOVED = {
    "course.nbgrader_settings": "instructor.settings",
    "course.late.PercentPerDay": "instructor.coursedir.late.PercentPerDay",
}


def resolve(given: Path | None) -> Path:
    """The course directory: the flag, else $COURSE_DIR, else ~/seqmodels-grading (absolute).

    Under ``sudo`` (which drops $COURSE_DIR, and makes ``~`` root's), the
    default is the invoking user's ``~/seqmodels-grading``, never root's; a
    course directory elsewhere is named with ``--course-dir``.
    """
    if given is not None:
        return Path(given).expanduser().resolve()
    env = os.environ.get(ENV, "").strip()
    if env:
        return Path(env).expanduser().resolve()
    return (_invoking_home() / DEFAULT.relative_to("~")).resolve()


def _invoking_home() -> Path:
    """The home of whoever typed the command: $SUDO_USER's under sudo, else ~."""
    user = os.environ.get("SUDO_USER", "").strip()
    if user and os.geteuid() == 0:
        try:
            return Path(pwd.getpwnam(user).pw_dir)
        except KeyError:
            pass
    return Path("~").expanduser()


def is_course_dir(course_path: Path) -> bool:
    return (course_path / CONFIG_NAME).is_file()


def require(course_path: Path) -> Path:
    """``course_path``, or a one-sentence error if ``course init`` never made it a course directory."""
    if not is_course_dir(course_path):
        raise CourseError(f"{course_path} is not a course directory yet: run `course init {course_path}` first.")
    return course_path


def load_config(course_path: Path) -> Config:
    """The directory's nbgrader configuration (its ``nbgrader_config.py``)."""
    path = require(course_path) / CONFIG_NAME
    if any(old in path.read_text(errors="replace") for old in _MOVED):
        raise CourseError(
            f"{path} was written by an older `course init`; run `course init {course_path}` "
            "to bring it up to date (its settings are kept)."
        )
    try:
        return PyFileConfigLoader(CONFIG_NAME, path=str(course_path)).load_config()
    except CourseError:  # due.json refused: its own sentence
        raise
    except Exception as err:  # a syntax or name error in a hand-edited file
        raise CourseError(f"{path} cannot be read ({type(err).__name__}: {err}).") from None


# --------------------------------------------------------------------------- init


@dataclass
class Settings:
    """What ``course init`` writes into the directory's nbgrader_config.py."""

    exchange: Path
    db_url: str
    late_penalty: float = 10.0  # percent of the autograded points per day started
    due: dict[str, str] = field(default_factory=dict)
    #: the course repository whose solutions/ the directory releases and grades (None: not recorded)
    root: Path | None = None


def current_settings(course_path: Path) -> Settings | None:
    """The settings a course directory holds now (None if it is not one): what `course init` starts from.

    A command reads them once, with the rest of the directory, through
    :meth:`instructor.coursedir.course_dir.CourseDir.at`.
    """
    if not is_course_dir(course_path):
        return None
    return settings_of(load_config(course_path), course_path)


def settings_of(cfg: Config, course_path: Path) -> Settings:
    """The settings in the nbgrader configuration ``cfg`` of the course directory ``course_path``."""
    return Settings(
        exchange=Path(cfg.Exchange.get("root", course_path / "exchange")),
        db_url=str(cfg.CourseDirectory.get("db_url", f"sqlite:///{course_path / 'gradebook.db'}")),
        late_penalty=float(cfg.PercentPerDay.get("percent_per_day", 0.0)),
        due=dict(cfg.DueDates.get("dates", {})),
        root=Path(cfg.CourseRepository.root) if cfg.CourseRepository.get("root") else None,
    )


CONFIG_TEMPLATE = '''"""nbgrader configuration of the seqmodels course directory (written by `course init`).

`course grade`, `export`, `feedback`, `formgrader` and nbgrader's own commands
run in this folder (`nbgrader release_assignment`, `collect`, `generate_feedback`,
`release_feedback`, the formgrader) all read this file, so they share one set of
settings. Edit the values below, or run `course init` again with new options.
"""

from pathlib import Path

from instructor.coursedir.due import read_due
from instructor.settings import configure

c = get_config()  # noqa: F821  (provided by traitlets when this file is loaded)
# the course settings: course id, hidden tests stripped from every feedback path, sandboxed autograde
configure(c, Path(__file__).resolve().parent)

# where students fetch and submit (root's folders; students write only into inbound: docs/trust.md)
c.Exchange.root = {exchange!r}
# the gradebook (SQLite here, or postgresql://user@host/db)
c.CourseDirectory.db_url = {db_url!r}
# late work: this percent of the notebook's autograded points per day (or part of a day) late
c.AssignLatePenalties.plugin_class = "instructor.coursedir.late.PercentPerDay"
c.PercentPerDay.percent_per_day = {late_penalty!r}
# due dates (UTC): data in due.json beside this file, which `course init --due` writes (on the hub the staff
# may, while this file, which root runs, stays root's); `course grade` and `course release-to-exchange` copy them
# into the gradebook
c.DueDates.dates = read_due(Path(__file__).resolve().parent)
# the course repository (a checkout holding solutions/) that `course release-to-exchange` and `course grade`
# release and grade: never inside the installed package, which every student's server can read
c.CourseRepository.root = {root!r}
'''


def _repository(root: Path) -> Path:
    """``root`` made absolute, or one sentence if it holds no ``solutions/``."""
    root = Path(root).expanduser().resolve()
    if not (root / "solutions").is_dir():
        raise CourseError(f"{root} holds no solutions/ folder: name a checkout of the course repository.")
    return root


def _update_names(course_path: Path) -> None:
    """Rewrite the module names an earlier layout wrote into the settings file (values untouched)."""
    path = course_path / CONFIG_NAME
    if path.is_file():
        text = path.read_text()
        for old, new in _MOVED.items():
            text = text.replace(old, new)
        if text != path.read_text():  # an up-to-date file is not written: on the hub it is root's
            path.write_text(text)


def init(
    course_path: Path,
    exchange: Path | None = None,
    db_url: str | None = None,
    late_penalty: float | None = None,
    due: dict[str, str] | None = None,
    root: Path | None = None,
) -> Settings:
    """Create (or update) a course directory; options not given keep their current value.

    ``root``, the course repository, defaults to the recorded one, else to
    the checkout this ``course`` runs from if it holds ``solutions/`` (an
    editable install); an installed package has none.
    """
    if course_path.exists() and not course_path.is_dir():
        raise CourseError(f"{course_path} exists and is not a folder.")
    if course_path == REPO_ROOT or REPO_ROOT in course_path.parents:
        raise CourseError(f"{course_path} is inside the course repository: student work must never land there.")
    _update_names(course_path)
    old = current_settings(course_path) or Settings(
        exchange=course_path / "exchange", db_url=f"sqlite:///{course_path / 'gradebook.db'}"
    )
    if late_penalty is not None and not 0 <= late_penalty <= 100:
        raise CourseError("--late-penalty is a percent per day, from 0 to 100.")
    settings = Settings(
        exchange=Path(exchange).expanduser().resolve() if exchange else old.exchange,
        db_url=db_url or old.db_url,
        late_penalty=old.late_penalty if late_penalty is None else float(late_penalty),
        due={**old.due, **(due or {})},
        root=_repository(root) if root else old.root or (REPO_ROOT if (REPO_ROOT / "solutions").is_dir() else None),
    )
    # the exchange first: a folder that cannot be made leaves no settings file naming it
    if not settings.exchange.exists() or os.geteuid() == 0:
        try:
            if os.geteuid() == 0:  # the course's folders, root's, only inbound open to students (.exchange)
                course_exchange.lay_out(settings.exchange, COURSE_ID)
            else:  # an exchange of one's own: nobody else writes it
                settings.exchange.mkdir(parents=True, mode=0o755)
        except OSError as err:
            raise CourseError(
                f"cannot create the exchange {settings.exchange} ({err.strerror or err}): make its parent "
                f"folder as root (sudo mkdir -p {settings.exchange.parent}), then run `course init` again as "
                "root, which lays the exchange out as the course's (root's; students write only into inbound)."
            ) from None
    config = course_path / CONFIG_NAME
    text = CONFIG_TEMPLATE.format(
        exchange=str(settings.exchange),
        db_url=settings.db_url,
        late_penalty=settings.late_penalty,
        root=str(settings.root) if settings.root else None,
    )
    try:
        course_path.mkdir(parents=True, exist_ok=True)
        # the dates first: should the settings file then be refused, an older one holding dates still wins
        course_due.write_due(course_path, settings.due)
        # written only when it changes: on the hub it is root's (root runs it), and moving a due date leaves it be
        if not config.is_file() or config.read_text() != text:
            if config.is_file() and not os.access(config, os.W_OK):
                raise CourseError(
                    f"{config} is root's (root runs it as code on the hub): run `course init` as root to change "
                    "the exchange, gradebook, late rule or repository, or once to bring an older file up to date; "
                    "due dates alone (`--due`) need no root."
                )
            config.write_text(text)
    except OSError as err:
        raise CourseError(f"cannot write the course directory {course_path} ({err.strerror or err}).") from None
    return settings
