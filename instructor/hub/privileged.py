"""The staff's one privileged path: the four steps that need root, through one sudo rule, and nothing else.

Grading runs student code in the sandbox (root: it switches uids and makes
cgroups), and the exchange is root's (:mod:`instructor.coursedir.exchange`),
so releasing, collecting, grading and releasing feedback need root; nothing
else a term needs does. ``course hub`` writes::

    <hub dir>/bin/course-privileged          root:root 0755, runs :func:`main` with this course baked in
    /etc/sudoers.d/course-<staff group>      %<staff group> ALL=(root) NOPASSWD: <that script>

and staff servers get ``$COURSE_PRIVILEGED`` (the script) and ``<hub dir>/bin``
on ``PATH``. The script takes exactly these verbs, with names checked::

    release A [--force]              course release-to-exchange A
    collect A                        nbgrader collect --update A (a re-submission replaces the older one),
                                     with the course's collect (:mod:`instructor.hub.collect`)
    grade [-a A] [-s S] [--force]    course grade (the sandbox)
    release-feedback A               nbgrader release_feedback A, from root's copy of the feedback (feedback_copy)

Why a sudo rule rather than a hub service: the kernel and sudo decide who may
(membership of the staff group, which ``course hub`` keeps equal to
staff.csv), the command line is the whole interface (no listener running as
root, no token to leak), sudo logs each use, and the same command works
from a terminal, from ``course grade`` and from the formgrader's server.
"""

from __future__ import annotations

import argparse
import grp
import os
import pwd
import re
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

from instructor.coursedir.ids import is_student_id
from instructor.errors import CourseError
from instructor.hub.pinned import pinned
from instructor.hub.staff import Untrusted, read_trusted

#: what staff servers find the script under
ENV = "COURSE_PRIVILEGED"
NAME = "course-privileged"
SUDOERS = Path("/etc/sudoers.d")
#: an assignment's name as the course's folders name them (no path, no option)
_ASSIGNMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
#: the PATH root's steps run with (sudo's secure_path, the Python of the course first)
_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: nbgrader's collect as the hub needs it: only a student's own folder and files, within limits
COLLECT = "--ExchangeFactory.collect=instructor.hub.collect.OwnedCollect"


def script_text(course_dir: Path, group: str, code: Path, root: Path | None, key: Path | None = None) -> str:
    """The wrapper sudo runs: this Python, isolated (-I: no PYTHON* variables, no user site), this course."""
    return "\n".join(
        [
            f"#!{sys.executable} -I",
            f'"""The privileged steps of the course in {course_dir} for the group {group} (by `course hub`)."""',
            "import sys",
            "",
            f"sys.path.insert(0, {str(code)!r})",
            "from instructor.hub.privileged import main",
            "",
            f"sys.exit(main({str(course_dir)!r}, {group!r}, sys.argv[1:], root={str(root) if root else None!r}, "
            f"key={str(key) if key else None!r}))",
            "",
        ]
    )


def sudoers_text(group: str, script: Path) -> str:
    return (
        f"# written by `course hub`: the staff group {group} runs the course's privileged steps as root, nothing else\n"
        f"%{group} ALL=(root) NOPASSWD: {script}\n"
    )


def _root_only(path: Path) -> bool:
    """True when only root can change ``path`` and every folder above it."""
    for p in [path, *path.parents]:
        info = os.stat(p)
        if info.st_uid != 0 or info.st_mode & 0o022 and not (info.st_mode & stat.S_ISVTX):
            return False
    return True


def code_folder() -> Path:
    """The folder this ``instructor`` package is imported from."""
    return Path(__file__).resolve().parents[2]


def install(
    hub_dir: Path,
    course_dir: Path,
    group: str,
    root: Path | None = None,
    sudoers: Path = SUDOERS,
    key: Path | None = None,
) -> tuple[Path, Path]:
    """Write the script and the sudo rule (checked with ``visudo -c``); returns both paths.

    ``root`` is the course repository whose ``solutions/`` root releases and
    grades from (default: the one the course directory records, else this
    checkout); it may be root's alone, out of the staff's and the students' sight. ``key`` is the file of the
    hidden checks' key root's grading step uses (:mod:`instructor.coursedir.hidden_seed`), in a folder of root's.
    """
    code = code_folder()
    # the code, the interpreter, and the folder first on root's steps' PATH (bwrap, mount, ... are looked up there)
    for path in (code / "instructor", Path(sys.executable).resolve(), Path(sys.executable).parent):
        if not _root_only(path):
            raise CourseError(
                f"{path} can be changed by someone other than root, and root would run it for the "
                "staff: install the course where only root writes (a venv under /opt)."
            )
    folder = hub_dir / "bin"
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o755)
    script = folder / NAME
    script.write_text(script_text(course_dir.resolve(), group, code, root.resolve() if root else None, key))
    os.chmod(script, 0o755)
    rule = sudoers / f"course-{group}"
    draft = sudoers / f".course-{group}.draft"  # sudo skips names with a dot
    draft.write_text(sudoers_text(group, script))
    os.chmod(draft, 0o440)
    checked = subprocess.run(["visudo", "-c", "-q", "-f", str(draft)], capture_output=True, text=True)
    if checked.returncode != 0:
        draft.unlink()
        raise CourseError(f"visudo refused the rule for {group}: {checked.stdout.strip()} {checked.stderr.strip()}")
    os.replace(draft, rule)
    return script, rule


def _assignment(text: str) -> str:
    if not _ASSIGNMENT.match(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not an assignment name")
    return text


def _student(text: str) -> str:
    if not is_student_id(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a student id")
    return text


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=NAME, description="The course's steps that need root, for its staff.")
    verbs = p.add_subparsers(dest="verb", required=True)
    release = verbs.add_parser("release", help="course release-to-exchange A")
    release.add_argument("assignment", type=_assignment)
    release.add_argument("--force", action="store_true")
    verbs.add_parser("collect", help="nbgrader collect --update A").add_argument("assignment", type=_assignment)
    grade = verbs.add_parser("grade", help="course grade")
    grade.add_argument("--assignment", "-a", action="append", type=_assignment, default=[])
    grade.add_argument("--student", "-s", action="append", type=_student, default=[])
    grade.add_argument("--force", action="store_true")
    verbs.add_parser("release-feedback", help="nbgrader release_feedback A").add_argument(
        "assignment", type=_assignment
    )
    return p


def _caller(group: str) -> str:
    """Who asked (sudo's $SUDO_USER), refused unless root or in ``group``."""
    name = os.environ.get("SUDO_USER", "") or pwd.getpwuid(os.getuid()).pw_name
    if name != "root" and name not in grp.getgrnam(group).gr_mem:
        raise CourseError(f"{name} is not in the course's staff group {group}.")
    return name


def _python(course_dir: Path, module: str, *args: str, key: str | None = None) -> int:
    """``python -m module args`` as root for ``course_dir``, with an environment of root's making.

    It runs in a fresh empty folder of root's, not in the course directory, which the staff write: ``python -m``
    puts its working folder first on ``sys.path``, and so does every nbgrader command (its ``init_syspath``), so
    root would import a grader's ``nbgrader.py`` or ``instructor/`` planted beside ``nbgrader_config.py``
    (issue 58). ``course`` is told the directory (``--course-dir``), nbgrader ``--CourseDirectory.root``, and
    nbgrader loads the settings from there by path. PYTHONSAFEPATH (Python's -P) keeps the working folder of
    every descendant off ``sys.path`` as well; the sandbox builds its own environment and puts the student's
    folder on her kernel's path itself.
    """
    # this same course code for nbgrader's and course's own processes; nothing else of the caller's
    env = {
        "PATH": f"{Path(sys.executable).parent}:{_PATH}",
        "HOME": "/root",
        "PYTHONPATH": str(code_folder()),
        "PYTHONSAFEPATH": "1",
    }
    for name in ("LANG", "LC_ALL", "TZ", "SUDO_USER"):  # SUDO_USER: the grade journal names who asked (checked)
        if name in os.environ:
            env[name] = os.environ[name]
    if key:  # the hidden checks' key: root's, in the hub's state folder, out of the staff's reach
        from instructor.coursedir.hidden_seed import KEY_ENV  # here: a refused call costs no import

        env[KEY_ENV] = key
    if module == "nbgrader":
        args = (*args, f"--CourseDirectory.root={course_dir}")
    with tempfile.TemporaryDirectory(prefix="course-privileged-") as empty:  # root's, 0700
        # -P as well as PYTHONSAFEPATH: neither the working folder nor a script's folder comes first on sys.path
        return subprocess.run([sys.executable, "-P", "-m", module, *args], cwd=empty, env=env).returncode


def _release_feedback(course_path: Path, assignment: str) -> int:
    """``nbgrader release_feedback`` from a copy of the staff's feedback folder that only root can write
    (:mod:`instructor.hub.feedback_copy`): nbgrader reads and copies by path, root must not follow the staff's."""
    from instructor.hub.feedback_copy import copy_feedback

    with tempfile.TemporaryDirectory(prefix="course-feedback-") as kept:  # root's, 0700
        for line in copy_feedback(course_path, assignment, Path(kept)):
            print(f"{NAME}: {line}", file=sys.stderr, flush=True)
        return _python(
            course_path, "nbgrader", "release_feedback", assignment, f"--CourseDirectory.feedback_directory={kept}"
        )


def _require_root_settings(course_path: Path) -> None:
    """Refuse the step unless the course directory's settings are root's alone: the data (nbgrader_config.json,
    which names the exchange and the gradebook root writes) and nbgrader_config.py, the one constant line of
    ``course init`` (nbgrader runs it: root runs nothing else of the directory)."""
    from instructor.coursedir.directory import CONFIG_NAME, CONFIG_TEXT, SETTINGS_NAME

    for name in (SETTINGS_NAME, CONFIG_NAME):
        path = course_path / name
        try:
            text = read_trusted(path, {0})
        except (Untrusted, OSError) as err:
            why = err if isinstance(err, Untrusted) else err.strerror
            raise CourseError(
                f"{path} is not root's alone ({why}): root reads it for the staff, so root must look at it and "
                "make it root's again (`course hub` says how)."
            ) from None
        if name == CONFIG_NAME and text != CONFIG_TEXT:
            raise CourseError(
                f"{path} is not the line `course init` writes (the settings are data in {SETTINGS_NAME}): root "
                "runs nothing else; run `course init` as root to write it again."
            )


def main(course_dir: str, group: str, argv: list[str], root: str | None = None, key: str | None = None) -> int:
    """Run one verb for a member of ``group`` on ``course_dir``, as root; the course directory re-shared after."""
    try:
        if os.geteuid() != 0:
            raise CourseError(f"{NAME} runs as root: `sudo {sys.argv[0]} ...`.")
        args = parser().parse_args(argv)
        who = _caller(group)
        course_path = Path(course_dir)
        if not course_path.is_absolute():
            raise CourseError(f"{course_dir} is not an absolute path: run `course hub` again.")
        os.umask(0o002)  # group-writable with the folders' setgid group; others keep read (the sandbox reads as 65534)
        os.chdir("/")  # root's, not the course directory the staff write (the caller's folder was sudo's choice)
        # the top folder sticky from the check to the end of the step: the settings root checked are the ones
        # nbgrader and `course` load by name (a grader may otherwise swap them in between; issue 58)
        with pinned(course_path):
            _require_root_settings(course_path)
            from instructor.hub.accounts import share_course_dir  # after the checks: a refused call costs no import

            where = ["--course-dir", course_dir, *(["--root", root] if root else [])]
            print(f"{NAME}: {' '.join(argv)} (for {who})", file=sys.stderr, flush=True)
            if args.verb == "release":
                force = ["--force"] if args.force else []
                status = _python(
                    course_path, "instructor", "release-to-exchange", args.assignment, *where, *force, key=key
                )
            elif args.verb == "collect":
                status = _python(course_path, "nbgrader", "collect", "--update", COLLECT, args.assignment)
            elif args.verb == "grade":
                passed = [f"--assignment={a}" for a in args.assignment] + [f"--student={s}" for s in args.student]
                force = ["--force"] * args.force
                status = _python(course_path, "instructor", "grade", *where, *passed, *force, key=key)
            else:
                status = _release_feedback(course_path, args.assignment)
            share_course_dir(course_path, grp.getgrnam(group).gr_gid)
        return status
    except CourseError as err:
        print(f"{NAME}: {err}", file=sys.stderr)
        return 1


def available(course_dir: Path) -> str | None:
    """The script, when this process is staff on the hub (not root, ``$COURSE_PRIVILEGED`` set for ``course_dir``)."""
    script = os.environ.get(ENV, "").strip()
    here = os.environ.get("COURSE_DIR", "").strip()
    if os.geteuid() == 0 or not script or not here or Path(here).resolve() != course_dir.resolve():
        return None
    return script


def call(script: str, *args: str) -> int:
    """``sudo -n <script> args``: the privileged step, as this staff member; its exit status."""
    print(f"as root, through the course's privileged path: sudo {script} {' '.join(args)}", flush=True)
    return subprocess.run(["sudo", "-n", script, *args]).returncode
