"""Feedback pages and the CSV: what waits for a grader, what students never see."""

from __future__ import annotations

import csv
from pathlib import Path

from tests.factories import toy_submissions


def _csv_rows(path: Path) -> dict:
    with open(path, newline="") as f:
        return {(r["student_id"], r["assignment"]): r for r in csv.DictReader(f)}


def test_ungraded_answers_are_pending_until_a_grader_scores_them(course_repo, tmp_path, run_course):
    """Do feedback and CSV say a written answer waits for a grader (not 0), name each row by its task,
    keep the mark scheme from students but show it to graders, and count the answer once it is graded?"""
    from nbgrader.api import Gradebook

    subs = toy_submissions(tmp_path / "subs", course_repo)
    ws = tmp_path / "ws"
    run_course(["grade", subs, "--course-dir", ws, "--root", course_repo])
    released = (course_repo / "notebooks/01_toy/01_toy.ipynb").read_text()
    assert "Why does add commute?" in released and "grader-only rubric" not in released
    # autograde restores the locked question cell in full: the formgrader shows the scheme
    assert "grader-only rubric" in (ws / "autograded/ref/01_toy/01_toy.ipynb").read_text()

    run_course(["export", "--course-dir", ws, "--to", tmp_path / "before.csv"])
    row = _csv_rows(tmp_path / "before.csv")[("ref", "01_toy")]
    assert (row["score"], row["max_score"], row["pending_points"], row["status"]) == ("2.0", "3.0", "1.0", "waiting for a grader")
    assert _csv_rows(tmp_path / "before.csv")[("ref", "02_toy")]["status"] == "complete"

    run_course(["feedback", "--course-dir", ws])
    html = (ws / "feedback/ref/01_toy/01_toy.html").read_text()
    assert "Test cell" not in html and "add: values" in html and "why (written answer)" in html
    assert "waiting for a grader: 1.0 points" in html and "2.0 / 2.0; 1.0 more points wait for a grader" in html
    assert "Score: 0.0 / 1.0" not in html
    assert "Why does add commute?" in html and "grader-only rubric" not in html and "MARK SCHEME" not in html

    with Gradebook(f"sqlite:///{ws / 'gradebook.db'}") as gb:
        grade = gb.find_grade("why", "01_toy", "01_toy", "ref")
        grade.manual_score = 1.0
        gb.db.commit()
    run_course(["export", "--course-dir", ws, "--to", tmp_path / "after.csv"])
    row = _csv_rows(tmp_path / "after.csv")[("ref", "01_toy")]
    assert (row["score"], row["pending_points"], row["status"]) == ("3.0", "0.0", "complete")
    run_course(["feedback", "--course-dir", ws])
    html = (ws / "feedback/ref/01_toy/01_toy.html").read_text()
    assert "(Score: 3.0 / 3.0)" in html and "waiting for a grader" not in html


def test_nbgraders_own_feedback_command_uses_the_course_preprocessors():
    """Does the grader configuration hand nbgrader's generate_feedback the same preprocessors and template?"""
    from traitlets.config import Config

    from instructor.reporting.feedback.preprocessors.clear_rubrics import ClearRubrics
    from instructor.reporting.feedback.preprocessors.mark_pending import MarkPendingGrades
    from instructor.reporting.feedback.preprocessors.name_cells import NameGradedCells
    from instructor.settings import configure

    c = configure(Config(), Path("/nowhere"))
    names = [p.__name__ for p in c.GenerateFeedback.preprocessors]
    assert {"ClearHiddenTestsOfTests", ClearRubrics.__name__, MarkPendingGrades.__name__, NameGradedCells.__name__} <= set(names)
    assert names.index("GetGrades") < names.index("MarkPendingGrades")
    assert Path(c.HTMLExporter.extra_template_basedirs[0], "feedback", "index.html.j2").is_file()


def test_feedback_pages_show_course_text_once_and_run_no_script(course_repo, tmp_path, run_course):
    """Does a feedback page render the course's markdown and math exactly once (MathML, no MathJax, no
    CDN, no double escapes), show a student's markup as inert text, and forbid every script by policy?"""
    import shutil

    import nbformat

    sub = tmp_path / "subs" / "eve" / "01_toy"
    sub.mkdir(parents=True)
    shutil.copy(course_repo / "solutions/01_toy/01_toy.ipynb", sub)
    nb = nbformat.read(str(sub / "01_toy.ipynb"), as_version=4)
    why = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "why")
    why.source = "Since $a<b$ & `<S>` tokens.\n<img src=x onerror=alert(1)><script>alert(2)</script>"
    nbformat.write(nb, str(sub / "01_toy.ipynb"))
    run_course(["grade", tmp_path / "subs", "--course-dir", tmp_path / "cd", "--root", course_repo])
    run_course(["feedback", "--course-dir", tmp_path / "cd"])
    html = (tmp_path / "cd/feedback/eve/01_toy/01_toy.html").read_text()
    assert "<script" not in html and "onerror" not in html and "alert(" not in html
    assert "cdnjs" not in html and "mathjax" not in html.lower()
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert html.count("<math") == 3  # two course formulas, one of the student's
    assert "&amp;lt;" not in html and "&amp;amp;" not in html  # nothing escaped twice
    assert "<code>&lt;S&gt;</code>" in html  # the student's code span, escaped once


def _verdicts(html: str) -> list[tuple[str, str]]:
    """(verdict, title) of every entry of a feedback page's table of contents."""
    import re

    return re.findall(r'<li><span class="verdict verdict-(\w+)">[^<]*</span><a href="#[^"]*">([^<]*)</a>', html)


def test_feedback_says_which_check_failed_in_its_authors_words(graded_class, run_course):
    """Does each failed cell of a planted mistake say passed/failed by more than a number, name the check by
    its author's message (hidden checks too, never their code), and point to the earlier task it depends on?"""
    import html as html_lib
    import re

    from nbgrader.api import Gradebook

    from instructor.cells import hidden_lines, visible_source
    from instructor.reporting.failures import UNNAMED, checks
    from tests.reporting.conftest import A

    course, planted = graded_class
    run_course(["feedback", "--course-dir", course])
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        sources = {c.name: c.source for nb in gb.find_assignment(A).notebooks for c in nb.source_cells}
    # the hidden lines the release does not show anyway (a line may stand in both parts of a cell)
    shown = "\n".join(visible_source(s) for s in sources.values())
    secret = {line for s in sources.values() for line in hidden_lines(s) if len(line) >= 16 and line not in shown}
    assert secret
    release = "\n".join(sources.values())
    # the release's text, and each check's message as its author wrote it (escapes read, split literals joined)
    authored = release + "\n".join(c.words for s in sources.values() for c in checks(s))

    ref = (course / "feedback" / "ref1" / A / f"{A}.html").read_text()
    assert [v for v, _ in _verdicts(ref)] == ["passed"] * 8 + ["waiting"]
    for student, mistake in planted.items():
        page = (course / "feedback" / student / A / f"{A}.html").read_text()
        failed = [title for v, title in _verdicts(page) if v == "failed"]
        assert any(t.startswith(mistake.task + ":") for t in failed), (student, mistake.name, failed)
        # a value the check's message shows is set apart (<code class="value">): it is not the author's text
        whys = [html_lib.unescape(re.sub(r'<code class="value">.*?</code>', "…", w, flags=re.S))
                for w in re.findall(r"<b>Why it failed:</b> (.*?)</p>", page, flags=re.S)]
        assert len(whys) == len(failed) and UNNAMED not in whys, (mistake.name, whys)
        for why in whys:  # every word shown is the author's: each literal piece stands in the release
            pieces = [p for p in re.split(r"…|`", re.sub(r"^\w+ (at|during the hidden check): ", "", why)) if p.strip()]
            assert all(p in authored for p in pieces), (mistake.name, why)
        assert not any(line in page for line in secret), (mistake.name, [s for s in secret if s in page][:2])
    # a mistake in generate_batch fails the checks of accuracy_by_length too: the page names the cause
    cause = (course / "feedback" / "m0a" / A / f"{A}.html").read_text()
    assert "It uses <code>generate_batch</code>, whose own checks (part <code>generate_batch</code>) failed" in cause
    # the forger's own message shows only as escaped text in their own visible output, never as a "why"
    forger = (course / "feedback" / "forger" / A / f"{A}.html").read_text()
    assert "<script>alert" not in forger
    assert not any("FORGED" in w for w in re.findall(r"<b>Why it failed:</b> (.*?)</p>", forger))


VALUES_CELL = '''x = f()
assert x.shape == (5, 3), f"shape {x.shape}, expected (5, 3)"
assert x.dtype == "float32", f"dtype {x.dtype}, expected float32"
### BEGIN HIDDEN TESTS
y = g(secret_input)
assert y == 1, f"got {y} for {secret_input}"
# feedback shows: y
assert y == 2, f"got {y} for {secret_input}"
assert y == 3, f"got {y}"
### END HIDDEN TESTS
'''


def _judged_error(line: int, message: str) -> list[dict]:
    """The error output the grader's judge writes for a check that failed at ``line`` with ``message``."""
    return [{"output_type": "error", "ename": "AssertionError", "evalue": message,
             "traceback": [f"Judged by the grader, outside your kernel: Cell In[3], line {line}"]}]


def test_feedback_shows_the_values_a_check_may_show():
    """A visible check's values as Validate shows them; a hidden check's only where its author marked the name
    (``# feedback shows:``); text that is not a value's never; the class report keeps one line per check."""
    from instructor.reporting.failures import name_failure, report_line, tell_student, tell_student_parts

    said = tell_student_parts(VALUES_CELL, _judged_error(2, "shape (5, 4), expected (5, 3)"))
    assert said == [("shape ", False), ("(5, 4)", True), (", expected (5, 3)", False)]
    assert tell_student(VALUES_CELL, _judged_error(3, "dtype float64, expected float32")) == "dtype float64, expected float32"
    # a value's text only: a string the student's code chose (it could carry anything) stays elided
    assert tell_student(VALUES_CELL, _judged_error(2, "shape aGlkZGVuIGxpbmU=, expected (5, 3)")) == "shape …, expected (5, 3)"
    # a word of the cell's visible code is a value it may show; one only its hidden code holds is not
    named = 'for name in ("Wq", "Wk"):\n    assert grads[name] is not None, f"{name} got no gradient"\n' \
            '### BEGIN HIDDEN TESTS\nsecret_weights = 1\n### END HIDDEN TESTS\n'
    assert tell_student(named, _judged_error(2, "Wq got no gradient")) == "Wq got no gradient"
    assert tell_student(named, _judged_error(2, "secret_weights got no gradient")) == "… got no gradient"
    # a message that is not this check's (forged, or cut) shows no value at all
    assert tell_student(VALUES_CELL, _judged_error(2, "shape (5, 4) expected")) == "shape …, expected (5, 3)"
    # hidden: unmarked names stay elided, marked ones show; a field reading an unmarked name stays elided
    assert tell_student(VALUES_CELL, _judged_error(6, "got 7 for [1 2 3]")) == "got … for …"
    assert tell_student(VALUES_CELL, _judged_error(8, "got 7 for [1 2 3]")) == "got 7 for …"
    assert tell_student(VALUES_CELL, _judged_error(9, "got 7")) == "got 7"
    # the class report groups by the elided form, and writes it on one line with each value named by its code
    assert name_failure(VALUES_CELL, _judged_error(2, "shape (5, 4), expected (5, 3)")) == "shape …, expected (5, 3)"
    assert report_line(VALUES_CELL, _judged_error(2, "shape (5, 4), expected (5, 3)")) == "shape {x.shape}, expected (5, 3)"
    multi = 'm = f()\nassert (m == 1).all(), f"sequence 0:\\n{m.astype(int)}\\nexpected\\n{full}"\n'
    assert report_line(multi, _judged_error(2, "sequence 0:\n[1 0]\nexpected\n[1 1]")) == \
        "sequence 0: {m.astype(int)} expected {full}"
    assert tell_student(multi, _judged_error(2, "sequence 0:\n[1 0]\nexpected\n[1 1]")) == "sequence 0:\n[1 0]\nexpected\n[1 1]"


def test_the_hidden_output_note_only_where_a_hidden_check_failed():
    """Is "This cell ran hidden tests" said only of a cell whose failed check is hidden (its outputs are
    withheld either way)?"""
    import nbformat
    from nbformat.v4 import new_code_cell, new_output

    from instructor.reporting.feedback.preprocessors.explain_verdicts import ExplainVerdicts
    from instructor.reporting.feedback.preprocessors.hide_hidden_test_outputs import HideHiddenTestOutputs

    def test_cell(name, score, line):
        cell = new_code_cell(VALUES_CELL, metadata={"nbgrader": {"grade": True, "grade_id": name, "points": 1,
                                                                 "score": score, "solution": False, "locked": True}})
        cell.outputs = [new_output("stream", name="stdout", text="printed while it ran\n")]
        if line:
            cell.outputs += [nbformat.from_dict(o) for o in _judged_error(line, "got 7")]
        return cell

    nb = nbformat.v4.new_notebook(cells=[test_cell("passed", 1, 0), test_cell("visible", 0, 2),
                                         test_cell("hidden", 0, 9)])
    nb, resources = ExplainVerdicts(enabled=True).preprocess(nb, {})
    nb, _ = HideHiddenTestOutputs().preprocess(nb, resources)
    shown = {c.metadata.nbgrader.grade_id: "".join(o.get("text", "") for o in c.outputs) for c in nb.cells}
    assert shown["passed"] == "" and shown["visible"] == ""
    assert shown["hidden"].startswith("This cell ran hidden tests; its output is not shown")
    assert [c.metadata.nbgrader.get("hidden_failed") for c in nb.cells] == [None, False, True]
    assert nb.cells[2].metadata.nbgrader.why == "got 7"
