"""The hub's collect: a submission is a student's only when her account owns it, and only her files come in.

nbgrader's collect (``ExchangeCollect``) takes the newest
``<student>+<assignment>+<stamp>+...`` folder of ``inbound`` for each
student named in the folder names, and copies it with ``shutil.copytree``.
On a hub every student writes into ``inbound``, so both are the students'
to steer:

- **Who submitted.** ``nbgrader submit --student bob`` run by amy makes a
  folder named as bob's; nbgrader's ``check_owner`` only warns ("cheating
  attempt?") and collects it over bob's own. Here a folder counts as
  ``<student>``'s only when it, and each file and folder in it, is owned by
  the Unix account named ``<student>``, checked with ``fstat`` on the open
  descriptor (never by name). How the check knows a student's account: on
  the hub, ``course hub`` makes one account per roster id with that very
  name (:func:`instructor.hub.accounts.create`) and refuses system accounts
  as ids, so the account of ``bob`` is ``getpwnam("bob")``. Another owner's
  folder is refused, one log line naming the student it claims to be and the
  account that owns it; the student's own newest folder is collected as
  before, and nothing already collected for her is touched.
- **What comes in.** ``copytree`` follows links (a link to a root-only file
  arrives as a copy on the staff's side, a link to ``/dev/zero`` never
  ends), opens FIFOs (the collect stalls) and reads sparse files of any
  size. Here each entry is looked at without following links and opened
  with ``O_NOFOLLOW | O_NONBLOCK`` relative to its folder's descriptor; a
  FIFO, socket, device or link, a file of another account (a hard link to
  somebody else's file) and a file above :attr:`OwnedCollect.max_file_mb`
  are left out, one log line each; a submission of more than
  :attr:`OwnedCollect.max_files` entries or
  :attr:`OwnedCollect.max_total_mb` in all is refused whole before anything
  is read (the student's earlier collected copy stays). Reads stop at the
  size ``fstat`` gave.

Each submission is copied into a fresh hidden folder beside its place in
``submitted/``, then renamed into place, so a refused or failed one leaves the
earlier copy as it was, and one student's failure never stops the others'.

Only the hub's privileged path uses this class (``nbgrader collect
--ExchangeFactory.collect=instructor.hub.collect.OwnedCollect``:
:mod:`instructor.hub.privileged`). Elsewhere (no Unix account per student,
``nbgrader collect`` run by an instructor) nbgrader's own collect runs as it
always did. The limits are settings of the course directory's
``nbgrader_config.py`` (``c.OwnedCollect.max_files = 300``; docs/configuration.md).
"""

from __future__ import annotations

import fnmatch
import os
import pwd
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import parse_utc
from traitlets import Int

from instructor.coursedir.ids import is_student_id
from instructor.errors import first_line
from instructor.grading.intake import kind, read_regular
from instructor.hub.accounts import system_reason, uid_min

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_CHUNK = 1 << 20


class Refused(Exception):
    """A submission not collected, with the reason (one line)."""


def shown(name: str) -> str:
    """A name the student chose, on one line (a newline in it is shown escaped)."""
    return name if name.isprintable() else repr(name)


def account_uid(student: str) -> int | None:
    """The uid of ``student``'s own account: the Unix account of that name (``course hub`` makes one per roster
    id), or None when there is none or it is a system account (not a person's)."""
    try:
        uid = pwd.getpwnam(student).pw_uid
    except KeyError:
        return None
    return None if system_reason(student, uid_min()) else uid


def login(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


@dataclass
class Entry:
    """A file or folder of a submission, as first looked at (``lstat`` through its folder's descriptor)."""

    path: str  # relative to the submission folder
    info: os.stat_result


class OwnedCollect(ExchangeCollect):
    """nbgrader's collect, taking only folders and files the named student's account owns, within limits."""

    max_files = Int(
        200, help="Files and folders a submission may hold; one with more is refused whole, before any is read."
    ).tag(config=True)
    max_file_mb = Int(20, help="Largest file collected (MB); a larger one is left out, unread.").tag(config=True)
    max_total_mb = Int(
        100, help="Bytes of a submission's files together (MB); one with more is refused whole, before any is read."
    ).tag(config=True)

    def init_src(self):
        """The newest folder per student among those her own account made (nbgrader's choice otherwise)."""
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        try:
            inbound = os.open(self.inbound_path, _DIR)
        except OSError as err:
            self.fail(f"Cannot open {self.inbound_path}: {err.strerror}")
        try:
            names = os.listdir(inbound)
            wanted = self.coursedir.student_id if self.coursedir.student_id not in ("", "*") else None
            by_student: dict[str, list[dict]] = {}
            for name in sorted(names):
                parts = name.split("+")
                if len(parts) < 3 or parts[1] != self.coursedir.assignment_id:
                    continue
                student = parts[0]
                if wanted is not None and student != wanted:
                    continue
                record = self._record(inbound, name, student, parts[2])
                if record is not None:
                    by_student.setdefault(student, []).append(record)
        finally:
            os.close(inbound)
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                self.duedate = gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                self.duedate = None
        self.src_records = [self._choose(records) for records in by_student.values()]

    def _record(self, inbound: int, name: str, student: str, stamp: str) -> dict | None:
        """The record of the folder ``name`` if it is ``student``'s own, else None (refused, one line)."""
        if not is_student_id(student):
            self.log.error(f"collect: refused {shown(name)}: its name does not begin with a student id")
            return None
        try:
            timestamp = parse_utc(stamp)
        except Exception:  # dateutil raises several types
            self.log.error(f"collect: refused {shown(name)}: its name holds no time after the assignment")
            return None
        try:
            fd = os.open(name, _DIR, dir_fd=inbound)
        except OSError as err:
            self.log.error(f"collect: refused {shown(name)}: it is not a folder that opens ({err.strerror})")
            return None
        try:
            owner = os.fstat(fd).st_uid
        finally:
            os.close(fd)
        if problem := self._not_owned(name, student, owner):
            self.log.error(problem)
            return None
        return {"username": student, "filename": name, "timestamp": timestamp}

    @staticmethod
    def _not_owned(name: str, student: str, owner: int) -> str:
        """Why the folder ``name``, owned by ``owner``, is not ``student``'s submission (one line; "" when it is)."""
        uid = account_uid(student)
        if uid is None:
            return (
                f"collect: refused {shown(name)}: {student} has no account of her own here; its owner is {login(owner)}"
            )
        if owner != uid:
            return f"collect: refused {shown(name)}: it claims to be {student}'s but is owned by {login(owner)}"
        return ""

    def _choose(self, records: list[dict]) -> dict:
        newest = sorted(records, key=lambda r: r["timestamp"], reverse=True)
        if self.duedate is not None and self.before_duedate:
            before = [r for r in newest if r["timestamp"] <= self.duedate]
            return (before or newest)[0]
        return newest[0]

    def copy_files(self):
        if not self.src_records:
            self.log.warning(
                "No submissions of '%s' for course '%s' to collect",
                self.coursedir.assignment_id,
                self.coursedir.course_id,
            )
        for rec in sorted(self.src_records, key=lambda r: r["username"]):
            try:
                self._collect_one(rec)
            except Refused as refused:
                self.log.error(str(refused))
            except Exception as err:  # one student's trouble never stops the others'
                why = (err.strerror if isinstance(err, OSError) else "") or first_line(err)
                self.log.error(f"collect: refused {shown(rec['filename'])}: it could not be copied ({why})")

    def _collect_one(self, rec: dict) -> None:
        student, assignment = rec["username"], self.coursedir.assignment_id
        dest = self.coursedir.format_path(self.coursedir.submitted_directory, student, assignment)
        if os.path.isdir(dest):
            existing = self._existing_timestamp(dest)
            newer = existing is None or rec["timestamp"] > existing
            if not (self.update and newer) and not (self.before_duedate and existing != rec["timestamp"]):
                self.log.info("No newer submission to collect: %s %s", student, assignment)
                return
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        inbound = os.open(self.inbound_path, _DIR)
        try:
            top = os.open(rec["filename"], _DIR, dir_fd=inbound)
        finally:
            os.close(inbound)
        try:
            info = os.fstat(top)
            if problem := self._not_owned(rec["filename"], student, info.st_uid):  # again, on the descriptor read
                raise Refused(problem)
            entries = self._scan(top, student, rec["filename"])
            fresh = tempfile.mkdtemp(prefix=f".{assignment}.collecting-", dir=os.path.dirname(dest))
            try:
                self._copy(top, entries, fresh, student)
                self._set_mode(fresh, info.st_mode, folder=True)
                self._replace(fresh, dest)
            except BaseException:
                shutil.rmtree(fresh, ignore_errors=True)
                raise
        finally:
            os.close(top)
        self.log.info("Collected submission: %s %s (%s)", student, assignment, shown(rec["filename"]))

    def _existing_timestamp(self, dest: str):
        """The time in the collected copy's ``timestamp.txt`` (the student wrote it): None when it holds none."""
        try:
            return parse_utc(read_regular(Path(dest) / "timestamp.txt", 200).decode("utf-8", "replace").strip())
        except Exception:  # missing, not a file, too long, not a time
            return None

    def _ignored(self, name: str, folder: bool) -> bool:
        """nbgrader's own ``CourseDirectory.ignore`` and ``include``, as its copy applies them."""
        if any(fnmatch.fnmatch(name, pattern) for pattern in self.coursedir.ignore):
            return True
        include = self.coursedir.include
        return not folder and bool(include) and not any(fnmatch.fnmatch(name, p) for p in include)

    def _scan(self, top: int, student: str, folder: str) -> list[Entry]:
        """What will be copied (folders before what they hold), checked before any byte is read: every entry
        looked at through its folder's descriptor without following links, the folders walked by descriptor;
        within the limits, or :class:`Refused` as soon as a limit is passed (a huge folder is not read to its end)."""
        entries: list[Entry] = []
        seen = total = 0
        uid = account_uid(student)
        stack: list[tuple[str, int]] = [("", os.dup(top))]
        try:
            while stack:
                where, fd = stack.pop()
                try:
                    with os.scandir(fd) as listing:
                        for item in listing:
                            seen += 1
                            if seen > self.max_files:
                                raise Refused(
                                    f"collect: refused {shown(folder)}: {student}'s submission holds more than "
                                    f"{self.max_files} files and folders (OwnedCollect.max_files)"
                                )
                            info = os.stat(item.name, dir_fd=fd, follow_symlinks=False)
                            path = os.path.join(where, item.name)
                            if self._ignored(item.name, stat.S_ISDIR(info.st_mode)):
                                continue
                            if problem := self._file_problem(info, uid, path, student):
                                self.log.error(problem)
                                continue
                            entries.append(Entry(path, info))
                            if stat.S_ISDIR(info.st_mode):
                                stack.append((path, os.open(item.name, _DIR, dir_fd=fd)))
                            else:
                                total += info.st_size
                                if total > self.max_total_mb * 2**20:
                                    raise Refused(
                                        f"collect: refused {shown(folder)}: {student}'s submission holds more than "
                                        f"{self.max_total_mb} MB (OwnedCollect.max_total_mb)"
                                    )
                finally:
                    os.close(fd)
        finally:
            for _, fd in stack:
                os.close(fd)
        return entries

    def _file_problem(self, info: os.stat_result, uid: int | None, path: str, student: str) -> str:
        """Why the entry ``path`` (status ``info``) of ``student``'s submission is left out, one line ("" when
        it is copied)."""
        path = shown(path)
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            return f"collect: left out {path} of {student}: it is {kind(info.st_mode)}, not a regular file"
        if info.st_uid != uid:
            if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                owner = login(info.st_uid)
                return (
                    f"collect: left out {path} of {student}: a hard link ({info.st_nlink} names) to a file of {owner}"
                )
            return f"collect: left out {path} of {student}: it is owned by {login(info.st_uid)}, not by {student}"
        if stat.S_ISREG(info.st_mode) and info.st_size > self.max_file_mb * 2**20:
            size, limit = info.st_size // 2**20, self.max_file_mb
            return f"collect: left out {path} of {student}: {size} MB, more than {limit} MB (OwnedCollect.max_file_mb)"
        return ""

    def _copy(self, top: int, entries: list[Entry], fresh: str, student: str) -> None:
        """Copy ``entries`` (folders before their files) from under ``top`` into the new folder ``fresh``."""
        uid = account_uid(student)
        for entry in entries:
            parent, name = os.path.split(entry.path)
            src_dir = self._open_dir(top, parent)
            try:
                if stat.S_ISDIR(entry.info.st_mode):
                    os.mkdir(os.path.join(fresh, entry.path), 0o700)
                    self._set_mode(os.path.join(fresh, entry.path), entry.info.st_mode, folder=True)
                    continue
                fd = os.open(name, _FILE, dir_fd=src_dir)
            finally:
                os.close(src_dir)
            try:
                info = os.fstat(fd)
                same = (info.st_dev, info.st_ino) == (entry.info.st_dev, entry.info.st_ino)
                if not same:
                    self.log.error(f"collect: left out {shown(entry.path)} of {student}: it was replaced meanwhile")
                    continue
                if problem := self._file_problem(info, uid, entry.path, student):
                    self.log.error(problem)
                    continue
                self._copy_file(fd, info, os.path.join(fresh, entry.path))
            finally:
                os.close(fd)

    @staticmethod
    def _open_dir(top: int, relative: str) -> int:
        fd = os.dup(top)
        for part in filter(None, relative.split(os.sep)):
            inner = os.open(part, _DIR, dir_fd=fd)
            os.close(fd)
            fd = inner
        return fd

    def _copy_file(self, src: int, info: os.stat_result, target: str) -> None:
        """At most ``info.st_size`` bytes of ``src`` into a new file ``target`` (its mode and times kept)."""
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            left = info.st_size
            while left > 0:
                chunk = os.read(src, min(_CHUNK, left))
                if not chunk:
                    break
                os.write(out, chunk)
                left -= len(chunk)
            os.utime(out, ns=(info.st_atime_ns, info.st_mtime_ns))
        finally:
            os.close(out)
        self._set_mode(target, info.st_mode, folder=False)

    def _set_mode(self, path: str, mode: int, folder: bool) -> None:
        """The source's permission bits (no set-id bits), shared with the staff group as nbgrader's copy does."""
        mode = stat.S_IMODE(mode) & 0o777
        if self.coursedir.groupshared:
            mode |= 0o2770 if folder else 0o660
        os.chmod(path, mode, follow_symlinks=False)

    def _replace(self, fresh: str, dest: str) -> None:
        """``fresh`` becomes ``dest``; an earlier ``dest`` is removed only once the new one is in place."""
        if os.path.lexists(dest):
            old = tempfile.mkdtemp(prefix=f".{os.path.basename(dest)}.old-", dir=os.path.dirname(dest))
            os.rename(dest, os.path.join(old, "previous"))
            os.rename(fresh, dest)
            shutil.rmtree(old, ignore_errors=True)
            self.log.info("Updating submission: %s", dest)
        else:
            os.rename(fresh, dest)
