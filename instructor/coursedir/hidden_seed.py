"""The seed of a submission's hidden inputs: the course's key, the student and the notebook's bytes.

Hidden checks draw what they hand the student's code from
:func:`course.draws.hidden_rng`; the autograder seeds it, in the kernel and in its
judging process alike, with :func:`seed_for`: an HMAC-SHA256 under the
course's key of the assignment, the student and the SHA-256 of the notebook
as intake read it. The same submission graded again draws the same inputs
(the same grade); another student, another assignment or a changed notebook
draws others, and without the key nobody can tell which.

The key is 32 random bytes in a file only its owner reads (mode 0600), made
on first use. ``course grade`` keeps it in the course directory
(``CourseDir.hidden_key``); on the hub, root's grading step is given one in the
hub's state folder (root's alone, 0700) through :data:`KEY_ENV`, out of the
staff's reach. It is opened without following a link and judged on the open
file: a key that another account owns, or that anyone else may read, is
refused rather than used.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import secrets
import stat
import tempfile
from pathlib import Path

from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError

#: where root's grading step on the hub finds its key instead (set by instructor.hub.privileged)
KEY_ENV = "COURSE_HIDDEN_KEY"
#: bytes of a key
KEY_BYTES = 32
#: bits of a seed: numpy's generators take any non-negative int; 63 keep it an int64 everywhere
SEED_BITS = 63


def key_file(course_dir: CourseDir) -> Path:
    """Where the key of ``course_dir`` lives: :data:`KEY_ENV` when set, else the course directory."""
    named = os.environ.get(KEY_ENV, "")
    return Path(named) if named else course_dir.hidden_key


def read_key(path: Path) -> bytes:
    """The key in ``path``, made there first if there is none; raises CourseError for a key it must not use."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return _make_key(path)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise CourseError(f"{path} is a link: the key of the hidden inputs must be a file of its own") from None
        raise CourseError(f"the key of the hidden inputs cannot be read: {err}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
            raise CourseError(
                f"{path} must be a file that only you can read (yours, mode 600): it keeps the hidden checks' "
                "inputs secret. Remove it to make a new key (hidden inputs already drawn will not be drawn again)."
            )
        key = os.read(fd, 2 * KEY_BYTES + 2).strip()
    finally:
        os.close(fd)
    try:
        raw = bytes.fromhex(key.decode("ascii"))
    except ValueError:
        raw = b""
    if len(raw) != KEY_BYTES:
        raise CourseError(f"{path} does not hold a key ({2 * KEY_BYTES} hex digits); remove it to make a new one")
    return raw


def _make_key(path: Path) -> bytes:
    """Make a key at ``path`` whole or not at all: written to a private file beside it, then linked into place, so a
    grading run reading at the same moment never sees it half written; a key made first by another run wins."""
    raw = secrets.token_bytes(KEY_BYTES)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, draft = tempfile.mkstemp(prefix=".hidden-inputs.", dir=path.parent)  # mode 0600
    except OSError as err:
        raise CourseError(f"the key of the hidden inputs cannot be made in {path}: {err}") from None
    try:
        try:
            os.write(fd, raw.hex().encode() + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(draft, path)
        except FileExistsError:  # another grading run made it first: use theirs
            return read_key(path)
        except OSError as err:
            raise CourseError(f"the key of the hidden inputs cannot be made in {path}: {err}") from None
    finally:
        os.unlink(draft)
    return raw


def seed_for(key: bytes, assignment: str, student: str, notebook_sha256: str) -> int:
    """The seed of the hidden inputs of one submission (an int below 2**63)."""
    message = "\0".join([assignment, student, notebook_sha256]).encode()
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def variant_seed_for(key: bytes, assignment: str, student: str) -> int:
    """The seed of a student's own parameters in an assignment (:func:`course.draws.variant`): no notebook bytes
    in it, so it is the same from her first run to her last submission; never the seed of her hidden inputs."""
    return seed_for(key, "variant:" + assignment, student, "")


def variant_seeds(key: bytes, assignment: str, students) -> dict[str, int]:
    """Each of ``students``' variant seed in ``assignment``: what the student version's ``variants.json`` holds."""
    return {student: variant_seed_for(key, assignment, student) for student in sorted(students)}


def seed_submission(key: bytes, sub) -> None:
    """Give ``sub`` (a Submission) the seeds of its hidden inputs and of its variant."""
    sub.hidden_seed = seed_for(key, sub.assignment, sub.student, sub.sha256)
    sub.variant_seed = variant_seed_for(key, sub.assignment, sub.student)


def seed_submissions(course_dir: CourseDir, subs: list) -> Path:
    """Give each of ``subs`` (Submissions, as intake found them) its seeds (:func:`seed_submission`); returns the
    key's file. Read once, by the process that coordinates a grading run: workers elsewhere need no key."""
    path = key_file(course_dir)
    key = read_key(path)
    for sub in subs:
        seed_submission(key, sub)
    return path
