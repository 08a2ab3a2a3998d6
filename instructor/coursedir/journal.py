"""Who wrote each grade, and when: one append-only journal per account, which the system, not the writer, names.

nbgrader's gradebook (``gradebook.db``, SQLite) must stay writable by every
account that grades: on the hub the staff group writes it, so a grader could
write scores straight into it with ``sqlite3``, and nothing said who changed
what. So every tool that writes a score also writes a line into its own
account's journal::

    <dir>/grade-journals/                sticky: each account makes and changes only its own file
    <dir>/grade-journals/<name>.jsonl    one JSON object a line, owned by <name>, writable by <name> alone

    {"at": "2026-12-07T15:30:01.123456Z", "kind": "hand grade", "assignment": "01_rnn", "student": "amy",
     "notebook": "01_rnn", "cell": "why_rnn_fails", "manual": 1.0, "extra": null}

``kind`` is ``autograde`` (``course grade``: ``auto``, and ``manual`` when it
took a hand grade back; ``removed`` when the submission keeps no grade; the
notebook's late penalty as the line whose ``cell`` is ""), ``extension``
(``course extend``: the late penalty worked out again), ``hand grade``
(a written answer) or ``override`` (a test cell) from the formgrader or
``course override`` (``manual``, ``extra``), or ``accepted`` (``course override
--accept``: a person looked at a score no line explained and took it as hers).

**The author is the file's owner**, read with ``fstat`` on the open file
(never ``$USER``, never the file's name): only that account (or root) can
write it. A writer opens its own file with ``O_NOFOLLOW | O_APPEND`` and checks
on the open file that it owns it and that nobody else can write it; so a
grader cannot write into the instructor's journal, nor make a file that
passes as someone else's (the folder is sticky: he cannot rename or remove
another's either). Root's ``course grade`` writes root's own journal and
names who asked (``asked_by``: sudo's ``SUDO_USER``, which the privileged path
checked against the staff group). ``autograde`` lines count only from root or
the account that owns the course directory (the one that grades off the hub).

**``course export`` replays the journals** (:func:`require_explained`): for every grade of
the gradebook, the autograded points must be those of the latest ``autograde``
(or ``accepted``) line of that cell, and the points given by hand and the
extra credit those of the latest line that set them; a submission the
journals say was graded must still be there. A score that no line explains
(written outside the tools) stops the export, one line per score, with what
to do. Off the hub the same journal works with one author.

What it cannot stop: an account writing a line into its own journal by hand
(then the score is its own, named as such, as if saved in the formgrader),
or removing the journal folder (everybody's lines go, so every score is
unexplained and the export stops: a refusal, never a silent change).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import math
import os
import pwd
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from instructor.errors import CourseError

if TYPE_CHECKING:
    from instructor.coursedir.course_dir import CourseDir

AUTOGRADE = "autograde"
HAND_GRADE = "hand grade"
OVERRIDE = "override"
ACCEPTED = "accepted"
EXTENSION = "extension"
KINDS = (AUTOGRADE, HAND_GRADE, OVERRIDE, ACCEPTED, EXTENSION)
#: the kinds that may set a cell's autograded points
AUTO_KINDS = (AUTOGRADE, ACCEPTED)
#: the kinds that may set a notebook's late penalty (the cell "")
PENALTY_KINDS = (AUTOGRADE, ACCEPTED, EXTENSION)
#: what a line's score fields are, in the words a message uses
FIELDS = {"auto": "autograded points", "manual": "points given by hand", "extra": "extra credit"}
#: a journal's name: the account's, then this
SUFFIX = ".jsonl"
#: one line at most (a line holds one cell's grade: a few hundred bytes)
LINE_LIMIT = 4096
#: one journal at most (a term's grading writes a few MB)
FILE_LIMIT = 256 * 1024 * 1024
#: a line dated later than this after the export's own clock is refused (one machine, one clock)
CLOCK_SLACK = timedelta(minutes=5)
#: at most this many scores are named in a refusal (the count of the rest is given)
SHOWN = 20
SETTLE = (
    "Scores change only through the formgrader and `course` commands, each naming who wrote it: look at each "
    "score, then give the points again in the formgrader or with `course override A STUDENT CELL POINTS`, grade "
    "the submission again with `course grade -a A -s STUDENT --force` for autograded points, or take what the "
    "gradebook holds as yours with `course override --accept`; then export again (docs/trust.md, grades)."
)


def now() -> str:
    """A line's time: UTC, to the microsecond, sortable as text."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def account(uid: int) -> str:
    """The name of account ``uid`` (its number when it has none)."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def account_here() -> str:
    """The account this process writes as (its effective uid's name)."""
    return account(os.geteuid())


# --------------------------------------------------------------------------- writing


def _folder_mode(parent: os.stat_result) -> int:
    """The journal folder: sticky, the staff's group may make files (setgid as its parent), others as its parent."""
    return 0o1770 | (parent.st_mode & 0o2000) | (parent.st_mode & 0o005)


def open_folder(course_dir: CourseDir, create: bool) -> int | None:
    """A descriptor of ``<dir>/grade-journals/`` (made when ``create``; None if there is none), never a link."""
    path = course_dir.journals
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(path, flags)
    except FileNotFoundError:
        if not create:
            return None
    except OSError as err:  # ELOOP, ENOTDIR: a link or a file in its place
        raise CourseError(f"{path} is not the course's folder of grade journals ({err.strerror}).") from None
    parent = os.stat(course_dir.path)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
        fd = os.open(path, flags)
        try:
            if os.geteuid() == 0:  # the course directory's owner's, as everything root makes there
                os.fchown(fd, parent.st_uid, parent.st_gid)
            os.fchmod(fd, _folder_mode(parent))
        finally:
            os.close(fd)
    try:
        return os.open(path, flags)
    except OSError as err:
        raise CourseError(f"{path} is not the course's folder of grade journals ({err.strerror}).") from None


@contextlib.contextmanager
def writer(course_dir: CourseDir) -> Iterator[Writer]:
    """This account's journal, open for appending and checked (see the module doc), before any grade is written.

    Opened first so that a journal that cannot be written stops the change before the gradebook commits.
    """
    folder = open_folder(course_dir, create=True)
    assert folder is not None
    me = os.geteuid()
    name = account(me) + SUFFIX
    where = course_dir.journals / name
    try:
        try:
            fd = os.open(
                name,
                os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                0o644,
                dir_fd=folder,
            )
        except OSError as err:
            raise CourseError(f"cannot open your grade journal {where} ({err.strerror}).") from None
    finally:
        os.close(folder)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != me or info.st_nlink != 1:
            raise CourseError(
                f"{where} is not your grade journal (owner {account(info.st_uid)}, {info.st_nlink} name(s)): "
                "someone else made it; ask root to remove it."
            )
        if info.st_mode & 0o022:  # ours, but others could write it (a umask): they could then write as us
            os.fchmod(fd, stat.S_IMODE(info.st_mode) & ~0o022)
        fcntl.flock(fd, fcntl.LOCK_EX)  # one account's processes (a server and a terminal) take turns
        yield Writer(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Writer:
    """Appends lines to one open journal."""

    fd: int

    def write(self, *lines: dict[str, Any]) -> None:
        data = b"".join(json.dumps(line, sort_keys=True).encode() + b"\n" for line in lines)
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]
        os.fsync(self.fd)


def line(kind: str, assignment: str, student: str, notebook: str, cell: str, **scores: Any) -> dict[str, Any]:
    """One journal line, dated now; ``scores``: ``auto``, ``manual``, ``extra``, ``removed``, ``asked_by``."""
    return {
        "at": now(),
        "kind": kind,
        "assignment": assignment,
        "student": student,
        "notebook": notebook,
        "cell": cell,
        **scores,
    }


def record(course_dir: CourseDir, *lines: dict[str, Any]) -> None:
    """Append ``lines`` to this account's journal."""
    if lines:
        with writer(course_dir) as w:
            w.write(*lines)


def asked_by() -> dict[str, str]:
    """Root's lines name the account that asked (sudo's ``SUDO_USER``); nobody else's do."""
    who = os.environ.get("SUDO_USER", "") if os.geteuid() == 0 else ""
    return {"asked_by": who} if who else {}


def hand_line(grade, kind: str | None = None) -> dict[str, Any]:
    """The line of a grade a person just saved (nbgrader's ``Grade``): a hand grade or an override."""
    notebook = grade.notebook
    if kind is None:
        kind = HAND_GRADE if grade.auto_score is None else OVERRIDE
    return line(
        kind,
        notebook.assignment.name,
        notebook.student.id,
        notebook.name,
        grade.name,
        manual=grade.manual_score,
        extra=grade.extra_credit,
    )


def autograde_lines(submission, taken_back=()) -> list[dict[str, Any]]:
    """The lines of a submission ``course grade`` just recorded (nbgrader's ``SubmittedAssignment``).

    Its autograded points, each cell's; the points given by hand only where
    it took them back (``taken_back``: cell names); each notebook's late penalty.
    """
    who = asked_by()
    out = []
    for nb in submission.notebooks:
        for grade in nb.grades:
            scores: dict[str, Any] = {"auto": grade.auto_score}
            if grade.name in taken_back:
                scores["manual"] = None
            out.append(
                line(AUTOGRADE, submission.assignment.name, submission.student.id, nb.name, grade.name, **scores, **who)
            )
        out.append(
            line(
                AUTOGRADE,
                submission.assignment.name,
                submission.student.id,
                nb.name,
                "",
                auto=nb.late_submission_penalty,
                **who,
            )
        )
    return out


def penalty_lines(submission) -> list[dict[str, Any]]:
    """The lines of the late penalty ``course extend`` just worked out again for a submission (each notebook's)."""
    return [
        line(EXTENSION, submission.assignment.name, submission.student.id, nb.name, "", auto=nb.late_submission_penalty)
        for nb in submission.notebooks
    ]


def removal_line(assignment: str, student: str) -> dict[str, Any]:
    """The line of a submission ``course grade`` took out of the gradebook (it keeps no grade)."""
    return line(AUTOGRADE, assignment, student, "", "", removed=True, **asked_by())


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Entry:
    """One line of a journal, with its author (the journal's owner)."""

    author: str
    uid: int
    journal: str
    number: int
    data: dict[str, Any]

    @property
    def key(self) -> tuple[str, str, str, str]:
        d = self.data
        return d["assignment"], d["student"], d["notebook"], d["cell"]

    def said(self) -> str:
        return f"{self.data['kind']} by {self.author}, {self.data['at'][:16].replace('T', ' ')} UTC"


def _score(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value))


def _bad(data: Any) -> str:
    """Why ``data`` is not a journal line ("" if it is one)."""
    if not isinstance(data, dict):
        return "not a JSON object"
    for key in ("at", "kind", "assignment", "student", "notebook", "cell"):
        if not isinstance(data.get(key), str):
            return f"no {key}"
    if data["kind"] not in KINDS:
        return f"kind {data['kind']!r} is none of {', '.join(KINDS)}"
    try:
        datetime.strptime(data["at"], "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:
        return f"at {data['at']!r} is no time"
    for key in FIELDS:
        if key in data and not _score(data[key]):
            return f"{key} {data[key]!r} is no score"
    if not isinstance(data.get("removed", False), bool):
        return "removed is neither true nor false"
    return ""


def _parse(raw: bytes) -> tuple[dict[str, Any], str]:
    """(the line, "") or ({}, why it is no journal line)."""
    if len(raw) > LINE_LIMIT:
        return {}, f"longer than {LINE_LIMIT} bytes"
    try:
        data = json.loads(raw)
    except ValueError:
        return {}, "not JSON"
    why = _bad(data)
    return (data, "") if not why else ({}, why)


def read_journals(course_dir: CourseDir) -> tuple[list[Entry], list[str]]:
    """Every line of every journal, oldest first, and what cannot be taken as one author's (one line each).

    A journal counts only as a regular file, not a link, that nobody but its
    owner can write, read by descriptor; a file with a second name is read once.
    """
    folder = open_folder(course_dir, create=False)
    if folder is None:
        return [], []
    entries: list[Entry] = []
    problems: list[str] = []
    seen: set[tuple[int, int]] = set()
    owner = os.stat(course_dir.path).st_uid
    latest = (datetime.now(UTC) + CLOCK_SLACK).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    where = course_dir.journals
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(SUFFIX))
        for name in names:
            try:
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
            except OSError as err:
                why = "a link" if err.errno == errno.ELOOP else err.strerror
                problems.append(f"{where / name} is not a grade journal the course reads ({why}).")
                continue
            with os.fdopen(fd, "rb") as f:
                info = os.fstat(fd)
                author = account(info.st_uid)
                if not stat.S_ISREG(info.st_mode) or info.st_size > FILE_LIMIT:
                    problems.append(
                        f"{where / name} is not a grade journal the course reads (a regular file, "
                        f"at most {FILE_LIMIT // 2**20} MB)."
                    )
                    continue
                if info.st_mode & 0o022:
                    problems.append(
                        f"{where / name} could be written by others than {author} (mode "
                        f"{stat.S_IMODE(info.st_mode):04o}), so its lines are nobody's for sure: "
                        f"{author} (or root) should `chmod go-w` it, after looking at it."
                    )
                    continue
                if (info.st_dev, info.st_ino) in seen:
                    continue
                seen.add((info.st_dev, info.st_ino))
                text = f.read(FILE_LIMIT + 1)
            for number, raw in enumerate(text.split(b"\n"), start=1):
                if not raw.strip():
                    continue
                data, why = _parse(raw)
                if not why and data["kind"] == AUTOGRADE and info.st_uid not in (0, owner):
                    why = f"{author} is neither root nor the owner of the course directory (autograde is root's)"
                if not why and data["at"] > latest:
                    why = f"dated {data['at']}, later than now"
                if why:
                    problems.append(f"{where / name} (by {author}), line {number}: {why}.")
                    continue
                entries.append(Entry(author, info.st_uid, name, number, data))
    finally:
        os.close(folder)
    entries.sort(key=lambda e: e.data["at"])
    return entries, problems


@dataclass
class Cell:
    """What the journals say one cell holds: each score with the line that set it."""

    values: dict[str, tuple[float | None, Entry]]


def replay(entries: list[Entry]) -> tuple[dict[tuple[str, str, str, str], Cell], dict[tuple[str, str], Entry]]:
    """({(assignment, student, notebook, cell): what its latest lines set}, {(assignment, student): the last line
    that graded it}) after every line in order; a removal forgets the submission."""
    cells: dict[tuple[str, str, str, str], Cell] = {}
    graded: dict[tuple[str, str], Entry] = {}
    for entry in entries:
        d = entry.data
        sub = (d["assignment"], d["student"])
        if d.get("removed"):
            for key in [k for k in cells if k[:2] == sub]:
                del cells[key]
            graded.pop(sub, None)
            continue
        cell = cells.setdefault(entry.key, Cell({}))
        for field in FIELDS:
            if field in d and (field != "auto" or d["kind"] in (PENALTY_KINDS if not d["cell"] else AUTO_KINDS)):
                cell.values[field] = (d[field], entry)
        if d["kind"] == AUTOGRADE:
            graded[sub] = entry
    return cells, graded


def same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=0.0, abs_tol=1e-9)


def _shown(value: float | None) -> str:
    return "nothing" if value is None else f"{value:g}"


def found_in(gb) -> dict[tuple[str, str, str, str], dict[str, float | None]]:
    """Every score of the gradebook ``gb``, by (assignment, student, notebook, cell); a notebook's late penalty
    under the cell ""."""
    found: dict[tuple[str, str, str, str], dict[str, float | None]] = {}
    for assignment in gb.assignments:
        for sub in assignment.submissions:
            for nb in sub.notebooks:
                base = (assignment.name, sub.student.id, nb.name)
                for grade in nb.grades:
                    found[(*base, grade.name)] = {
                        "auto": grade.auto_score,
                        "manual": grade.manual_score,
                        "extra": grade.extra_credit,
                    }
                found[(*base, "")] = {"auto": nb.late_submission_penalty}
    return found


def unexplained(course_dir: CourseDir, gb) -> list[str]:
    """One line per score of the gradebook ``gb`` that no journal line explains, after what cannot be read."""
    entries, problems = read_journals(course_dir)
    cells, graded = replay(entries)
    found = found_in(gb)
    out = list(problems)
    for key in sorted(found):
        assignment, student, _notebook, cell = key
        said = cells.get(key, Cell({})).values
        for field, value in found[key].items():
            expected, entry = said.get(field, (None, None))
            if same(value, expected):
                continue
            what = "late penalty" if not cell else f"cell {cell}, {FIELDS[field]}"
            journal = f"{_shown(expected)} ({entry.said()})" if entry else "nothing (no journal line gave any)"
            out.append(f"{assignment}, {student}, {what}: the gradebook holds {_shown(value)}, the journal {journal}.")
    present = {k[:2] for k in found}
    for (assignment, student), entry in sorted(graded.items()):
        if (assignment, student) not in present:
            out.append(
                f"{assignment}, {student}: the gradebook has no submission where the journal holds one "
                f"({entry.said()}): it was removed outside the tools."
            )
    return out


def require_explained(course_dir: CourseDir, gb) -> None:
    """Refuse (:class:`CourseError`) when a score of the gradebook ``gb`` is not explained by the journals."""
    wrong = unexplained(course_dir, gb)
    if not wrong:
        return
    shown = wrong[:SHOWN] + ([f"... and {len(wrong) - SHOWN} more."] if len(wrong) > SHOWN else [])
    raise CourseError(
        f"{len(wrong)} score(s) of the gradebook were not written by the course's tools, so nobody can say who "
        "wrote them; nothing was exported:\n  " + "\n  ".join(shown) + "\n" + SETTLE
    )
