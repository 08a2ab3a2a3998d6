"""The staff's one privileged path: a grader releases through sudo, a student cannot, names are checked.

Real accounts (a student and a grader), the staff group, the script and the
sudo rule as ``course hub`` writes them; every command runs in a mount
namespace whose /etc/sudoers.d is its own (tests/hub/namespace.py), so the
machine keeps no rule. About a minute (one release of 01_rnn through sudo).
"""

from __future__ import annotations

import grp
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from shlex import quote
from types import SimpleNamespace

import pytest

from instructor.hub import accounts, pinned, privileged
from instructor.paths import REPO_ROOT
from tests.hub.harness import GRADER, STUDENTS, course, remove_accounts
from tests.hub.namespace import wrap
from tests.system import require_root, require_tools

AMY = STUDENTS[0]
GROUP = f"staffpriv{GRADER.removeprefix('grade')}"


@pytest.fixture(scope="module")
def hub():
    require_root("the test makes Unix accounts")
    require_tools("sudo", "visudo", "unshare", "useradd", "runuser")
    remove_accounts((AMY, GRADER), GROUP)
    scratch = Path(tempfile.mkdtemp(prefix="course-privileged-test-", dir="/tmp"))
    os.chmod(scratch, 0o755)
    try:
        for name in (AMY, GRADER):
            subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True)
        course_dir, exchange = course(scratch)
        made = accounts.Made(scratch / "hub" / "state" / "made.json")
        gid = accounts.staff_group(GROUP, [GRADER], made)
        accounts.share_course_dir(course_dir, gid)
        rules = scratch / "sudoers"
        rules.mkdir()
        key = scratch / "hub" / "state" / "hidden-inputs.key"
        script, rule = privileged.install(
            scratch / "hub", course_dir, GROUP, root=private_repo(scratch), sudoers=rules, key=key
        )
        yield SimpleNamespace(
            scratch=scratch, course_dir=course_dir, exchange=exchange, script=script, rule=rule, gid=gid, key=key
        )
        pinned.lock_path(course_dir.resolve()).unlink(missing_ok=True)  # root's steps' lock, in /run
    finally:
        remove_accounts((AMY, GRADER), GROUP)
        shutil.rmtree(scratch, ignore_errors=True)


def private_repo(scratch: Path) -> Path:
    """A copy of the repository's solutions/ that only root can read (the namespace hides the real one)."""
    repo = scratch / "private"
    repo.mkdir(mode=0o700)
    shutil.copytree(REPO_ROOT / "solutions", repo / "solutions")
    return repo


def as_user(hub, user: str, *command: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``command`` run as ``user`` where the sudo rule is installed (the hub's view of the machine)."""
    variables = [f"{k}={v}" for k, v in {"HOME": f"/home/{user}", **(env or {})}.items()]
    line = " ".join(quote(w) for w in ["runuser", "-u", user, "--", "env", *variables, *command])
    shell = f"cp {quote(str(hub.rule))} /etc/sudoers.d/ && cd /tmp && {line}"
    return subprocess.run(wrap(["sh", "-c", shell], hub.scratch), capture_output=True, text=True, timeout=600)


def test_a_grader_releases_as_root_and_the_course_directory_stays_shared(hub):
    done = as_user(hub, GRADER, "sudo", "-n", str(hub.script), "release", "01_rnn")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    released = hub.exchange / "seqmodels" / "outbound" / "01_rnn" / "01_rnn.ipynb"
    assert os.lstat(released).st_uid == 0
    assert stat.S_IMODE(os.lstat(hub.exchange).st_mode) == 0o755  # nbgrader's release did not open it to all
    for path in (hub.course_dir / "gradebook.db", hub.course_dir / "release" / "01_rnn" / "01_rnn.ipynb"):
        info = os.lstat(path)
        assert info.st_gid == hub.gid and info.st_mode & 0o060 == 0o060 and not info.st_mode & 0o007, path
    assert stat.S_IMODE(os.lstat(hub.course_dir / "release").st_mode) == 0o2770


def test_a_student_cannot_use_it(hub):
    done = as_user(hub, AMY, "sudo", "-n", str(hub.script), "collect", "01_rnn")
    assert done.returncode != 0 and "password is required" in done.stderr, done


@pytest.mark.parametrize(
    "args",
    [
        ["grade", "--course-dir", "/etc"],
        ["collect", "../../etc"],
        ["collect", "--help-all"],
        ["release", "01_rnn", "--Exchange.root=/tmp"],
        ["bash"],
    ],
)
def test_only_its_verbs_and_names(hub, args):
    done = as_user(hub, GRADER, "sudo", "-n", str(hub.script), *args)
    assert done.returncode == 2 and "usage: course-privileged" in done.stderr, done


@pytest.mark.parametrize("name", ["nbgrader_config.json", "nbgrader_config.py"])
def test_a_settings_file_staff_could_change_is_refused(hub, name):
    settings = hub.course_dir / name
    os.chmod(settings, 0o660)
    try:
        done = as_user(hub, GRADER, "sudo", "-n", str(hub.script), "collect", "01_rnn")
    finally:
        os.chmod(settings, 0o640)
    assert done.returncode == 1 and f"{name} is not root's alone" in done.stderr, done


def test_root_runs_no_line_of_nbgrader_config_py_but_course_inits(hub):
    """nbgrader runs nbgrader_config.py: root's own file with a line added is refused too (issue 58)."""
    settings = hub.course_dir / "nbgrader_config.py"
    kept = settings.read_text()
    settings.write_text(kept + "\nc.Exchange.root = '/tmp'\n")
    try:
        done = as_user(hub, GRADER, "sudo", "-n", str(hub.script), "collect", "01_rnn")
    finally:
        settings.write_text(kept)
    assert done.returncode == 1 and "is not the line `course init` writes" in done.stderr, done


def test_course_grade_in_a_staff_terminal_goes_through_it(hub):
    env = {
        "COURSE_DIR": str(hub.course_dir),
        privileged.ENV: str(hub.script),
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
    }
    handed_in = hub.course_dir / "submitted" / AMY / "01_rnn"  # as collect leaves it: her unfilled notebook
    handed_in.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO_ROOT / "notebooks" / "01_rnn" / "01_rnn.ipynb", handed_in)
    done = as_user(hub, GRADER, sys.executable, "-m", "instructor", "grade", "-a", "01_rnn", env=env)
    assert "through the course's privileged path" in done.stdout, done
    assert "course-privileged: grade --assignment=01_rnn" in done.stderr, done
    assert grp.getgrnam(GROUP).gr_mem == [GRADER]
    # the hidden checks' key is root's, in the hub's state folder: never in the course directory the staff share
    assert f"hidden checks: inputs drawn for each submission (key: {hub.key})" in done.stdout, done
    info = hub.key.stat()
    assert info.st_uid == 0 and stat.S_IMODE(info.st_mode) == 0o600
    assert not (hub.course_dir / ".hidden-inputs.key").exists()
    peek = as_user(hub, GRADER, "cat", str(hub.key))
    assert peek.returncode != 0 and not peek.stdout


@pytest.mark.parametrize("module", ["nbgrader", "instructor"])
def test_root_imports_nothing_the_staff_put_in_the_course_directory(hub, module):
    """The course directory is the staff's to write and root's steps run there: a grader's ``nbgrader.py`` or
    ``instructor/`` beside ``nbgrader_config.py`` must not be what root's ``python -m`` imports (issue 58)."""
    mark = hub.scratch / f"ran-{module}"
    body = f"import os, sys\nopen({str(mark)!r}, 'w').write(f'{{os.getuid()}} {{sys.argv}}')\n"
    planted = f"{module}.py" if module == "nbgrader" else f"{module}/__init__.py"
    target = hub.course_dir / planted
    script = f"mkdir -p {quote(str(target.parent))} && printf %s {quote(body)} > {quote(str(target))}"
    os.chmod(hub.scratch, 0o777)  # the grader's module leaves its mark there
    try:
        assert as_user(hub, GRADER, "sh", "-c", script).returncode == 0
        verb = ["release-feedback", "01_rnn"] if module == "nbgrader" else ["release", "01_rnn"]
        done = as_user(hub, GRADER, "sudo", "-n", str(hub.script), *verb)
    finally:
        os.chmod(hub.scratch, 0o755)
        target.unlink(missing_ok=True)
        if target.parent != hub.course_dir:
            target.parent.rmdir()
    assert not mark.exists(), f"root ran the grader's {planted} (uid, command: {mark.read_text()})"
    assert "course-privileged: " in done.stderr, done


def test_settings_swapped_after_the_check_never_run_as_root(hub):
    """Root checks ``nbgrader_config.py`` and then nbgrader loads it by name, a second later, from the staff's
    folder: a grader who swaps it once the step has begun must not have his file run (issue 58)."""
    settings = hub.course_dir / "nbgrader_config.py"
    kept = settings.read_bytes()
    mark = hub.scratch / "ran-swapped"
    body = f"\nimport os\nopen({str(mark)!r}, 'w').write(str(os.getuid()))\n"
    swap = (
        f"cd {quote(str(hub.course_dir))} && log=$(mktemp) && cp nbgrader_config.py mine.py && "
        f"printf %s {quote(body)} >> mine.py && "
        f"(sudo -n {quote(str(hub.script))} release-feedback 01_rnn 2>$log & "
        # the helper prints its line once it has checked the settings, before nbgrader starts
        "until grep -q 'course-privileged: release-feedback' $log; do sleep 0.05; done; "
        "mv -f mine.py nbgrader_config.py; echo swapped=$?; wait; cat $log >&2)"
    )
    os.chmod(hub.scratch, 0o777)  # the grader's file leaves its mark there
    try:
        done = as_user(hub, GRADER, "sh", "-c", swap)
    finally:
        os.chmod(hub.scratch, 0o755)
        (hub.course_dir / "mine.py").unlink(missing_ok=True)
        if os.lstat(settings).st_uid != 0:
            settings.unlink()
            settings.write_bytes(kept)
            os.chown(settings, 0, hub.gid)
            os.chmod(settings, 0o640)
    assert not mark.exists(), f"root ran the grader's settings (uid {mark.read_text()}): {done.stdout}"
    assert "swapped=1" in done.stdout and "Operation not permitted" in done.stderr, done
    assert not os.stat(hub.course_dir).st_mode & stat.S_ISVTX  # the folder is the group's again after the step


def test_root_releases_feedback_without_following_the_staffs_links(hub):
    """nbgrader release_feedback reads the staff's feedback folder by path: a grader's link there must not make
    root copy a file of root's into the exchange, where students fetch feedback (issue 58)."""
    hidden = hub.scratch / "roots-alone"
    hidden.mkdir(mode=0o700)
    (hidden / "secret.html").write_text("ROOT-SECRET")
    (hidden / "secret.html").chmod(0o644)  # readable, but only through root's folder
    records = "printf %s '2026-12-07 10:00:00.000000 UTC' > timestamp.txt && printf %s s3cret > submission_secret.txt"
    plant = " && ".join(
        [
            f"cd {quote(str(hub.course_dir))}",
            f"mkdir -p feedback/{AMY}/01_rnn feedback/bob/01_rnn",
            f"cd feedback/{AMY}/01_rnn && printf %s '<p>well done</p>' > 01_rnn.html && {records}",
            f"cd ../../bob/01_rnn && ln -s {quote(str(hidden / 'secret.html'))} 01_rnn.html && {records}",
        ]
    )
    try:
        assert as_user(hub, GRADER, "sh", "-c", plant).returncode == 0
        done = as_user(hub, GRADER, "sudo", "-n", str(hub.script), "release-feedback", "01_rnn")
        released = {p.read_text() for p in hub.exchange.rglob("feedback/*.html")}
    finally:
        shutil.rmtree(hub.course_dir / "feedback", ignore_errors=True)
        shutil.rmtree(hidden)
        for page in hub.exchange.rglob("feedback/*.html"):  # the module's other tests start without feedback
            page.unlink()
    assert "<p>well done</p>" in released and not any("ROOT-SECRET" in text for text in released), released
    assert done.returncode == 0, done
    assert "feedback/bob/01_rnn/01_rnn.html: a link, left out" in done.stderr, done
