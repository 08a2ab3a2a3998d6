"""The course works from an installed package (issue 43, finding 3): the wheel, not the checkout.

The wheel built from this checkout is installed into a fresh venv under the
temporary folder (``--system-site-packages``, and the running venv's packages
when the suite runs in one, so the dependencies are the machine's and nothing
is downloaded; the course's own packages come from the
wheel, which the test checks), and ``course`` runs there, outside the
repository, as a hub's install would: init, release, grade, feedback,
export. The package carries no solutions (every student's server can read
it): the course directory records the repository at ``course init --root``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from instructor.cli import bench as course_bench
from instructor.paths import REPO_ROOT
from tests.factories import make_course

pytestmark = pytest.mark.installed


#: what a copy of a checkout that is no git work tree leaves out
UNTRACKED = shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__", "_build", ".ipynb_checkpoints")


def _tracked_copy(target: Path) -> Path:
    """The checkout's tracked files (as they are now) copied to ``target``: the build writes nothing into the repo."""
    listed = subprocess.run(["git", "-C", str(REPO_ROOT), "ls-files", "-z"], capture_output=True)
    if listed.returncode != 0:  # an unpacked archive, not a git work tree
        shutil.copytree(REPO_ROOT, target, ignore=UNTRACKED)
        return target
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = REPO_ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _borrow_running_venv(venv: Path) -> None:
    """When the suite itself runs in a venv (the README's way), ``--system-site-packages`` borrows the base
    interpreter's packages, not that venv's: the new venv also gets the running venv's site folders, by a ``.pth``
    file of plain paths (no import lines: the checkout's editable install stays out; the wheel's copy comes first).
    """
    if sys.prefix == sys.base_prefix:
        return
    running = dict.fromkeys(sysconfig.get_path(kind) for kind in ("purelib", "platlib"))
    site = subprocess.run(
        [str(venv / "bin/python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "borrowed-from-the-running-venv.pth").write_text("".join(f"{p}\n" for p in running))


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh venv holding the built wheel; returns its folder."""
    tmp = tmp_path_factory.mktemp("installed")
    source = _tracked_copy(tmp / "source")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(tmp / "wheels"),
            str(source),
        ],
        check=True,
        cwd=tmp,
    )
    wheel = next((tmp / "wheels").glob("seqmodels_course-*.whl"))
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(tmp / "venv")], check=True)
    _borrow_running_venv(tmp / "venv")
    # --ignore-installed: the machine's editable install of this checkout must not stand in for the wheel
    subprocess.run(
        [
            str(tmp / "venv/bin/python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--no-deps",
            "--ignore-installed",
            str(wheel),
        ],
        check=True,
        cwd=tmp,
    )
    return tmp / "venv"


def _env(tmp: Path, **more) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COURSE_DIR", "VIRTUAL_ENV")}
    # the dependencies' data files (nbconvert's templates) are in the machine's share/jupyter, which a venv that
    # borrows their packages does not search; a venv that installed them has them in its own
    shares = dict.fromkeys(str(Path(prefix) / "share/jupyter") for prefix in (sys.prefix, sys.base_prefix))
    data = os.pathsep.join(filter(None, [env.get("JUPYTER_PATH"), *shares]))
    return {**env, "HOME": str(tmp), "JUPYTER_PATH": data, **more}


def _course(venv: Path, tmp: Path, *args, code: int = 0, **env) -> str:
    if args[:1] == ("grade",) and "--unsafe" in args and code == 0 and os.geteuid() != 0:
        args = (*args, "--no-limits")  # no cgroup to write for a user who is not root (docs/trust.md)
    done = subprocess.run(
        [str(venv / "bin/course"), *map(str, args)], capture_output=True, text=True, cwd=tmp, env=_env(tmp, **env)
    )
    assert done.returncode == code, (
        f"course {' '.join(map(str, args))}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout + done.stderr


def test_the_packages_come_from_the_wheel(venv, tmp_path):
    """Are `instructor`, `course` and `course_data` imported from the venv, and no solutions/ installed?"""
    done = subprocess.run(
        [
            str(venv / "bin/python"),
            "-c",
            "import instructor, course, course_data, instructor.paths;"
            "print(instructor.__file__, course.__file__, course_data.__file__, "
            "(instructor.paths.REPO_ROOT / 'solutions').exists())",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(tmp_path),
        check=True,
    )
    *files, solutions = done.stdout.split()
    assert all(Path(f).is_relative_to(venv) for f in files), files
    assert solutions == "False"


def test_the_wheel_holds_no_benchmark(venv, tmp_path):
    """Does the wheel leave out benchmarks/ (a tool of the checkout), and does `course bench` from it say in one
    line where the benchmarks are?"""
    wheel = next((venv.parent / "wheels").glob("seqmodels_course-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
    assert "benchmarks" not in tops and not any("bench" in t for t in tops), sorted(tops)
    out = _course(venv, tmp_path, "bench", code=1)
    assert out.strip() == "course bench: " + course_bench.CHECKOUT_ONLY, out


def test_every_step_of_a_term_runs_from_the_installed_package(venv, tmp_path):
    """Without a recorded repository, is the answer one sentence (was: "no solutions folder in site-packages",
    and a FileNotFoundError traceback from `course grade`)? With `course init --root`, do release, release to
    the exchange, grade, feedback and both exports work?"""
    repo = make_course(tmp_path / "repo")
    cd = tmp_path / "cd"
    env = {"COURSE_DIR": str(cd)}
    _course(venv, tmp_path, "init", "--exchange", tmp_path / "exchange", **env)
    for command in (["release-to-exchange", "01_toy"], ["grade", tmp_path, "--unsafe"]):
        out = _course(venv, tmp_path, *command, code=1, **env)
        assert "installed package, which carries no solutions" in out and "Traceback" not in out, out
    assert "--root" in _course(venv, tmp_path, "init", "--help")
    _course(venv, tmp_path, "release", "--root", repo)  # notebooks/ of the repository, from its solutions/
    out = _course(venv, tmp_path, "init", "--root", repo, **env)
    assert f"repository:    {repo}" in out
    assert "released 01_toy" in _course(venv, tmp_path, "release-to-exchange", "01_toy", "02_toy", **env)
    assert (tmp_path / "exchange/seqmodels/outbound/01_toy/01_toy.ipynb").is_file()
    subs = tmp_path / "subs"
    for student, folder in (("amy", "solutions"), ("bob", "notebooks")):
        (subs / student / "01_toy").mkdir(parents=True)
        shutil.copy(repo / folder / "01_toy/01_toy.ipynb", subs / student / "01_toy")
    out = _course(venv, tmp_path, "grade", subs, "--unsafe", **env)
    assert "2 graded" in out, out
    out = _course(venv, tmp_path, "feedback", **env)
    assert (cd / "feedback/amy/01_toy/01_toy.html").is_file(), out
    _course(venv, tmp_path, "export", **env)
    assert "amy" in (cd / "grades.csv").read_text()
    _course(venv, tmp_path, "export", "--format", "canvas", **env)
    assert (cd / "canvas.csv").is_file()


#: run by the installed venv's python: a notebook whose student imports her own module, graded in the sandbox
_OWN_MODULE = """\
import sys
from pathlib import Path

from nbformat.v4 import new_code_cell, new_notebook

from instructor import sandbox

work = Path(sys.argv[1])
(work / "my_helper.py").write_text("ANSWER = 42\\n")
(work / "ipykernel_launcher.py").write_text("raise SystemExit('a student file ran as the kernel started')\\n")
nb = new_notebook(
    cells=[new_code_cell("import my_helper\\nprint('helper', my_helper.ANSWER)")],
    metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
)
run = sandbox.run_notebook(
    nb,
    [work / "my_helper.py", work / "ipykernel_launcher.py"],
    sandbox.Limits(cell_timeout=20, notebook_budget=60),
    sandbox.detect(),
)
print(run.status, "".join(o.get("text", "") for o in run.notebook.cells[0].outputs).strip())
"""


def test_grading_from_the_wheel_imports_a_students_own_module(venv, tmp_path):
    """The sandbox, run by the installed package: does a notebook import the student's own module from its
    folder (a student's helpers are hers to use), while her ``ipykernel_launcher.py`` does not run as the kernel
    starts?"""
    from tests.system import require_sandbox

    require_sandbox()
    (tmp_path / "work").mkdir()
    done = subprocess.run(
        [str(venv / "bin/python"), "-c", _OWN_MODULE, str(tmp_path / "work")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(tmp_path),
        timeout=300,
    )
    assert done.stdout.split() == ["ok", "helper", "42"], done.stdout + done.stderr[-3000:]
