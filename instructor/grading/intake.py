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
from instructor.coursedir.ids import STUDENT_ID_RULE, is_student_id
from instructor.errors import CourseError, first_line
from instructor.grading.submission import Status, Submission

#: a submitted notebook larger than this is not read
MAX_NOTEBOOK_BYTES = 20 * 2**20
#: deeper JSON than this is refused: later steps (copies, comparisons) recurse into it
MAX_DEPTH = 64


#: what a name that is not a regular file is, for the reason shown to the instructor
_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def kind(mode: int) -> str:
    """What a file of ``mode`` (``st_mode``) is, in words: "a symbolic link", ..., "a regular file"."""
    return next((words for test, words in _KINDS if test(mode)), "a regular file" if stat.S_ISREG(mode) else "no file")


def read_checked(path: Path, limit: int = MAX_NOTEBOOK_BYTES) -> tuple[bytes, os.stat_result]:
    """The bytes of ``path`` (at most ``limit``) and the status of the file they came from.

    Only a regular file is opened: its folder is opened without following a
    link, the name is looked at there without following one (a link, FIFO,
    socket or device is refused before anything opens it), then opened
    without following, and the open file must be the one looked at (same
    device and inode), so nothing swapped in between is read. OSError (one
    sentence) otherwise.
    """
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        seen = os.stat(path.name, dir_fd=folder, follow_symlinks=False)
        if not stat.S_ISREG(seen.st_mode):
            raise OSError(f"{path.name} is {kind(seen.st_mode)}, not a regular file")
        fd = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=folder)
    finally:
        os.close(folder)
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or (info.st_dev, info.st_ino) != (seen.st_dev, seen.st_ino):
            raise OSError(f"{path.name} was replaced while it was opened")
        if info.st_size > limit:
            raise OSError(f"{path.name} is larger than {limit // 2**20} MB")
        return f.read(limit + 1)[:limit], info


def read_regular(path: Path, limit: int = MAX_NOTEBOOK_BYTES) -> bytes:
    """The bytes of ``path`` if it is a regular file no larger than ``limit`` (:func:`read_checked`)."""
    return read_checked(path, limit)[0]


def foreign_link(name: str, info: os.stat_result, student: str) -> str:
    """Why the file ``name`` (status ``info``) is not ``student``'s own work, if it is a hard link; else "".

    A file with more than one name may be another's file linked into the
    submission (a reader of the link reads their bytes): it counts as the
    student's only when her account owns it.
    """
    if info.st_nlink <= 1:
        return ""
    owner = _login_of(info.st_uid)
    if owner == student:
        return ""
    whose = f"a file of {owner}" if owner else "a file whose owner cannot be established"
    return f"{name} is a hard link ({info.st_nlink} names) to {whose}, not {student}'s own file"


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

    In this order: where each submission came from (its exchange folder, if
    any) is found first; then the record of arrivals is read once, gives each
    of them its time, and is written once (and the exchange folders read are
    sealed); only then is each submitted notebook read and checked, so a
    notebook of the exchange is read once it is no longer its student's to
    change.
    """
    if not submissions_dir.is_dir():
        raise CourseError(f"There is no submissions folder at {submissions_dir}.")
    inbound = _exchange_inbound(submissions_dir)
    if inbound:
        subs, origins = _from_exchange(inbound, known)
    else:
        subs = _from_folders(submissions_dir, known)
        exchange = _course_inbound(course_dir)
        origins = _trace_to_exchange(subs, exchange, course_dir) if exchange is not None else []
    arrivals = Arrivals(course_dir)
    for sub, folder in origins:
        sub.received = arrivals.of(folder)
    arrivals.save()
    arrivals.seal()  # as root: what was received stays as received (the student's folder no longer hers to write)
    if not subs:
        raise CourseError(f"{submissions_dir} holds no submissions (expected <student>/<assignment>/*.ipynb).")
    for sub in subs:
        if sub.status is Status.QUEUED and roster is not None and sub.student not in roster:
            sub.end(Status.NOT_GRADED, f"{sub.student} is not on the roster")
        if sub.status is Status.QUEUED and (problem := _notebook_problem(sub)):
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


def _collected(sub: Submission, course_dir: CourseDir | None) -> bool:
    """True when ``sub`` is where ``nbgrader collect`` writes: ``<dir>/submitted/<student>/<assignment>/``.

    Collect writes nowhere else, and a student cannot choose where root's
    collect writes; a folder an instructor placed elsewhere (an LMS download,
    with or without nbgrader's timestamp.txt) is the instructor's, not a copy
    made from the exchange, and is read like any submission folder.
    """
    return course_dir is not None and os.path.abspath(sub.folder.parent.parent) == os.path.abspath(course_dir.submitted)


def _trace_to_exchange(
    subs: list[Submission], inbound: Path, course_dir: CourseDir | None
) -> list[tuple[Submission, Path]]:
    """Find the exchange folder each collected submission was copied from: who made it, when it arrived, and
    that its notebook there is the student's own regular file with the bytes collected.

    ``nbgrader collect`` copies the newest ``<student>+<assignment>+<stamp>+...``
    folder into ``submitted/<student>/<assignment>/`` with its ``timestamp.txt``;
    the copy belongs to whoever collected, and the copy follows links: a
    notebook that is a link to the course's own solution arrives as a plain
    file holding the solution. So the copy is graded only when its exchange
    folder is found, was made by the student's account, and holds the same
    bytes as a regular file of hers (:func:`_exchange_problem`); otherwise it
    is refused with the reason. Returns each collected submission traced, with its exchange folder (whose
    arrival is its time).
    """
    entries = sorted(p for p in inbound.iterdir() if p.is_dir() and not p.is_symlink())
    claimed = {e.name.split("+")[0] for e in entries}
    traced = []
    for sub in subs:
        if sub.status is Status.QUEUED and _collected(sub, course_dir):
            entry, problem = _exchange_problem(sub, entries, claimed)
            if problem:
                sub.end(Status.NOT_GRADED, problem)
            elif entry is not None:
                traced.append((sub, entry))
    return traced


def _exchange_problem(sub: Submission, entries: list[Path], claimed: set[str]) -> tuple[Path | None, str]:
    """The exchange folder the collected ``sub`` was copied from (noted), or why it cannot be traced to its
    student's own file there: (folder, "") or (None, why)."""
    unknown = "where its notebook came from cannot be checked: remove the folder and collect it again"
    try:
        stamp = read_regular(sub.folder / "timestamp.txt", 200).decode("utf-8", "replace").strip()
    except OSError as err:
        return None, (
            f"it has no readable timestamp.txt ({first_line(err)}), so the exchange folder it was collected from "
            f"cannot be found: {unknown}"
        )
    prefix = f"{sub.student}+{sub.assignment}+{stamp}"
    found = [e for e in entries if e.name == prefix or e.name.startswith(prefix + "+")]
    if not found:
        return None, f"no exchange folder of {sub.student} has its stamp ({stamp}): {unknown}"
    entry = found[-1]
    maker = _login(entry)
    if maker and maker != sub.student and maker in claimed:
        return None, f"it claims to be {sub.student}'s but was made by {maker} (exchange folder {entry.name})"
    copy = submitted_notebook(sub)
    if copy is not None:
        try:
            original, info = read_checked(entry / copy.name, MAX_NOTEBOOK_BYTES + 1)
        except OSError as err:
            why = first_line(err) if not err.strerror else f"{copy.name} cannot be read ({err.strerror})"
            return None, f"in its exchange folder {entry.name}, {why}: collect copied something that is not her file"
        if link := foreign_link(copy.name, info, sub.student):
            return None, f"in its exchange folder {entry.name}, {link}"
        try:
            same = sha256(read_regular(copy, MAX_NOTEBOOK_BYTES + 1)) == sha256(original)
        except OSError:
            same = True  # the copy itself is judged at intake like any notebook (_notebook_problem)
        if not same:
            return None, (
                f"the collected {copy.name} differs from the one in its exchange folder {entry.name} "
                f"(changed after it was collected): {unknown}"
            )
    sub.note(f"collected from the exchange folder {entry.name}")
    return entry, ""


def _from_exchange(inbound: Path, known: list[str]) -> tuple[list[Submission], list[tuple[Submission, Path]]]:
    """The newest folder per student and assignment that the student's own account made; and each of those
    submissions with its folder (whose arrival is its time).

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
    found = [(Submission(s, a, p), p) for (s, a), p in sorted(latest.items())]
    return [sub for sub, _ in found] + bad, found


def _login(path: Path) -> str:
    """The login name of whoever owns ``path``; "" for root and for the autograder's own account."""
    return _login_of(path.lstat().st_uid)


def _login_of(uid: int) -> str:
    """The login name of ``uid``; "" for root and for the autograder's own account."""
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
    try:
        raw, info = read_checked(path, MAX_NOTEBOOK_BYTES + 1)
    except OSError as err:
        return f"{path.name} cannot be read ({err.strerror})" if err.strerror else first_line(err)
    if link := foreign_link(path.name, info, sub.student):
        return link
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
