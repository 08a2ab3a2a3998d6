"""A term, end to end, on the toy course, with the commands the instructors' page gives.

Every command below is written in docs/instructors.md (the documentation's
page for instructors; "the README" below) with the course's
real names (01_rnn, /srv/nbgrader/exchange, ...); :func:`readme_command`
checks that and the test runs it with the toy course's names, as separate
processes: ``course`` and ``nbgrader`` as an instructor or a student types
them (students with HOMEs of their own). Only ``--root`` (the toy course
instead of this repository) is added to the two commands that read solutions/.
"""

from __future__ import annotations

import csv
import json
import os
import pwd
import re
import shlex
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nbformat
import pytest

from instructor.paths import REPO_ROOT
from tests.system import require_sandbox

README = (REPO_ROOT / "docs" / "instructors.md").read_text()
#: the README's names -> the toy term's (filled in by the fixture)
README_NAMES = {
    "A": "01_rnn",
    "EXCHANGE": "/srv/nbgrader/exchange",
    "ROSTER": "class.csv",
    "ID": "amy",
    "DUE": "2026-10-05 17:00 UTC",
    "CSV": "grades.csv",
}


def readme_command(template: str) -> str:
    """``template`` with the README's names, asserted to be written in the README."""
    text = template.format(**README_NAMES)
    assert text in README, f"README does not show the command: {text}"
    return text


class Term:
    """Runs README commands with the toy names, in a given folder, with a given HOME."""

    def __init__(self, tmp: Path, repo: Path):
        self.tmp, self.repo = tmp, repo
        self.course_dir = tmp / "seqmodels-grading"
        self.names = {"A": "01_toy", "EXCHANGE": str(tmp / "exchange"), "ROSTER": str(tmp / "class.csv")}
        self.env = {**os.environ, "COURSE_DIR": str(self.course_dir)}

    def run(self, template: str, cwd: Path | None = None, home: Path | None = None, extra=(), **names) -> str:
        """Run the README command ``template`` (``course``/``nbgrader`` with this Python); return stdout+stderr."""
        readme_command(template)
        words = shlex.split(template.format(**{**README_NAMES, **self.names, **names}))
        program = {"course": [sys.executable, "-m", "instructor"], "nbgrader": [sys.executable, "-m", "nbgrader"]}[
            words[0]
        ]
        env = dict(self.env, HOME=str(home)) if home else self.env
        done = subprocess.run(
            program + words[1:] + [str(e) for e in extra],
            cwd=cwd or self.tmp,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        out = done.stdout + done.stderr
        assert done.returncode == 0, f"{template} exited {done.returncode}:\n{out[-3000:]}"
        return out


def _fill_in(notebook: Path, solution: Path) -> None:
    """A student's work: the reference answers typed into the fetched notebook's answer cells."""
    answers = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in nbformat.read(str(solution), as_version=4).cells
        if c.get("metadata", {}).get("nbgrader", {}).get("solution")
    }
    nb = nbformat.read(str(notebook), as_version=4)
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            lines = answers[meta["grade_id"]].splitlines()
            cell.source = "\n".join(
                ln for ln in lines if "### BEGIN SOLUTION" not in ln and "### END SOLUTION" not in ln
            )
    nbformat.write(nb, str(notebook))


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """The whole term once; yields (Term, outputs by step)."""
    require_sandbox()
    from nbgrader.api import Gradebook

    from tests.factories import make_course

    tmp = tmp_path_factory.mktemp("term")
    repo = make_course(tmp / "repo")
    subprocess.run(
        [sys.executable, "-m", "instructor", "release", "--root", str(repo)], check=True, capture_output=True
    )
    t = Term(tmp, repo)
    out = {}
    (tmp / "class.csv").write_text(
        "id,first_name,last_name,email\namy,Amy,Adams,amy@example.org\nbob,Bob,Brown,bob@example.org\n"
        "carl,Carl,Cho,carl@example.org\ncat,Cat,Cole,cat@example.org\ndan,Dan,Dale,dan@example.org\n"
    )
    later = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%d %H:%M UTC")

    # instructor: course directory, roster, release; the grades before anyone could submit
    out["init"] = t.run('course init --exchange {EXCHANGE} --late-penalty 10 --due "{A}={DUE}"', DUE=later)
    out["roster"] = t.run("course roster import {ROSTER}")
    out["release"] = t.run("course release-to-exchange {A}", extra=["--root", repo])
    out["csv before the deadline"] = _export(t, tmp)
    out["canvas before the deadline"] = t.run("course export --format canvas")

    # students, each in a HOME of their own; zed is not on the roster; carl's account also submits as cat
    solution = repo / "solutions/01_toy/01_toy.ipynb"
    carl = _account("carl")
    for student in ("amy", "carl", "zed", "bob"):
        home = tmp / "home" / student
        home.mkdir(parents=True)
        t.run("nbgrader fetch_assignment {A} --course seqmodels --Exchange.root={EXCHANGE}", cwd=home, home=home)
        _fill_in(home / "01_toy/01_toy.ipynb", solution)
        t.run(
            "nbgrader submit {A} --course seqmodels --Exchange.root={EXCHANGE} --student {ID}",
            cwd=home,
            home=home,
            ID=student,
        )
        if student == "carl":
            t.run(
                "nbgrader submit {A} --course seqmodels --Exchange.root={EXCHANGE} --student {ID}",
                cwd=home,
                home=home,
                ID="cat",
            )
            # what the exchange holds when carl's own account ran both (the test runs as one user)
            for folder in (tmp / "exchange/seqmodels/inbound").glob("c*+01_toy+*"):
                for path in (folder, *folder.iterdir()):
                    os.chown(path, carl, carl)
        if student == "zed":
            # the deadline falls now: bob, who submits next, is late (by seconds: one day started, 10 %)
            time.sleep(1.1)
            now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
            out["due"] = t.run('course init --due "{A}={DUE}"', DUE=now)
            time.sleep(1.1)

    # instructor: collect, grade, a hand grade, regrade one student, feedback both ways, export
    out["collect"] = t.run("nbgrader collect --update {A}", cwd=t.course_dir)
    out["grade"] = t.run("course grade", extra=["--root", repo])
    _hand_grade(t.course_dir, "why", "amy", 1.0)
    out["regrade"] = t.run("course grade --assignment {A} --student {ID}", ID="amy", extra=["--root", repo])
    with Gradebook(f"sqlite:///{t.course_dir / 'gradebook.db'}") as gb:
        grade = gb.find_grade("why", "01_toy", "01_toy", "amy")
        out["hand grade after regrade"] = (grade.manual_score, grade.needs_manual_grade)
    out["course feedback"] = t.run("course feedback")
    out["course feedback html"] = {
        p.parent.parent.name: p.read_text() for p in (t.course_dir / "feedback").rglob("*.html")
    }
    shutil.rmtree(t.course_dir / "feedback")
    out["nbgrader feedback"] = t.run("nbgrader generate_feedback {A} --force", cwd=t.course_dir)
    out["nbgrader feedback html"] = {
        p.parent.parent.name: p.read_text() for p in (t.course_dir / "feedback").rglob("*.html")
    }
    out["release feedback"] = t.run("nbgrader release_feedback {A}", cwd=t.course_dir)
    home = tmp / "home" / "amy"
    out["fetch feedback"] = t.run(
        "nbgrader fetch_feedback {A} --course seqmodels --Exchange.root={EXCHANGE} --student {ID}",
        cwd=home,
        home=home,
        ID="amy",
    )
    out["fetched"] = [p.read_text() for p in (home / "01_toy" / "feedback").rglob("*.html")]
    out["export"] = t.run("course export --file {CSV}", CSV=str(tmp / "grades.csv"))
    with open(tmp / "grades.csv", newline="") as f:
        out["csv"] = {r["student_id"]: r for r in csv.DictReader(f)}
    keep = os.environ.get("COURSE_TERM_EXPORT")  # the closing note's copy
    if keep:
        shutil.copy(tmp / "grades.csv", keep)
    _rest_of_the_term(t, tmp, out)
    yield t, out


def _export(t: Term, tmp: Path, own_process: bool = True) -> dict[tuple[str, str], dict]:
    """`course export` now: its rows by (student, assignment).

    The grades after each step of the rest of the term are read with the same command in this process
    (``own_process=False``: the same environment and folder; each process costs seconds of imports); the
    first export and the term's last one run it as the instructor types it.
    """
    if own_process:
        t.run("course export --file {CSV}", CSV=str(tmp / "now.csv"))
    else:
        readme_command("course export --file {CSV}")
        _course(t, "export", "--file", tmp / "now.csv")
    with open(tmp / "now.csv", newline="") as f:
        return {(r["student_id"], r["assignment"]): r for r in csv.DictReader(f)}


def _account(name: str) -> int:
    """The uid of the login ``name``, made if the machine has none (nbgrader's exchange knows makers by login)."""
    import pwd

    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        if not shutil.which("useradd"):
            pytest.skip("useradd is needed to make a second account")
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
        return pwd.getpwnam(name).pw_uid


def _course(t: Term, *args) -> str:
    """A `course` command the README describes in words only (`course extend STUDENT A --days N`), run through
    instructor.cli.main in this process with the instructor's COURSE_DIR and folder (a fresh process costs seconds
    of imports; the README's commands run as processes); returns its stdout."""
    import contextlib
    import io

    from instructor.cli import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as env, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        env.setenv("COURSE_DIR", str(t.course_dir))
        env.chdir(t.tmp)
        code = main([str(a) for a in args])
    assert code == 0, out.getvalue() + err.getvalue()
    return out.getvalue()


def _rest_of_the_term(t: Term, tmp: Path, out: dict) -> None:
    """After the first export: a hand grade, a test fix, a re-submission after hand grading, an extension given
    and taken back, an override, a second assignment released; the grades exported after each step."""
    repo, step = t.repo, out.setdefault("steps", {})
    _hand_grade(t.course_dir, "why", "bob", 1.0)
    step["bob hand graded"] = _export(t, tmp, own_process=False)

    # a test fix: the message of add__values is corrected in solutions/ and the class regraded
    _edit_cell(
        repo / "solutions/01_toy/01_toy.ipynb",
        "add__values",
        lambda src: src.replace("assert add(1, 2) == 3", "assert add(1, 2) == 3, 'add(1, 2) should be 3'"),
    )
    out["test fix"] = t.run("course grade", extra=["--root", repo])
    step["test fix"] = _export(t, tmp, own_process=False)

    # amy rewrites her written answer after it was graded, and submits again (late now)
    home = tmp / "home" / "amy"
    _edit_cell(home / "01_toy/01_toy.ipynb", "why", lambda src: "I did not understand the question.")
    t.run(
        "nbgrader submit {A} --course seqmodels --Exchange.root={EXCHANGE} --student {ID}",
        cwd=home,
        home=home,
        ID="amy",
    )
    out["collect again"] = t.run("nbgrader collect --update {A}", cwd=t.course_dir)
    out["re-submission"] = t.run("course grade", extra=["--root", repo])
    step["re-submission"] = _export(t, tmp, own_process=False)

    _course(t, "extend", "amy", "01_toy", "--days", "3", "--because", "ill")
    step["extension"] = _export(t, tmp, own_process=False)
    _hand_grade(t.course_dir, "why", "amy", 0.5)
    step["amy hand graded again"] = _export(t, tmp, own_process=False)
    _course(t, "extend", "amy", "01_toy", "--remove")
    step["extension taken back"] = _export(t, tmp, own_process=False)

    _hand_grade(t.course_dir, "add__values", "carl", 1.0)  # a grader's override in the formgrader
    step["override"] = _export(t, tmp, own_process=False)

    # the next assignment, due in 30 days: nobody's zero yet
    later = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%d %H:%M UTC")
    t.run('course init --due "{A}={DUE}"', A="02_toy", DUE=later)
    t.run("course release-to-exchange {A}", A="02_toy", extra=["--root", repo])
    step["next assignment released"] = _export(t, tmp, own_process=False)
    out["canvas after"] = t.run("course export --format canvas")
    out["report"] = _course(t, "report", "01_toy")


def test_student_work_stays_in_the_course_directory(term):
    """Do collect and grade write into the course directory, and nothing into the repository?"""
    t, out = term
    assert (t.course_dir / "submitted/amy/01_toy/01_toy.ipynb").is_file()
    assert (t.course_dir / "autograded/bob/01_toy/01_toy.ipynb").is_file()
    assert not (t.repo / "submitted").exists() and not (t.repo / "gradebook.db").exists()
    assert f"course directory: {t.course_dir}" in out["grade"]


def test_grade_table_shows_hand_points_pending_and_late(term):
    """Does the table give autograded points, hand points given / max, pending points and the late penalty?"""
    _, out = term
    rows = {line.split()[0]: line for line in out["grade"].splitlines() if line.startswith(("amy ", "bob ", "zed "))}
    assert rows["amy"].split()[1:9] == ["01_toy", "2", "/", "2", "0", "/", "1", "1"]
    assert rows["bob"].split()[8:10] == ["1", "-0.2"]
    assert "not graded: zed is not on the roster" in rows["zed"]
    regraded = next(line for line in out["regrade"].splitlines() if line.startswith("amy "))
    assert regraded.split()[5:9] == ["1", "/", "1", "-"] and regraded.endswith("complete"), regraded
    assert "bob " not in out["regrade"]  # only the named student was graded and listed


def test_hand_grade_survives_a_regrade_unflagged(term):
    """Is a hand grade kept, and not flagged for review again, when the submission is regraded?"""
    _, out = term
    assert out["hand grade after regrade"] == (1.0, False)


@pytest.mark.parametrize("how", ["course feedback", "nbgrader feedback"])
def test_feedback_never_shows_hidden_tests(term, how):
    """Does feedback from `course feedback` and from nbgrader's own command leave out hidden tests and markers?"""
    _, out = term
    pages = out[f"{how} html"]
    assert set(pages) == {"amy", "bob", "carl"}
    for html in pages.values():
        assert "very secret" not in html and "-40" not in html
        assert "HIDDEN TESTS" not in html and "BEGIN SOLUTION" not in html and "MARK SCHEME" not in html
        assert "add: values" in html  # the course's template and preprocessors, not nbgrader's defaults


def test_student_fetches_feedback_without_hidden_tests(term):
    """Does the feedback a student fetches through the exchange hold no hidden test?"""
    _, out = term
    assert out["fetched"] and all("very secret" not in html for html in out["fetched"])


def test_export_cell_by_cell(term):
    """Does the CSV list every rostered student, penalise the late one, refuse the unrostered one, per task?"""
    _, out = term
    rows = out["csv"]
    assert set(rows) == {"amy", "bob", "carl", "cat", "dan", "zed"}
    amy, bob, cat, zed = rows["amy"], rows["bob"], rows["dan"], rows["zed"]
    assert (amy["first_name"], amy["last_name"], amy["email"]) == ("Amy", "Adams", "amy@example.org")
    assert {
        k: amy[k]
        for k in (
            "raw_score",
            "late_submission_penalty",
            "score",
            "max_score",
            "auto_points",
            "hand_points",
            "hand_max",
            "pending_points",
            "status",
            "reason",
            "01_toy:add__values",
            "01_toy:why",
        )
    } == {
        "raw_score": "3.0",
        "late_submission_penalty": "0.0",
        "score": "3.0",
        "max_score": "3.0",
        "auto_points": "2.0",
        "hand_points": "1.0",
        "hand_max": "1.0",
        "pending_points": "0.0",
        "status": "complete",
        "reason": "",
        "01_toy:add__values": "2.0",
        "01_toy:why": "1.0",
    }
    assert {
        k: bob[k]
        for k in (
            "raw_score",
            "late_submission_penalty",
            "score",
            "pending_points",
            "status",
            "01_toy:add__values",
            "01_toy:why",
        )
    } == {
        "raw_score": "2.0",
        "late_submission_penalty": "0.2",
        "score": "1.8",
        "pending_points": "1.0",
        "status": "waiting for a grader",
        "01_toy:add__values": "2.0",
        "01_toy:why": "",
    }
    assert bob["timestamp"] > bob["duedate"] > amy["timestamp"]
    assert {k: cat[k] for k in ("score", "status", "reason", "email", "01_toy:add__values")} == {
        "score": "0.0",
        "status": "not submitted",
        "reason": "no submission was collected",
        "email": "dan@example.org",
        "01_toy:add__values": "0.0",
    }
    assert (zed["status"], zed["reason"], zed["score"]) == ("not graded", "zed is not on the roster", "")


def test_formgrader_autograde_keeps_to_the_roster(term):
    """Does nbgrader's own autograde (the formgrader's Autograde button) refuse zed, who is not on the
    roster, as `course grade` did, instead of grading her into the gradebook?"""
    from nbgrader.api import Gradebook, MissingEntry

    t, out = term
    assert "zed is not on the roster" in out["grade"]
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "autograde", "01_toy", "--student", "zed"],
        cwd=t.course_dir,
        env=t.env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "No student with ID 'zed' exists" in done.stdout + done.stderr
    with Gradebook(f"sqlite:///{t.course_dir / 'gradebook.db'}") as gb, pytest.raises(MissingEntry):
        gb.find_student("zed")


def _graded_course_dir(tmp_path, course_repo, run_course) -> Path:
    subs = tmp_path / "subs" / "amy" / "01_toy"
    subs.mkdir(parents=True)
    shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", subs)
    run_course(["grade", tmp_path / "subs", "--course-dir", tmp_path / "cd", "--root", course_repo])
    return tmp_path / "subs"


def _edit_test_cell(course_repo: Path, change) -> None:
    path = course_repo / "solutions/01_toy/01_toy.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    change(nb)
    nbformat.write(nb, str(path))


def _edit_cell(path: Path, grade_id: str, change) -> None:
    """``change(source) -> source`` applied to the cell ``grade_id`` of the notebook at ``path``."""
    nb = nbformat.read(str(path), as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    cell.source = change(cell.source)
    nbformat.write(nb, str(path))


def _hand_grade(course_dir: Path, grade_id: str, student: str, points: float) -> None:
    """What a grader's score box in the formgrader does: a hand grade, done, in the grader's journal."""
    from instructor.coursedir import overrides
    from instructor.coursedir.course_dir import CourseDir

    overrides.give(CourseDir.at(course_dir), "01_toy", student, grade_id, points)


def test_changed_test_cell_is_regraded_and_reported(tmp_path, course_repo, run_course):
    """Is a test cell edited after grading reported by name, the submission graded with the new code,
    and a grader's override of that cell flagged for review again (its autograde score changed)?"""
    from nbgrader.api import Gradebook

    subs = _graded_course_dir(tmp_path, course_repo, run_course)
    _hand_grade(tmp_path / "cd", "add__values", "amy", 1.5)  # a grader's override in the formgrader
    _edit_cell(
        course_repo / "solutions/01_toy/01_toy.ipynb",
        "add__values",
        lambda src: src.replace("assert add(1, 2) == 3", "assert add(1, 2) == 4"),
    )
    out, _ = run_course(["grade", subs, "--course-dir", tmp_path / "cd", "--root", course_repo])
    assert "01_toy: test cell add__values changed since submissions were graded" in out
    amy = next(line for line in out.splitlines() if line.startswith("amy "))
    assert "1 hand grade(s) to review again" in amy, out
    with Gradebook(f"sqlite:///{tmp_path / 'cd' / 'gradebook.db'}") as gb:
        grade = gb.find_grade("add__values", "01_toy", "01_toy", "amy")
        assert (grade.auto_score, grade.manual_score, grade.needs_manual_grade) == (0.0, 1.5, True)


def test_removed_test_cell_is_refused_in_one_sentence(tmp_path, course_repo, run_course):
    """Is removing a graded cell after submissions refused with the cause in one sentence?"""
    subs = _graded_course_dir(tmp_path, course_repo, run_course)
    _edit_test_cell(course_repo, lambda nb: nb.cells.pop(3))
    _, err = run_course(["grade", subs, "--course-dir", tmp_path / "cd", "--root", course_repo], retcode=1)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert re.search(r"01_toy cannot be regraded: its nbgrader cells changed .*removed: add__values", err)


def test_init_refuses_a_folder_inside_the_repository(run_course):
    """Is a course directory inside the repository (where `git add -A` would publish student work) refused?"""
    _, err = run_course(["init", REPO_ROOT / "grading"], retcode=1)
    assert "inside the course repository" in err and len(err.strip().splitlines()) == 1


def test_roster_without_id_column_is_refused(tmp_path, run_course):
    """Is a roster without an id column refused in one sentence?"""
    run_course(["init", tmp_path / "cd"])
    (tmp_path / "class.csv").write_text("name,email\nAmy,amy@example.org\n")
    _, err = run_course(["roster", "import", tmp_path / "class.csv", "--course-dir", tmp_path / "cd"], retcode=1)
    assert "has no 'id' column" in err and len(err.strip().splitlines()) == 1


def test_formgrader_config_is_the_course_config(tmp_path, run_course):
    """Does nbgrader, loading the course directory's config as the formgrader does, get the course's settings?"""
    from traitlets.config.loader import PyFileConfigLoader

    run_course(["init", tmp_path / "cd", "--exchange", tmp_path / "ex", "--late-penalty", "25"])
    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path / "cd")).load_config()
    assert cfg.CourseDirectory.course_id == "seqmodels"
    assert cfg.Exchange.root == str(tmp_path / "ex")
    assert cfg.CourseDirectory.db_url == f"sqlite:///{tmp_path / 'cd' / 'gradebook.db'}"
    assert cfg.PercentPerDay.percent_per_day == 25.0
    names = [p.__name__ for p in cfg.GenerateFeedback.preprocessors]
    assert "ClearHiddenTestsOfTests" in names and "HideHiddenTestOutputs" in names


def test_formgrader_refuses_a_folder_that_is_not_a_course_directory(tmp_path, run_course):
    """Is `course formgrader` without `course init` refused in one sentence, before any server starts?"""
    _, err = run_course(["formgrader", "--course-dir", tmp_path / "nothing"], retcode=1)
    assert "is not a course directory yet: run `course init" in err and len(err.strip().splitlines()) == 1


def test_formgrader_serves_the_course_directory(tmp_path):
    """Does `course formgrader` start JupyterLab on the course directory (where nbgrader reads its config)?"""
    from instructor.cli import formgrader
    from instructor.coursedir.course_dir import CourseDir

    line = formgrader.command(CourseDir.places_at(tmp_path), "127.0.0.1", 8890, ["--allow-root"])
    assert (
        line[1:3] == ["-m", "jupyterlab"] and f"--ServerApp.root_dir={tmp_path}" in line and line[-1] == "--allow-root"
    )


def _table_line(out: str, student: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(f"{student} "))


def test_a_fixed_test_message_accuses_no_one(tmp_path, course_repo, run_course):
    """After a test cell's message is corrected mid-term and the class regraded, is the student who
    submitted the old release left unflagged, with their hand grade not sent back for review; and is
    a student who really edited that test cell in the old release still flagged?"""
    from nbgrader.api import Gradebook

    subs = tmp_path / "subs"
    for student in ("amy", "eve"):
        (subs / student / "01_toy").mkdir(parents=True)
        shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", subs / student / "01_toy")
    _edit_cell(
        subs / "eve/01_toy/01_toy.ipynb", "add__values", lambda src: src.replace("assert add(1, 2) == 3", "assert True")
    )
    run_course(["grade", subs, "--course-dir", tmp_path / "cd", "--root", course_repo])
    _hand_grade(tmp_path / "cd", "why", "amy", 1.0)
    _edit_cell(
        course_repo / "solutions/01_toy/01_toy.ipynb",
        "add__values",
        lambda src: src.replace("assert add(1, 2) == 3", "assert add(1, 2) == 3, 'add(1, 2) should be 3'"),
    )
    out, _ = run_course(["grade", subs, "--course-dir", tmp_path / "cd", "--root", course_repo])
    assert "test cell add__values changed since submissions were graded" in out
    assert _table_line(out, "amy").endswith("complete"), out
    assert "the test cell 'add__values' was edited" in _table_line(out, "eve"), out
    assert len(list((tmp_path / "cd" / "releases" / "01_toy").glob("*.ipynb"))) == 2
    with Gradebook(f"sqlite:///{tmp_path / 'cd' / 'gradebook.db'}") as gb:
        amy = gb.find_submission_notebook("01_toy", "01_toy", "amy")
        assert not any(g.needs_manual_grade for g in amy.grades)
        assert gb.find_grade("why", "01_toy", "01_toy", "amy").manual_score == 1.0


def test_a_flag_is_cleared_with_its_reason_and_stays_cleared(tmp_path, course_repo, run_course):
    """Does `course unflag` clear a reviewed flag (table, CSV, gradebook), record who and why, keep it
    cleared through a regrade of the same bytes, and refuse a submission that is not flagged?"""
    from nbgrader.api import Gradebook

    subs = tmp_path / "subs" / "eve" / "01_toy"
    subs.mkdir(parents=True)
    shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", subs)
    _edit_cell(subs / "01_toy.ipynb", "add__values", lambda src: src + "\n# checked by hand")
    cd = tmp_path / "cd"
    out, _ = run_course(["grade", tmp_path / "subs", "--course-dir", cd, "--root", course_repo])
    assert "flagged for review: the test cell 'add__values' was edited" in _table_line(out, "eve")

    readme_command('course unflag {ID} {A} --because "only a comment was added to the test cell"')
    out, _ = run_course(["unflag", "eve", "01_toy", "--because", "only a comment was added", "--course-dir", cd])
    assert "eve/01_toy: graded; flags cleared by" in out and "only a comment was added" in out
    entry = json.loads((cd / "reviews" / "eve" / "01_toy.json").read_text())[0]
    assert entry["flags"] == ["the test cell 'add__values' was edited (restored)"] and entry["because"]
    with Gradebook(f"sqlite:///{cd / 'gradebook.db'}") as gb:
        graded = {g.name: g.needs_manual_grade for g in gb.find_submission_notebook("01_toy", "01_toy", "eve").grades}
    assert graded == {"add__values": False, "why": True}, graded  # the written answer still waits for a grader

    out, _ = run_course(["grade", tmp_path / "subs", "--course-dir", cd, "--root", course_repo, "--force"])
    line = _table_line(out, "eve")
    assert "waiting for a grader: flags cleared by" in line and "flagged" not in line, out
    run_course(["export", "--course-dir", cd, "--file", tmp_path / "g.csv"])
    with open(tmp_path / "g.csv", newline="") as f:
        assert next(csv.DictReader(f))["status"] == "waiting for a grader"
    _, err = run_course(["unflag", "eve", "01_toy", "--because", "again", "--course-dir", cd], retcode=1)
    assert "is not flagged" in err and len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------- the term replayed (issue 35)

ROSTERED = ["amy", "bob", "carl", "cat", "dan"]


def _points(row: dict) -> tuple:
    return (
        row["status"],
        row["raw_score"],
        row["late_submission_penalty"],
        row["score"],
        row["hand_points"],
        row["pending_points"],
    )


def test_before_the_deadline_nobody_has_a_zero(term):
    """Exported before anyone could submit (01_toy due in 30 days), is every student `not due`, with no points,
    in the CSV and an empty, listed cell in the Canvas file?"""
    _, out = term
    rows = out["csv before the deadline"]
    assert {s for s, _ in rows} == set(ROSTERED)
    for student in ROSTERED:
        row = rows[student, "01_toy"]
        assert (row["status"], row["score"], row["raw_score"]) == ("not due", "", ""), row
        assert row["reason"].startswith("due 20")
    assert "0 zero(s) for nothing submitted, 5 cell(s) left empty (5 not due)" in out["canvas before the deadline"]


def test_another_accounts_submission_is_refused_after_collect(term):
    """carl's account ran `nbgrader submit --student cat`; after `nbgrader collect --update` and `course grade`
    (the README's flow), is cat's submission refused with its reason, and carl graded on his own?"""
    _, out = term
    cat = _table_line(out["grade"], "cat")
    assert "not graded: it claims to be cat's but was made by carl (exchange folder cat+01_toy+" in cat, out["grade"]
    assert _table_line(out["grade"], "carl").split()[2:5] == ["2", "/", "2"]
    row = out["csv"]["cat"]
    assert (row["status"], row["score"]) == ("not graded", "") and "made by carl" in row["reason"]


def test_the_grade_table_is_sorted_and_says_the_isolation_once(term):
    _, out = term
    lines = [ln for ln in out["grade"].splitlines() if ln.split()[:1] and ln.split()[0] in ROSTERED + ["zed"]]
    assert [ln.split()[0] for ln in lines] == ["amy", "bob", "carl", "cat", "zed"], out["grade"]
    assert out["grade"].count("isolation:") == 1


def test_every_grade_penalty_and_status_through_the_term(term):
    """A hand grade, a test fix, a re-submission after hand grading, an extension given and taken back, an
    override, the next assignment released: after each, does the export say what the README's rules say?"""
    _, out = term
    steps = out["steps"]
    # bob, late (one day started: 10 % of his 2 autograded points), hand graded 1/1
    assert _points(steps["bob hand graded"]["bob", "01_toy"]) == ("complete", "3.0", "0.2", "2.8", "1.0", "0.0")
    # a test fix regrades everyone: hand grades kept, the penalty's base still the autograded points only
    assert "test cell add__values changed since submissions were graded" in out["test fix"]
    after_fix = steps["test fix"]
    assert _points(after_fix["bob", "01_toy"]) == ("complete", "3.0", "0.2", "2.8", "1.0", "0.0")
    assert _points(after_fix["amy", "01_toy"]) == ("complete", "3.0", "0.0", "3.0", "1.0", "0.0")
    assert _points(after_fix["carl", "01_toy"]) == ("waiting for a grader", "2.0", "0.0", "2.0", "0.0", "1.0")
    # amy rewrote her graded answer and submitted again, late: the answer waits for a grader again
    amy = steps["re-submission"]["amy", "01_toy"]
    assert _points(amy) == ("waiting for a grader", "2.0", "0.2", "1.8", "0.0", "1.0")
    assert "written answer changed since it was graded by hand: why (1 points taken back)" in amy["reason"]
    line = _table_line(out["re-submission"], "amy")
    assert "waiting for a grader" in line and "written answer changed" in line and "autograde score" not in line
    # an extension takes the penalty away, a hand grade after it changes nothing of it, taking it back restores it
    assert _points(steps["extension"]["amy", "01_toy"]) == ("waiting for a grader", "2.0", "0.0", "2.0", "0.0", "1.0")
    assert _points(steps["amy hand graded again"]["amy", "01_toy"]) == ("complete", "2.5", "0.0", "2.5", "0.5", "0.0")
    assert _points(steps["extension taken back"]["amy", "01_toy"]) == ("complete", "2.5", "0.2", "2.3", "0.5", "0.0")
    # an override in the formgrader: the export says which cell, from what to what, who and when
    carl = steps["override"]["carl", "01_toy"]
    assert (carl["auto_points"], carl["01_toy:add__values"]) == ("1.0", "1.0")
    grader = pwd.getpwuid(os.geteuid()).pw_name  # the account that saved it, as the system names it
    assert carl["overrides"].startswith(f"add__values: 2 -> 1 (override by {grader}, at 20"), carl["overrides"]
    # the next assignment is not due: nobody's zero
    released = steps["next assignment released"]
    assert all((released[s, "02_toy"]["status"], released[s, "02_toy"]["score"]) == ("not due", "") for s in ROSTERED)
    assert _points(released["amy", "01_toy"]) == ("complete", "2.5", "0.2", "2.3", "0.5", "0.0")
    assert "5 not due" in out["canvas after"]


def test_the_report_lists_every_grade_changed_by_hand(term):
    t, out = term
    with open(t.course_dir / "reports/01_toy/overrides.csv", newline="") as f:
        rows = [(r["student"], r["cell"], r["from"], r["to"], r["what"]) for r in csv.DictReader(f)]
    assert ("amy", "why", "1.0", "", "hand grade reset") in rows
    assert ("carl", "add__values", "2.0", "1.0", "override") in rows
