"""The course directory: one nbgrader course folder, outside the repository.

Everything a term produces lives here, never in the repository::

    <dir>/nbgrader_config.json    the settings, data: exchange, gradebook, late rule, the course repository (a
                                  checkout holding solutions/), any other nbgrader setting; `course` reads
                                  them without running anything (:func:`load_config`), nbgrader natively
    <dir>/nbgrader_config.py      one constant line for nbgrader's own tools: the course's chains
                                  (instructor.settings.configure_course_dir), the data above applied
    <dir>/due.json                the due dates, data too (instructor.coursedir.due)
    <dir>/roster.csv              the class list (`course roster import`)
    <dir>/source/, release/       what `course grade` / `course release-to-exchange` generate
    <dir>/submitted/<s>/<a>/      what `nbgrader collect` copies from the exchange
    <dir>/autograded/, feedback/, results/, logs/, gradebook.db

It is named in one place: ``--course-dir``, else the environment variable
``COURSE_DIR``, else ``~/seqmodels-grading``.
"""

from __future__ import annotations

import json
import os
import pwd
from dataclasses import dataclass, field
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from instructor.coursedir import atomic
from instructor.coursedir import due as course_due
from instructor.coursedir import exchange as course_exchange
from instructor.coursedir.data_file import NotData, read_data
from instructor.coursedir.nbgrader_settings import configure_course
from instructor.errors import CourseError
from instructor.paths import COURSE_ID, REPO_ROOT

ENV = "COURSE_DIR"
DEFAULT = Path("~/seqmodels-grading")
CONFIG_NAME = "nbgrader_config.py"
#: the settings, as data (traitlets' JSON config: nbgrader reads it beside CONFIG_NAME, with priority)
SETTINGS_NAME = "nbgrader_config.json"
SETTINGS_LIMIT = 64 * 1024
#: the late rule every course directory uses (its percent is a setting)
LATE_RULE = "instructor.coursedir.late.PercentPerDay"
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
    return (course_path / SETTINGS_NAME).is_file() or (course_path / CONFIG_NAME).is_file()


def require(course_path: Path) -> Path:
    """``course_path``, or a one-sentence error if ``course init`` never made it a course directory."""
    if not is_course_dir(course_path):
        raise CourseError(f"{course_path} is not a course directory yet: run `course init {course_path}` first.")
    return course_path


def read_settings(course_path: Path) -> dict:
    """The settings data of ``<course_path>/nbgrader_config.json`` (traitlets' JSON config: section -> name ->
    value), checked on the open file (:mod:`instructor.coursedir.data_file`); nothing is run."""
    path = require(course_path) / SETTINGS_NAME
    try:
        raw = read_data(path, SETTINGS_LIMIT)
    except NotData as why:
        raise CourseError(
            f"{path} is not a file the course reads ({why}): run `course init {course_path}` to write it again."
        ) from None
    if raw is None:
        raise CourseError(
            f"{course_path / CONFIG_NAME} was written by an older `course init`, which kept the settings in it as "
            f"Python; run `course init {course_path}` to bring it up to date (its settings are kept)."
        )
    try:
        data = json.loads(raw)
    except ValueError as err:
        raise CourseError(f"{path} is not JSON ({err}): run `course init {course_path}` to write it again.") from None
    if not isinstance(data, dict) or not all(
        isinstance(section, str) and isinstance(values, dict) for section, values in data.items()
    ):
        raise CourseError(
            f'{path} must map nbgrader\'s sections to their settings ({{"Exchange": {{"root": ...}}, ...}}): '
            f"run `course init {course_path}` to write it again."
        )
    return data


def load_config(course_path: Path) -> Config:
    """The directory's nbgrader configuration, from data: the course's settings that name no chain, the
    directory's own (:func:`read_settings`), the late rule and the due dates. Nothing of the directory is run;
    the grading and feedback layers add their chains to it."""
    data = read_settings(course_path)
    c = configure_course(Config(), course_path)
    c.merge(Config(data))
    c.AssignLatePenalties.plugin_class = LATE_RULE
    c.DueDates.dates = course_due.read_due(course_path)
    return c


# --------------------------------------------------------------------------- init


@dataclass
class Settings:
    """What ``course init`` writes into the directory's nbgrader_config.json (and due.json)."""

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


def _legacy_settings(course_path: Path) -> Settings | None:
    """The settings an older `course init` kept as Python in nbgrader_config.py (None: no such file), read by
    running it, as that layout did, to bring the directory up to date once."""
    path = course_path / CONFIG_NAME
    if (course_path / SETTINGS_NAME).is_file() or not path.is_file() or path.read_text() == CONFIG_TEXT:
        return None
    text = path.read_text()
    for old, new in _MOVED.items():  # module names an even older layout wrote
        text = text.replace(old, new)
    if text != path.read_text():
        path.write_text(text)
    try:
        return settings_of(PyFileConfigLoader(CONFIG_NAME, path=str(course_path)).load_config(), course_path)
    except CourseError:  # due.json refused: its own sentence
        raise
    except Exception as err:  # a syntax or name error in a hand-edited file
        raise CourseError(f"{path} cannot be read ({type(err).__name__}: {err}).") from None


def settings_of(cfg: Config, course_path: Path) -> Settings:
    """The settings in the nbgrader configuration ``cfg`` of the course directory ``course_path``."""
    return Settings(
        exchange=Path(cfg.Exchange.get("root", course_path / "exchange")),
        db_url=str(cfg.CourseDirectory.get("db_url", f"sqlite:///{course_path / 'gradebook.db'}")),
        late_penalty=float(cfg.PercentPerDay.get("percent_per_day", 0.0)),
        due=dict(cfg.DueDates.get("dates", {})),
        root=Path(cfg.CourseRepository.root) if cfg.CourseRepository.get("root") else None,
    )


def settings_data(settings: Settings, kept: dict | None = None) -> dict:
    """The JSON of ``settings`` (traitlets' sections), on top of ``kept``: the other nbgrader settings an
    instructor added to the file stay as they were."""
    data = {section: dict(values) for section, values in (kept or {}).items()}
    data.setdefault("Exchange", {})["root"] = str(settings.exchange)
    data.setdefault("CourseDirectory", {})["db_url"] = settings.db_url
    data.setdefault("PercentPerDay", {})["percent_per_day"] = settings.late_penalty
    data.setdefault("CourseRepository", {})["root"] = str(settings.root) if settings.root else None
    return data


CONFIG_TEXT = '''"""nbgrader's own commands read this file; `course init` writes it, always the same.

The course directory's settings are data beside it: nbgrader_config.json
(exchange, gradebook, late rule, the course repository, and any other nbgrader
setting you add there) and due.json (due dates, `course init --due`). This
line gives nbgrader's own commands the course's grading and feedback chains
with those settings; `course` reads the data without running this file.
"""

from pathlib import Path

from instructor.settings import configure_course_dir

configure_course_dir(get_config(), Path(__file__).resolve().parent)  # noqa: F821  (traitlets provides get_config)
'''


def _repository(root: Path) -> Path:
    """``root`` made absolute, or one sentence if it holds no ``solutions/``."""
    root = Path(root).expanduser().resolve()
    if not (root / "solutions").is_dir():
        raise CourseError(f"{root} holds no solutions/ folder: name a checkout of the course repository.")
    return root


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
    old = (
        _legacy_settings(course_path)
        or current_settings(course_path)
        or Settings(exchange=course_path / "exchange", db_url=f"sqlite:///{course_path / 'gradebook.db'}")
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
    kept = read_settings(course_path) if (course_path / SETTINGS_NAME).is_file() else {}
    data = json.dumps(settings_data(settings, kept), indent=1, sort_keys=True) + "\n"
    try:
        course_path.mkdir(parents=True, exist_ok=True)
        # the dates first: should the settings be refused, older ones holding dates still win
        course_due.write_due(course_path, settings.due)
        # each written only when it changes: on the hub both are root's, and moving a due date leaves them be
        for path, text in ((course_path / SETTINGS_NAME, data), (course_path / CONFIG_NAME, CONFIG_TEXT)):
            if path.is_file() and path.read_text() == text:
                continue
            if path.is_file() and not os.access(path, os.W_OK):
                raise CourseError(
                    f"{path} is root's (root reads it on the hub): run `course init` as root to change the "
                    "exchange, gradebook, late rule or repository, or once to bring an older course directory up "
                    "to date; due dates alone (`--due`) need no root."
                )
            atomic.write_own(path, text, 0o644)  # `course hub` makes it root's 0640 (accounts.ROOT_ONLY)
    except OSError as err:
        raise CourseError(f"cannot write the course directory {course_path} ({err.strerror or err}).") from None
    return settings
