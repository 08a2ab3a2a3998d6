"""`course export --format canvas`: Canvas's gradebook-import layout, from a graded toy course with a roster."""

from __future__ import annotations

import csv
import shutil
import textwrap

import nbformat
import pytest

from instructor.cli import main
from instructor.coursedir.course_dir import CourseDir
from instructor.reporting import canvas, export
from tests.factories import assert_one_sentence_error, make_course

ROSTER = """\
id,first_name,last_name,email
amy,Amy,Adams,amy@example.org
bob,Bob,Brown,bob@example.org
cat,Cat,Cole,cat@example.org
dan,Dan,Dale,dan@example.org
eve,Eve,Evans,eve@example.org
fred,@SUM(A1),=1+1,fred@example.org
gus,,,
"""
IDS = ["amy", "bob", "cat", "dan", "eve", "fred", "gus"]


def _edit_test_cell(path):
    """What a student who edits a test cell does: `course grade` restores it and flags the submission."""
    nb = nbformat.read(str(path), as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "add__values")
    cell.source += "\n# changed by the student"
    nbformat.write(nb, str(path))


def _submit(subs, student, assignment, source=None, text=None):
    folder = subs / student / assignment
    folder.mkdir(parents=True)
    if source is not None:
        shutil.copy(source, folder)
    else:
        (folder / f"{assignment}.ipynb").write_text(text)
    return folder / f"{assignment}.ipynb"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A course directory with the roster above, graded once:

    amy  both assignments, her written answer graded by hand  -> complete, complete
    bob  01_toy, its written answer not graded yet            -> waiting for a grader, not submitted
    cat, fred, gus  nothing                                   -> not submitted
    dan  01_toy, not a notebook                               -> not graded
    eve  01_toy, a test cell edited                           -> flagged for review
    zed  01_toy, not on the roster                            -> not graded (no row in Canvas's file)
    """

    tmp = tmp_path_factory.mktemp("canvas")
    repo = make_course(tmp / "repo")
    cd, subs = tmp / "cd", tmp / "subs"
    (tmp / "class.csv").write_text(ROSTER)
    past = ["--due", "01_toy=2020-01-01 12:00 UTC", "--due", "02_toy=2020-01-01 12:00 UTC"]  # a 0 is earned
    for args in (
        ["generate", "--root", repo],
        ["init", cd, *past],
        ["roster", "import", tmp / "class.csv", "--course-dir", cd],
    ):
        assert main([str(a) for a in args]) == 0
    solution = {a: repo / "solutions" / a / f"{a}.ipynb" for a in ("01_toy", "02_toy")}
    for student, assignment in (
        ("amy", "01_toy"),
        ("amy", "02_toy"),
        ("bob", "01_toy"),
        ("eve", "01_toy"),
        ("zed", "01_toy"),
    ):
        _submit(subs, student, assignment, solution[assignment])
    _edit_test_cell(subs / "eve/01_toy/01_toy.ipynb")
    _submit(subs, "dan", "01_toy", text="{not json")
    assert main(["grade", str(subs), "--course-dir", str(cd), "--root", str(repo)]) == 0
    # a grader's score, as the formgrader saves it
    assert main(["override", "01_toy", "amy", "why", "1", "--course-dir", str(cd)]) == 0
    return cd


def _read(path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


@pytest.fixture(scope="module")
def exported(graded, tmp_path_factory):
    """`course export --format canvas` of the graded course: (rows of the file, what it printed)."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["export", "--format", "canvas", "--course-dir", str(graded)]) == 0
    return _read(graded / canvas.DEFAULT_NAME), out.getvalue()


def _by_id(rows) -> dict[str, dict[str, str]]:
    header = rows[0]
    return {r[2]: dict(zip(header, r, strict=True)) for r in rows[2:]}


def test_header_and_points_possible_row(exported):
    """Is the header Canvas's own, then one column per assignment, and the second row Points Possible?"""
    rows, _ = exported
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "01_toy", "02_toy"]
    assert rows[1] == ["Points Possible", "", "", "", "", "3", "1"]
    assert all(len(r) == len(rows[0]) for r in rows)  # Canvas guesses the delimiter from equal field counts


def test_one_row_per_rostered_student(exported):
    """Does every rostered student get one row, sorted by id, the one who never submitted with 0, and
    the student off the roster none?"""
    rows, _ = exported
    assert [r[2] for r in rows[2:]] == IDS
    cat = _by_id(rows)["cat"]
    assert (cat["01_toy"], cat["02_toy"]) == ("0", "0")


def test_students_matched_by_id_and_email(exported):
    """Are SIS User ID the roster's id and SIS Login ID its email (empty without one), ID and Section empty,
    Student "Last, First"?"""
    rows, _ = exported
    by_id = _by_id(rows)
    assert by_id["amy"] == {
        "Student": "Adams, Amy",
        "ID": "",
        "SIS User ID": "amy",
        "SIS Login ID": "amy@example.org",
        "Section": "",
        "01_toy": "3",
        "02_toy": "1",
    }
    assert (by_id["gus"]["Student"], by_id["gus"]["SIS User ID"], by_id["gus"]["SIS Login ID"]) == ("gus", "gus", "")


def test_only_final_grades_fill_a_cell(exported):
    """Are the cells of a flagged, a not graded and a waiting submission empty, and each counted and
    listed in the summary, with the student off the roster left out and said so?"""
    rows, out = exported
    by_id = _by_id(rows)
    assert (by_id["eve"]["01_toy"], by_id["dan"]["01_toy"], by_id["bob"]["01_toy"]) == ("", "", "")
    assert (by_id["eve"]["02_toy"], by_id["bob"]["02_toy"]) == ("0", "0")
    summary = next(line for line in out.splitlines() if line.startswith("canvas: "))
    assert summary.startswith(
        "canvas: 7 student(s) x 2 assignment(s): 2 score(s), 9 zero(s) for nothing submitted, 3 cell(s) left empty ("
    )
    for part in ("1 waiting for a grader", "1 flagged for review", "1 not graded"):
        assert part in summary, summary
    assert "eve 01_toy: flagged for review: the test cell 'add__values' was edited" in out
    assert "bob 01_toy: waiting for a grader: 1 point(s) still to grade by hand" in out
    assert "dan 01_toy: not graded: " in out
    assert "left out: 1 " in out and "zed 01_toy: zed is not on the roster" in out


def test_formula_like_names_are_guarded(exported):
    """Does no cell start a spreadsheet formula, the roster's formula-like name shown as text?"""
    rows, _ = exported
    cells = [v for row in rows for v in row]
    assert not [v for v in cells if v[:1] in ("=", "+", "-", "@")], cells
    assert _by_id(rows)["fred"]["Student"] == "'=1+1, @SUM(A1)"


def test_default_csv_is_unchanged(graded, tmp_path, run_course):
    """Is `course export`, with no --format or with --format csv, byte for byte what export_csv writes?"""
    export.export_csv(CourseDir.at(graded), tmp_path / "direct.csv")
    run_course(["export", "--course-dir", graded, "--file", tmp_path / "default.csv"])
    run_course(["export", "--format", "csv", "--course-dir", graded, "--file", tmp_path / "csv.csv"])
    direct = (tmp_path / "direct.csv").read_bytes()
    assert direct.startswith(b"assignment,duedate,timestamp,student_id,")
    assert (tmp_path / "default.csv").read_bytes() == direct == (tmp_path / "csv.csv").read_bytes()


def test_canvas_to_a_file_and_some_assignments(graded, tmp_path, run_course):
    """Does --file choose the file, and --assignment the columns?"""
    out, _ = run_course(
        ["export", "--format", "canvas", "--course-dir", graded, "--file", tmp_path / "X.csv", "--assignment", "02_toy"]
    )
    rows = _read(tmp_path / "X.csv")
    assert rows[0][5:] == ["02_toy"] and rows[1][5:] == ["1"]
    assert _by_id(rows)["amy"]["02_toy"] == "1"
    assert f"wrote {tmp_path / 'X.csv'}" in out and "0 cell(s) left empty" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--format", "canvas", "--assignment", "99_nope"], "the gradebook has no assignment '99_nope'"),
        (["--assignment", "01_toy"], "--assignment goes with --format canvas"),
    ],
)
def test_bad_requests_are_one_sentence(graded, run_course, args, message):
    """Is an unknown assignment, or --assignment for the CSV, refused in one sentence?"""
    _, err = run_course(["export", "--course-dir", graded, *args], retcode=1)
    assert_one_sentence_error(err)
    assert message in err


def test_unknown_format_is_an_argparse_error(capsys):
    """Is --format xlsx refused by the parser, naming the choices?"""
    with pytest.raises(SystemExit) as exit_:
        main(["export", "--format", "xlsx"])
    assert exit_.value.code == 2
    assert "invalid choice: 'xlsx'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "status, score, cell",
    [
        ("complete", 1.7999999999999998, "1.8"),
        ("complete", 3.0, "3"),
        ("complete", 0.0, "0"),
        ("not submitted", 0.0, "0"),
        ("waiting for a grader", 2.0, ""),
        ("flagged for review", 3.0, ""),
        ("not graded", "", ""),
        ("not due", "", ""),
        ("some status added later", 3.0, ""),
    ],
)
def test_cell_rule(status, score, cell):
    """Does a cell hold a number only for a final grade (two decimals at most), and 0 for nothing submitted?"""
    assert canvas.cell({"status": status, "score": score}) == cell


def test_import_steps_are_documented():
    """Are the import steps in the module's docstring and in `course export --help`, naming Canvas's pages?"""
    from instructor.cli import export as command

    assert "Grades > Import" in canvas.IMPORT_STEPS and '"Changes to scores"' in canvas.IMPORT_STEPS
    assert textwrap.indent(canvas.IMPORT_STEPS, "    ") in canvas.__doc__
    assert textwrap.indent(canvas.IMPORT_STEPS, "  ") in command.EXAMPLES
