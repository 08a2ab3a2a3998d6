"""Stage 1, intake: find every submission and check that it can be read.

Submissions come either as ``<student>/<assignment>/*.ipynb`` (also nbgrader's
``submitted/`` collect layout) or as an nbgrader exchange
(``<exchange>/<course>/inbound/<student>+<assignment>+<timestamp>...``).
A submission that cannot be graded is kept, ``not graded`` with the reason:
only an instructor's mistake (no such folder, nothing in it) raises.
"""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import stat
from pathlib import Path

import nbformat

from instructor.coursedir.arrivals import Arrivals
from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.roster import STUDENT_ID_RULE, is_student_id
from instructor.errors import CourseError, first_line
from instructor.grading.submission import Status, Submission

#: a submitted notebook larger than this is not read
MAX_NOTEBOOK_BYTES = 20 * 2**20
#: deeper JSON than this is refused: later steps (copies, comparisons) recurse into it
MAX_DEPTH = 64


def read_regular(path: Path, limit: int = MAX_NOTEBOOK_BYTES) -> bytes:
    """The bytes of ``path`` if it is a regular file no larger than ``limit``; the last name is not
    followed if it is a symbolic link (OSError), and the file is checked once it is open."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path.name} is not a regular file")
        if info.st_size > limit:
            raise OSError(f"{path.name} is larger than {limit // 2**20} MB")
        return f.read(limit + 1)[:limit]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def depth(data) -> int:
    """How deeply ``data`` (parsed JSON) nests lists and objects; counted without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in item)
    return deepest


def find_submissions(
    submissions_dir: Path, known: list[str], roster: set[str] | None = None, course_dir: CourseDir | None = None
) -> list[Submission]:
    """Every submission under ``submissions_dir``; those that cannot be graded end ``not graded`` with the reason.

    ``course_dir`` (``course grade``'s) keeps when each exchange folder
    arrived (:mod:`instructor.coursedir.arrivals`); a collected submission is
    traced back to its exchange folder there, for who made it and when it arrived.
    """
    if not submissions_dir.is_dir():
        raise CourseError(f"There is no submissions folder at {submissions_dir}.")
    arrivals = Arrivals(course_dir.path if course_dir is not None else None)
    inbound = _exchange_inbound(submissions_dir)
    if inbound:
        subs = _from_exchange(inbound, known, arrivals)
    else:
        subs = _from_folders(submissions_dir, known)
        exchange = _course_inbound(course_dir)
        if exchange is not None:
            _trace_to_exchange(subs, exchange, arrivals)
    arrivals.save()
    if not subs:
        raise CourseError(f"{submissions_dir} holds no submissions (expected <student>/<assignment>/*.ipynb).")
    for sub in subs:
        if sub.status is Status.WAITING and roster is not None and sub.student not in roster:
            sub.end(Status.NOT_GRADED, f"{sub.student} is not on the roster")
        if sub.status is Status.WAITING and (problem := _notebook_problem(sub)):
            sub.end(Status.NOT_GRADED, problem)
    return subs


def select(subs: list[Submission], assignments: list[str], students: list[str]) -> list[Submission]:
    """The submissions of the named assignments and students (all if none named)."""
    chosen = [
        s for s in subs if (not assignments or s.assignment in assignments) and (not students or s.student in students)
    ]
    if not chosen:
        wanted = " and ".join(filter(None, [", ".join(assignments), ", ".join(students)]))
        raise CourseError(f"No submission matches {wanted}.")
    return chosen


def submitted_notebook(sub: Submission) -> Path | None:
    """``<a>.ipynb`` in the folder, else its only notebook, else None."""
    expected = sub.folder / f"{sub.assignment}.ipynb"
    if expected.exists() or expected.is_symlink():
        return expected
    found = sorted(sub.folder.glob("*.ipynb"))
    return found[0] if len(found) == 1 else None


def _refused(student: str, assignment: str, submission_dir: Path, reason: str) -> Submission:
    return Submission(student, assignment, submission_dir, Status.NOT_GRADED, reason)


def _exchange_inbound(submissions_dir: Path) -> Path | None:
    """The ``inbound`` folder if ``submissions_dir`` is an nbgrader exchange (or part of one)."""
    if submissions_dir.name == "inbound":
        return submissions_dir
    if (submissions_dir / "inbound").is_dir():
        return submissions_dir / "inbound"
    hits = sorted(submissions_dir.glob("*/inbound"))
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        courses = ", ".join(h.parent.name for h in hits)
        raise CourseError(f"{submissions_dir} holds the exchanges of several courses ({courses}); name one of them.")
    return None


def _from_folders(submissions_dir: Path, known: list[str]) -> list[Submission]:
    subs = []
    for student_dir in sorted(p for p in submissions_dir.iterdir() if p.is_dir() and not p.name.startswith(".")):
        name = student_dir.name
        if student_dir.is_symlink():
            subs.append(_refused(name, "?", student_dir, "the student folder is a symbolic link"))
            continue
        assignment_dirs = sorted(p for p in student_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
        if not is_student_id(name):
            # refused under each assignment it holds, so the report of that assignment lists it (as text)
            why = f"the folder name is not a valid student id ({STUDENT_ID_RULE})"
            subs += [_refused(name, a.name if a.name in known else "?", a, why) for a in assignment_dirs] or [
                _refused(name, "?", student_dir, why)
            ]
            continue
        if not assignment_dirs:
            subs.append(_refused(name, "?", student_dir, "the student folder holds no assignment folder"))
        for a in assignment_dirs:
            if a.is_symlink():
                subs.append(_refused(name, a.name, a, "the assignment folder is a symbolic link"))
            elif a.name not in known:
                subs.append(
                    _refused(name, a.name, a, f"{a.name!r} is not a known assignment (known: {', '.join(known)})")
                )
            else:
                subs.append(Submission(name, a.name, a))
    return subs


def _course_inbound(course_dir: CourseDir | None) -> Path | None:
    """The inbound folder of the course directory's exchange (its settings), if there is one."""
    inbound = course_dir.exchange / course_dir.course_id / "inbound" if course_dir is not None else None
    return inbound if inbound is not None and inbound.is_dir() else None


def _trace_to_exchange(subs: list[Submission], inbound: Path, arrivals: Arrivals) -> None:
    """Find the exchange folder each collected submission was copied from: who made it, when it arrived.

    ``nbgrader collect`` copies the newest ``<student>+<assignment>+<stamp>+...``
    folder into ``submitted/<student>/<assignment>/`` with its ``timestamp.txt``,
    and the copy belongs to whoever collected: the maker is known only in the
    exchange. A submission made by another student's account is refused as
    it is when graded from the exchange; its time is the folder's arrival.
    """
    entries = sorted(p for p in inbound.iterdir() if p.is_dir() and not p.is_symlink())
    claimed = {e.name.split("+")[0] for e in entries}
    for sub in subs:
        if sub.status is not Status.WAITING:
            continue
        try:
            stamp = read_regular(sub.folder / "timestamp.txt", 200).decode("utf-8", "replace").strip()
        except OSError:
            continue  # not collected by nbgrader: nothing to trace
        prefix = f"{sub.student}+{sub.assignment}+{stamp}"
        found = [e for e in entries if e.name == prefix or e.name.startswith(prefix + "+")]
        if not found:
            sub.note(
                f"no exchange folder of {sub.student} has its stamp ({stamp}): who made it and when it arrived "
                "cannot be checked"
            )
            continue
        entry = found[-1]
        maker = _login(entry)
        if maker and maker != sub.student and maker in claimed:
            sub.end(
                Status.NOT_GRADED,
                f"it claims to be {sub.student}'s but was made by {maker} (exchange folder {entry.name})",
            )
            continue
        sub.received = arrivals.of(entry)


def _from_exchange(inbound: Path, known: list[str], arrivals: Arrivals | None = None) -> list[Submission]:
    """The newest folder per student and assignment that the student's own account made.

    The folder name (``<student>+<assignment>+<timestamp>+...``) is written by
    the student's side, so neither the name nor the time in it is trusted
    alone: a folder whose owner is another student of the class (their login
    is another id among the folders) is refused, and the time that counts is
    when the exchange received the files, as first recorded
    (:mod:`instructor.coursedir.arrivals`).
    """
    latest: dict[tuple[str, str], Path] = {}
    bad = []
    entries = sorted(inbound.iterdir())
    claimed = {e.name.split("+")[0] for e in entries}
    for entry in entries:
        parts = entry.name.split("+")
        if not entry.is_dir() or entry.is_symlink() or len(parts) < 3:
            bad.append(
                _refused(
                    entry.name, "?", entry, "not an nbgrader submission folder (<student>+<assignment>+<timestamp>)"
                )
            )
            continue
        student, assignment, stamp = parts[0], parts[1], parts[2]
        if not is_student_id(student):
            bad.append(
                _refused(student, assignment, entry, f"the folder name is not a valid student id ({STUDENT_ID_RULE})")
            )
            continue
        if assignment not in known:
            bad.append(
                _refused(
                    student, assignment, entry, f"{assignment!r} is not a known assignment (known: {', '.join(known)})"
                )
            )
            continue
        maker = _login(entry)
        if maker and maker != student and maker in claimed:
            # named by its folder, so that it never stands for (or overwrites) amy's own result
            bad.append(_refused(entry.name, assignment, entry, f"it claims to be {student}'s but was made by {maker}"))
            continue
        key = (student, assignment)
        if key not in latest or stamp > latest[key].name.split("+")[2]:
            latest[key] = entry
    arrivals = arrivals or Arrivals(None)
    return [Submission(s, a, p, received=arrivals.of(p)) for (s, a), p in sorted(latest.items())] + bad


def _login(path: Path) -> str:
    """The login name of whoever owns ``path``; "" for root and for the grader's own account."""
    uid = path.lstat().st_uid
    if uid in (0, os.geteuid()):
        return ""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _notebook_problem(sub: Submission) -> str:
    """One sentence on why the submitted notebook cannot be read, or "" (and ``sub.sha256`` set).

    The bytes read here are the bytes graded: later stages read the file
    again the same way and refuse it if its hash changed (:func:`read_regular`).
    """
    path = submitted_notebook(sub)
    if path is None:
        many = len(list(sub.folder.glob("*.ipynb")))
        return (
            "the folder holds no notebook"
            if not many
            else f"the folder holds {many} notebooks and none is named {sub.assignment}.ipynb"
        )
    if path.is_symlink():
        return f"{path.name} is a symbolic link, not a file"
    try:
        raw = read_regular(path, MAX_NOTEBOOK_BYTES + 1)
    except OSError as err:
        return f"{path.name} cannot be read ({err.strerror})" if err.strerror else first_line(err)
    if len(raw) > MAX_NOTEBOOK_BYTES:
        return f"{path.name} is larger than {MAX_NOTEBOOK_BYTES // 2**20} MB"
    if not raw:
        return f"{path.name} is empty"
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as err:
        return f"{path.name} is not a valid notebook ({first_line(err, 120)})"
    if depth(data) > MAX_DEPTH:
        return f"{path.name} nests its data more than {MAX_DEPTH} levels deep"
    try:
        nbformat.validate(nbformat.reads(raw.decode("utf-8"), as_version=4))
    except Exception as err:  # schema errors come in several types
        return f"{path.name} is not a valid notebook ({first_line(err, 120)})"
    sub.sha256 = sha256(raw)
    return ""
