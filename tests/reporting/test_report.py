"""`course report`: a graded class of 01_rnn with planted mistakes, counted and named as planted."""

from __future__ import annotations

import csv
import re
from collections import Counter

import pytest

from instructor.coursedir.course_dir import CourseDir
from instructor.reporting import class_report, failures, item_analysis
from tests.reporting.conftest import FORGED, PLANTED, A


def test_each_planted_mistake_is_counted_and_named_in_the_authors_words(graded_class):
    """Does every planted mistake show as one line, counted twice, in words of its check's source?"""
    course, planted = graded_class
    report = item_analysis.analyse(CourseDir.at(course), A)
    released = {c.grade_id: c for c in report.cells}
    sources = {}
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for nb in gb.find_assignment(A).notebooks:
            sources.update({c.name: c.source for c in nb.source_cells})
    for name in PLANTED:
        task = next(m.task for m in planted.values() if m.name == name)
        lines = [(c.grade_id, w, k) for c, w, k in report.top_mistakes(50) if c.grade_id.startswith(task + "__")]
        assert lines, f"{name}: no failure named in {task}"
        for grade_id, words, count in lines:
            if words.startswith("AssertionError at:"):  # the forger's own assert, inside generate_batch
                continue
            assert count == 2, f"{name}: {grade_id} {words!r} counted {count} times, planted twice"
            # the words are the author's: every literal piece of them stands in the test cell's source
            # (a value shows as … or as the code that made it, {h.data[-1]}; the report line is one line, so a
            # message's line breaks, written \n, and its adjacent string literals read as spaces and one string)
            pieces = [p.strip() for p in re.split(r"…|`|\{[^{}]*\}", re.sub(r"^\w+ at: ", "", words)) if p.strip()]
            source = re.sub(r"[\"']\s*\\?\n\s*[\"']", "", sources[grade_id]).replace("\\n", " ")
            source = " ".join(source.split())
            assert pieces and all(" ".join(p.split()) in source for p in pieces), (grade_id, words)
    for cell in report.cells:
        if not cell.written:
            assert cell.mistakes[failures.NOT_ATTEMPTED] == 2, f"{cell.grade_id}: the two blanks"
    # the forger fails generate_batch's checks, named by the checks, not by the forged message
    assert all(FORGED not in w for c in report.cells for w in c.mistakes)
    assert released["generate_batch__shapes_and_types"].failed == 2 + 1  # blanks, the forger


def test_statuses_flags_and_reasons_are_counted(graded_class):
    course, _ = graded_class
    report = item_analysis.analyse(CourseDir.at(course), A)
    assert report.statuses["not graded"] == 1
    assert report.statuses["flagged for review"] == 1
    assert sum(report.flags.values()) == 1 and "rnn__shapes_and_parameters" in next(iter(report.flags))
    assert sum(report.not_graded.values()) == 1 and "not a valid notebook" in next(iter(report.not_graded))
    scores = dict(
        zip(
            [r["student_id"] for r in report.rows if r["status"] in item_analysis.WITH_POINTS],
            report.scores,
            strict=True,
        )
    )
    assert scores["ref1"] == scores["ref2"] == report.max_score - 2  # the written answers wait for a grader
    assert scores["blank1"] == 0


def test_the_page_and_the_csv_files(graded_class, tmp_path):
    """Are the page's figures inline, its student text escaped, and the CSV files the same figures?"""
    course, _ = graded_class
    report = item_analysis.analyse(CourseDir.at(course), A)
    page = class_report.write(report, tmp_path / "out")
    html = page.read_text()
    assert "<script" not in html and FORGED not in html
    assert html.count('src="data:image/png;base64,') == 2
    assert "default-src &#39;none&#39;" in html or "default-src 'none'" in html
    with open(tmp_path / "out" / "checks.csv", newline="") as f:
        checks = {r["grade_id"]: r for r in csv.DictReader(f)}
    assert {k: int(v["failed"]) for k, v in checks.items()} == {c.grade_id: c.failed for c in report.cells}
    with open(tmp_path / "out" / "mistakes.csv", newline="") as f:
        counted = Counter()
        for r in csv.DictReader(f):
            counted[r["grade_id"]] += int(r["count"])
    assert all(counted[c.grade_id] == sum(c.mistakes.values()) for c in report.cells)
    with open(tmp_path / "out" / "scores.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == len(report.rows)


def test_the_command(graded_class, run_course):
    course, _ = graded_class
    out, _ = run_course(["report", A, "--course-dir", course])
    assert (course / "reports" / A / "index.html").is_file()
    assert f"wrote {course / 'reports' / A / 'index.html'}" in out
    _, err = run_course(["report", "09_nothing", "--course-dir", course], retcode=1)
    assert err.startswith("course report: the gradebook has no assignment '09_nothing'")


@pytest.mark.parametrize(
    "source, line, ename, want",
    [
        ("x = f()\nassert x == 1, f'x is {x}, expected 1'\n", 2, "AssertionError", "x is …, expected 1"),
        ("assert g(2) == 4, g(2)\n", 1, "AssertionError", "`g(2) == 4`"),
        (
            "for i in range(3):\n    assert h(i) > 0, 'h should be positive'\n",
            2,
            "AssertionError",
            "h should be positive",
        ),
        ("raise AssertionError('should raise')\n", 1, "AssertionError", "should raise"),
        ("y = k(1)\n", 1, "IndexError", "IndexError at: `y = k(1)`"),
        ("y = k(1)\n", 1, "NotImplementedError", failures.NOT_ATTEMPTED),
        ("y = k(1)\n", 9, "AssertionError", failures.UNNAMED),
        ("y = k(1)\n", 1, "<b>Evil</b>", "an exception at: `y = k(1)`"),
        ("y = k(1)\n", 1, "AssertionError", "AssertionError at: `y = k(1)`"),
    ],
)
def test_name_failure(source, line, ename, want):
    """Is a failure named by the statement its traceback points at, and only in the author's words?"""
    tb = [f"\x1b[36mCell\x1b[39m \x1b[32mIn[7]\x1b[39m, line {line}\n----> {line} ...", f"{ename}: student text"]
    assert (
        failures.name_failure(source, [{"output_type": "error", "ename": ename, "evalue": "x", "traceback": tb}])
        == want
    )
