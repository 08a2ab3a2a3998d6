"""The course directory: one nbgrader course folder, outside the repository.

Everything a term produces lives here, never in the repository::

    <dir>/nbgrader_config.py      the settings, read by `course` AND by nbgrader's own tools
    <dir>/roster.csv              the class list (`course roster import`)
    <dir>/source/, release/       what `course grade` / `course release-to-exchange` generate
    <dir>/submitted/<s>/<a>/      what `nbgrader collect` copies from the exchange
    <dir>/autograded/, feedback/, results/, logs/, gradebook.db

It is named in one place: ``--course-dir`` (alias ``--workspace``), else the
environment variable ``COURSE_DIR``, else ``~/seqmodels-grading``.
"""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from traitlets import Dict
from traitlets.config import Config, Configurable
from traitlets.config.loader import PyFileConfigLoader

from course.errors import CourseError

ENV = "COURSE_DIR"
DEFAULT = Path("~/seqmodels-grading")
CONFIG_NAME = "nbgrader_config.py"
ROSTER_NAME = "roster.csv"
ROSTER_COLUMNS = ["id", "first_name", "last_name", "email"]
_STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]*$")


class DueDates(Configurable):
    """Due dates by assignment, kept in the course directory's configuration.

    nbgrader reads a due date from the gradebook only; ``course`` copies these
    into it whenever it prepares an assignment, so the config file stays the
    one place where they are written.
    """

    dates = Dict({}, help="assignment -> due date, e.g. {'01_rnn': '2026-10-05 17:00:00 UTC'}").tag(config=True)


def resolve(given: Path | None) -> Path:
    """The course directory: the flag, else $COURSE_DIR, else ~/seqmodels-grading (absolute)."""
    if given is not None:
        return Path(given).expanduser().resolve()
    env = os.environ.get(ENV, "").strip()
    return Path(env or DEFAULT).expanduser().resolve()


def add_argument(parser) -> None:
    """``--course-dir DIR`` (alias ``--workspace``) on a subcommand."""
    parser.add_argument(
        "--course-dir", "--workspace", dest="course_dir", type=Path, default=None, metavar="DIR",
        help=f"the course directory (default: ${ENV}, else {DEFAULT})",
    )


def is_course_dir(folder: Path) -> bool:
    return (folder / CONFIG_NAME).is_file()


def load_config(folder: Path) -> Config:
    """The directory's nbgrader configuration, or the course defaults if it has none."""
    from course.nbgrader_settings import configure

    if not is_course_dir(folder):
        return configure(Config(), folder)
    try:
        return PyFileConfigLoader(CONFIG_NAME, path=str(folder)).load_config()
    except Exception as err:  # a syntax or name error in a hand-edited file
        raise CourseError(f"{folder / CONFIG_NAME} cannot be read ({type(err).__name__}: {err}).") from None


def configured_db_url(folder: Path) -> str | None:
    """``CourseDirectory.db_url`` as the directory's nbgrader_config.py sets it, or None."""
    if not is_course_dir(folder):
        return None
    url = load_config(folder).CourseDirectory.get("db_url")
    return str(url) if url else None


# --------------------------------------------------------------------------- init


@dataclass
class Settings:
    """What ``course init`` writes into the directory's nbgrader_config.py."""

    exchange: Path
    db_url: str
    late_penalty: float = 10.0  # percent of the score per day started
    due: dict[str, str] = field(default_factory=dict)


def current_settings(folder: Path) -> Settings | None:
    """The settings a course directory holds now (None if it is not one)."""
    if not is_course_dir(folder):
        return None
    cfg = load_config(folder)
    return Settings(
        exchange=Path(cfg.Exchange.get("root", folder / "exchange")),
        db_url=str(cfg.CourseDirectory.get("db_url", f"sqlite:///{folder / 'gradebook.db'}")),
        late_penalty=float(cfg.PercentPerDay.get("percent_per_day", 0.0)),
        due=dict(cfg.DueDates.get("dates", {})),
    )


CONFIG_TEMPLATE = '''"""nbgrader configuration of the seqmodels course directory (written by `course init`).

`course grade`, `export`, `feedback`, `formgrader` and nbgrader's own commands
run in this folder (`nbgrader release_assignment`, `collect`, `generate_feedback`,
`release_feedback`, the formgrader) all read this file, so they share one set of
settings. Edit the values below, or run `course init` again with new options.
"""

from pathlib import Path

from course.nbgrader_settings import configure

c = get_config()  # noqa: F821  (provided by traitlets when this file is loaded)
# the course settings: course id, hidden tests stripped from every feedback path, sandboxed autograde
configure(c, Path(__file__).resolve().parent)

# where students fetch and submit (they need read and write access)
c.Exchange.root = {exchange!r}
# the gradebook (SQLite here, or postgresql://user@host/db)
c.CourseDirectory.db_url = {db_url!r}
# late work: this percent of the notebook's score per day (or part of a day) late
c.AssignLatePenalties.plugin_class = "course.late.PercentPerDay"
c.PercentPerDay.percent_per_day = {late_penalty!r}
# due dates (UTC); `course grade` and `course release-to-exchange` copy them into the gradebook
c.DueDates.dates = {due!r}
'''


def parse_due(items: list[str]) -> dict[str, str]:
    """``A=DATE`` pairs -> {assignment: normalised UTC date}; one-sentence errors."""
    from nbgrader.utils import parse_utc

    found = {}
    for item in items:
        name, sep, when = item.partition("=")
        if not sep or not name.strip() or not when.strip():
            raise CourseError(f"--due takes ASSIGNMENT=DATE (e.g. 01_rnn='2026-10-05 17:00 UTC'), not {item!r}.")
        try:
            found[name.strip()] = parse_utc(when.strip()).strftime("%Y-%m-%d %H:%M:%S UTC")
        except Exception:  # dateutil raises several types
            raise CourseError(f"{when.strip()!r} is not a date (try '2026-10-05 17:00 UTC').") from None
    return found


def init(folder: Path, exchange: Path | None = None, db_url: str | None = None,
         late_penalty: float | None = None, due: dict[str, str] | None = None) -> Settings:
    """Create (or update) a course directory; options not given keep their current value."""
    if folder.exists() and not folder.is_dir():
        raise CourseError(f"{folder} exists and is not a folder.")
    from course.paths import REPO_ROOT

    if folder == REPO_ROOT or REPO_ROOT in folder.parents:
        raise CourseError(f"{folder} is inside the course repository: student work must never land there.")
    old = current_settings(folder) or Settings(exchange=folder / "exchange", db_url=f"sqlite:///{folder / 'gradebook.db'}")
    if late_penalty is not None and not 0 <= late_penalty <= 100:
        raise CourseError("--late-penalty is a percent per day, from 0 to 100.")
    settings = Settings(
        exchange=Path(exchange).expanduser().resolve() if exchange else old.exchange,
        db_url=db_url or old.db_url,
        late_penalty=old.late_penalty if late_penalty is None else float(late_penalty),
        due={**old.due, **(due or {})},
    )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG_NAME).write_text(CONFIG_TEMPLATE.format(
        exchange=str(settings.exchange), db_url=settings.db_url, late_penalty=settings.late_penalty,
        due=settings.due,
    ))
    if not settings.exchange.exists():
        settings.exchange.mkdir(parents=True)
        settings.exchange.chmod(0o777)  # nbgrader's exchange: every student writes a submission into it
    return settings


def apply_due_dates(folder: Path, db_url: str, assignments: list[str]) -> None:
    """Copy the configured due dates of ``assignments`` into the gradebook (where nbgrader reads them)."""
    from nbgrader.api import Gradebook

    dates = current_settings(folder).due if is_course_dir(folder) else {}
    wanted = {a: d for a, d in dates.items() if a in assignments}
    if not wanted:
        return
    from nbgrader.utils import parse_utc

    with Gradebook(db_url) as gb:
        for name, when in wanted.items():
            gb.update_or_create_assignment(name, duedate=parse_utc(when))


# --------------------------------------------------------------------------- roster


def read_roster_file(path: Path) -> list[dict[str, str]]:
    """Rows of a roster CSV (id required; first_name, last_name, email optional), checked."""
    if not path.is_file():
        raise CourseError(f"There is no roster file at {path}.")
    with path.open(newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames or "id" not in [n.strip() for n in reader.fieldnames]:
            raise CourseError(f"{path} has no 'id' column (expected: {', '.join(ROSTER_COLUMNS)}).")
        rows, seen = [], set()
        for line, raw in enumerate(reader, start=2):
            row = {k.strip(): (v or "").strip() for k, v in raw.items() if k}
            sid = row.get("id", "")
            if not sid:
                continue
            if not _STUDENT_ID.match(sid):
                raise CourseError(f"{path}, line {line}: {sid!r} is not a valid student id (letters, digits, _ . @ - only).")
            if sid in seen:
                raise CourseError(f"{path}, line {line}: student {sid!r} is listed twice.")
            seen.add(sid)
            rows.append({c: row.get(c, "") for c in ROSTER_COLUMNS})
    if not rows:
        raise CourseError(f"{path} lists no student.")
    return rows


def roster(folder: Path) -> set[str] | None:
    """The ids on the directory's roster, or None if no roster was imported."""
    path = folder / ROSTER_NAME
    return {r["id"] for r in read_roster_file(path)} if path.is_file() else None


def import_roster(folder: Path, source: Path, db_url: str) -> tuple[int, int]:
    """Add or update the students of ``source`` in the roster and the gradebook; returns (added, updated)."""
    from nbgrader.api import Gradebook

    new = read_roster_file(source)
    path = folder / ROSTER_NAME
    merged = {r["id"]: r for r in (read_roster_file(path) if path.is_file() else [])}
    added = sum(r["id"] not in merged for r in new)
    merged.update({r["id"]: r for r in new})
    with Gradebook(db_url) as gb:
        for row in new:
            gb.update_or_create_student(row["id"], first_name=row["first_name"] or None,
                                        last_name=row["last_name"] or None, email=row["email"] or None)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=ROSTER_COLUMNS)
        writer.writeheader()
        writer.writerows(sorted(merged.values(), key=lambda r: r["id"]))
    return added, len(new) - added


# --------------------------------------------------------------------------- after grading

#: files of an exchange submission that nbgrader's feedback commands need beside the autograded notebook
EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")


def keep_exchange_files(folder: Path, subs: list, summaries: list[dict]) -> None:
    """Copy each graded submission's timestamp and secret into ``autograded/`` (as nbgrader's autograde does).

    ``nbgrader generate_feedback`` copies them into ``feedback/``, and
    ``release_feedback`` needs both to hand the page to the right student.
    """
    graded = {(o["student"], o["assignment"]) for o in summaries if o["status"] != "not graded"}
    for sub in subs:
        target = folder / "autograded" / sub.student / sub.assignment
        if (sub.student, sub.assignment) not in graded or not target.is_dir():
            continue
        for name in EXCHANGE_FILES:
            source = sub.folder / name
            if source.is_file() and not source.is_symlink() and source.stat().st_size < 1000:
                (target / name).write_bytes(source.read_bytes())


# --------------------------------------------------------------------------- regrading


def names(values: list[str] | None) -> list[str]:
    """Repeated and comma-separated flag values, flattened (``-a 01 -a 02,03``)."""
    return [n.strip() for v in (values or []) for n in v.split(",") if n.strip()]


def select(subs: list, assignments: list[str], students: list[str]) -> list:
    """The submissions of the named assignments and students (all if none named)."""
    chosen = [s for s in subs if (not assignments or s.assignment in assignments)
              and (not students or s.student in students)]
    if not chosen:
        wanted = " and ".join(filter(None, [", ".join(assignments), ", ".join(students)]))
        raise CourseError(f"No submission matches {wanted}.")
    return chosen
