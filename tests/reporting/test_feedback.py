"""Feedback pages and the CSV: what waits for a grader, what students never see."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.factories import toy_submissions


def _csv_rows(path: Path) -> dict:
    with open(path, newline="") as f:
        return {(r["student_id"], r["assignment"]): r for r in csv.DictReader(f)}


def test_ungraded_answers_are_pending_until_a_grader_scores_them(course_repo, tmp_path, run_course):
    """Do feedback and CSV say a written answer waits for a grader (not 0), name each row by its task,
    keep the mark scheme from students but show it to graders, and count the answer once it is graded?"""

    subs = toy_submissions(tmp_path / "subs", course_repo)
    ws = tmp_path / "ws"
    run_course(["grade", subs, "--course-dir", ws, "--root", course_repo])
    released = (course_repo / "notebooks/01_toy/01_toy.ipynb").read_text()
    assert "Why does add commute?" in released and "grader-only rubric" not in released
    # autograde restores the locked question cell in full: the formgrader shows the scheme
    assert "grader-only rubric" in (ws / "autograded/ref/01_toy/01_toy.ipynb").read_text()

    run_course(["export", "--course-dir", ws, "--file", tmp_path / "before.csv"])
    row = _csv_rows(tmp_path / "before.csv")[("ref", "01_toy")]
    assert (row["score"], row["max_score"], row["pending_points"], row["status"]) == (
        "2.0",
        "3.0",
        "1.0",
        "waiting for a grader",
    )
    assert _csv_rows(tmp_path / "before.csv")[("ref", "02_toy")]["status"] == "complete"

    run_course(["feedback", "--course-dir", ws])
    html = (ws / "feedback/ref/01_toy/01_toy.html").read_text()
    assert "Test cell" not in html and "add: values" in html and "why (written answer)" in html
    # the words once a line (they were twice: the verdict, then the score)
    assert "waiting for a grader</span>1.0 points" in html, html
    assert all(line.count("waiting for a grader") <= 1 for line in html.splitlines())
    assert "2.0 / 2.0; 1.0 more points wait for a grader" in html
    assert "Score: 0.0 / 1.0" not in html
    assert "Why does add commute?" in html and "grader-only rubric" not in html and "MARK SCHEME" not in html

    run_course(["override", "01_toy", "ref", "why", "1", "--course-dir", ws])  # a grader's hand grade
    run_course(["export", "--course-dir", ws, "--file", tmp_path / "after.csv"])
    row = _csv_rows(tmp_path / "after.csv")[("ref", "01_toy")]
    assert (row["score"], row["pending_points"], row["status"]) == ("3.0", "0.0", "complete")
    run_course(["feedback", "--course-dir", ws])
    html = (ws / "feedback/ref/01_toy/01_toy.html").read_text()
    assert "(Score: 3.0 / 3.0)" in html and "waiting for a grader" not in html


def test_a_partly_credited_written_answer_is_not_called_failed(course_repo, tmp_path, run_course):
    """A grader gives the written answer half its points: does the page say "partly credited" (it said
    "✗ failed"), while a check that failed still says failed?"""
    from nbgrader.api import Gradebook

    subs = toy_submissions(tmp_path / "subs", course_repo)
    ws = tmp_path / "ws"
    run_course(["grade", subs, "--course-dir", ws, "--root", course_repo, "--unsafe"])
    with Gradebook(f"sqlite:///{ws / 'gradebook.db'}") as gb:
        for student in ("ref", "blank"):
            gb.find_grade("why", "01_toy", "01_toy", student).manual_score = 0.5
        gb.db.commit()
    run_course(["feedback", "--course-dir", ws])
    ref = dict((t, v) for v, t in _verdicts((ws / "feedback/ref/01_toy/01_toy.html").read_text()))
    blank = dict((t, v) for v, t in _verdicts((ws / "feedback/blank/01_toy/01_toy.html").read_text()))
    why = next(t for t in ref if t.startswith("why"))
    assert ref[why] == blank[why] == "partly"
    assert "failed" in blank.values() and "failed" not in ref.values()
    assert "partly credited" in (ws / "feedback/ref/01_toy/01_toy.html").read_text()


def test_nbgraders_own_feedback_command_uses_the_course_preprocessors():
    """Does the grader configuration hand nbgrader's generate_feedback the same preprocessors and template?"""
    from traitlets.config import Config

    from instructor.reporting.feedback.preprocessors.clear_rubrics import ClearRubrics
    from instructor.reporting.feedback.preprocessors.mark_pending import MarkPendingGrades
    from instructor.reporting.feedback.preprocessors.name_cells import NameGradedCells
    from instructor.settings import configure

    c = configure(Config(), Path("/nowhere"))
    names = [p.__name__ for p in c.GenerateFeedback.preprocessors]
    assert {
        "ClearHiddenTestsOfTests",
        ClearRubrics.__name__,
        MarkPendingGrades.__name__,
        NameGradedCells.__name__,
    } <= set(names)
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
        whys = [
            html_lib.unescape(re.sub(r'<code class="value">.*?</code>', "…", w, flags=re.S))
            for w in re.findall(r"<b>Why it failed:</b> (.*?)</p>", page, flags=re.S)
        ]
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


VALUES_CELL = """x = f()
assert x.shape == (5, 3), f"shape {x.shape}, expected (5, 3)"
assert x.dtype == "float32", f"dtype {x.dtype}, expected float32"
### BEGIN HIDDEN TESTS
y = g(secret_input)
assert y == 1, f"got {y} for {secret_input}"
# feedback shows: y
assert y == 2, f"got {y} for {secret_input}"
assert y == 3, f"got {y}"
### END HIDDEN TESTS
"""


def _judged_error(line: int, message: str) -> list[dict]:
    """The error output the grader's judge writes for a check that failed at ``line`` with ``message``."""
    return [
        {
            "output_type": "error",
            "ename": "AssertionError",
            "evalue": message,
            "traceback": [f"Judged by the grader, outside your kernel: Cell In[3], line {line}"],
        }
    ]


def _said(how, cell: str, line: int, message: str):
    """What ``how`` (a function of :mod:`instructor.reporting.failures`) makes of a check of ``cell`` that failed
    at ``line`` with ``message``."""
    return how(cell, _judged_error(line, message))


def test_feedback_shows_the_values_a_check_may_show():
    """A visible check's values as Validate shows them; a hidden check's only where its author marked the name
    (``# feedback shows:``); text that is not a value's never; the class report keeps one line per check."""
    from instructor.reporting.failures import name_failure, report_line, tell_student, tell_student_parts

    said = _said(tell_student_parts, VALUES_CELL, 2, "shape (5, 4), expected (5, 3)")
    assert said == [("shape ", False), ("(5, 4)", True), (", expected (5, 3)", False)]
    assert _said(tell_student, VALUES_CELL, 3, "dtype float64, expected float32") == "dtype float64, expected float32"
    # a value's text only: a string the student's code chose (it could carry anything) stays elided
    assert _said(tell_student, VALUES_CELL, 2, "shape aGlkZGVuIGxpbmU=, expected (5, 3)") == "shape …, expected (5, 3)"
    # a word of the cell's visible code is a value it may show; one only its hidden code holds is not
    named = (
        'for name in ("Wq", "Wk"):\n    assert grads[name] is not None, f"{name} got no gradient"\n'
        "### BEGIN HIDDEN TESTS\nsecret_weights = 1\n### END HIDDEN TESTS\n"
    )
    assert _said(tell_student, named, 2, "Wq got no gradient") == "Wq got no gradient"
    assert _said(tell_student, named, 2, "secret_weights got no gradient") == "… got no gradient"
    # a message that is not this check's (forged, or cut) shows no value at all
    assert _said(tell_student, VALUES_CELL, 2, "shape (5, 4) expected") == "shape …, expected (5, 3)"
    # hidden: unmarked names stay elided, marked ones show; a field reading an unmarked name stays elided
    assert _said(tell_student, VALUES_CELL, 6, "got 7 for [1 2 3]") == "got … for …"
    assert _said(tell_student, VALUES_CELL, 8, "got 7 for [1 2 3]") == "got 7 for …"
    assert _said(tell_student, VALUES_CELL, 9, "got 7") == "got 7"
    # the class report groups by the elided form, and writes it on one line with each value named by its code
    assert _said(name_failure, VALUES_CELL, 2, "shape (5, 4), expected (5, 3)") == "shape …, expected (5, 3)"
    assert _said(report_line, VALUES_CELL, 2, "shape (5, 4), expected (5, 3)") == "shape {x.shape}, expected (5, 3)"
    multi = 'm = f()\nassert (m == 1).all(), f"sequence 0:\\n{m.astype(int)}\\nexpected\\n{full}"\n'
    failed = "sequence 0:\n[1 0]\nexpected\n[1 1]"
    assert _said(report_line, multi, 2, failed) == "sequence 0: {m.astype(int)} expected {full}"
    assert _said(tell_student, multi, 2, failed) == failed


def test_the_hidden_output_note_only_where_a_hidden_check_failed():
    """Is "This cell ran hidden tests" said only of a cell whose failed check is hidden (its outputs are
    withheld either way)?"""
    import nbformat
    from nbformat.v4 import new_code_cell, new_output

    from instructor.reporting.feedback.preprocessors.explain_verdicts import ExplainVerdicts
    from instructor.reporting.feedback.preprocessors.hide_hidden_test_outputs import HideHiddenTestOutputs

    def test_cell(name, score, line):
        cell = new_code_cell(
            VALUES_CELL,
            metadata={
                "nbgrader": {
                    "grade": True,
                    "grade_id": name,
                    "points": 1,
                    "score": score,
                    "solution": False,
                    "locked": True,
                }
            },
        )
        cell.outputs = [new_output("stream", name="stdout", text="printed while it ran\n")]
        if line:
            cell.outputs += [nbformat.from_dict(o) for o in _judged_error(line, "got 7")]
        return cell

    nb = nbformat.v4.new_notebook(
        cells=[test_cell("passed", 1, 0), test_cell("visible", 0, 2), test_cell("hidden", 0, 9)]
    )
    nb, resources = ExplainVerdicts(enabled=True).preprocess(nb, {})
    nb, _ = HideHiddenTestOutputs().preprocess(nb, resources)
    shown = {c.metadata.nbgrader.grade_id: "".join(o.get("text", "") for o in c.outputs) for c in nb.cells}
    assert shown["passed"] == "" and shown["visible"] == ""
    assert shown["hidden"].startswith("This cell ran hidden tests; its output is not shown")
    assert [c.metadata.nbgrader.get("hidden_failed") for c in nb.cells] == [None, False, True]
    assert nb.cells[2].metadata.nbgrader.why == "got 7"


ANSWER = "def norm(x):\n    centred = x - x.mean(axis=-1)\n    return centred\n"


def _raised_error(ename: str, message: str, frames: list[tuple[int, int]]) -> list[dict]:
    """An error output as the kernel writes it, with a cell frame per (run count, line)."""
    return [
        {
            "output_type": "error",
            "ename": ename,
            "evalue": message,
            "traceback": [f"Cell \x1b[0;32mIn[{count}], line {line}\x1b[0m" for count, line in frames]
            + [f"{ename}: {message}"],
        }
    ]


def _failed_test_cell(name: str, count: int, source: str, outputs: list[dict]):
    """A graded test cell ``name`` (1 point) that scored 0 with ``outputs``, as autograde leaves it."""
    import nbformat
    from nbformat.v4 import new_code_cell

    nbgrader = {"grade": True, "grade_id": name, "points": 1, "score": 0, "solution": False, "locked": True}
    return new_code_cell(
        source,
        execution_count=count,
        outputs=[nbformat.from_dict(o) for o in outputs],
        metadata={"nbgrader": nbgrader},
    )


def test_an_error_of_the_students_code_keeps_its_type_line_and_message():
    """Does a failed cell whose check ran the student's code into an exception say its type, the student's own
    line (from their cell, not the traceback's text) and its message: whole before any hidden code ran, after
    hidden code only when the student's own run of the cell showed the same, during a hidden check never?"""
    import nbformat
    from nbformat.v4 import new_code_cell

    from instructor.reporting.feedback.preprocessors.explain_verdicts import ExplainVerdicts

    broadcast = "operands could not be broadcast together with shapes (6,3,10) (6,3)"
    answer = new_code_cell(
        ANSWER,
        execution_count=1,
        metadata={"nbgrader": {"grade": False, "solution": True, "locked": False, "grade_id": "norm"}},
    )

    def test_cell(name, count, source, outputs):
        return _failed_test_cell(name, count, source, outputs)

    calls = "# Check norm\nout = norm(x)\nassert out.shape == (2, 3), 'shape'\n"
    hidden = calls + "### BEGIN HIDDEN TESTS\nsecret_out = norm(secret_input_of_this_check)\n### END HIDDEN TESTS\n"
    nb = nbformat.v4.new_notebook(
        cells=[
            answer,
            test_cell("before", 2, calls, _raised_error("ValueError", "my words: " + broadcast, [(2, 2), (1, 2)])),
            test_cell("hidden", 3, hidden, _raised_error("ValueError", broadcast, [(3, 5), (1, 2)])),
            test_cell("library", 4, calls, _raised_error("ValueError", broadcast, [(4, 2), (1, 2)])),
            test_cell(
                "smuggled", 5, calls, _raised_error("ValueError", "c2VjcmV0X2lucHV0X29mX3RoaXM=", [(4, 2), (1, 2)])
            ),
            test_cell("forged", 6, calls, _raised_error("ValueError", broadcast, [(6, 2), (3, 4)])),
            # words that all stand in the cell's visible code or a library's errors, but quote a hidden line
            test_cell(
                "quoting",
                7,
                "# secret_out secret_input_of_this_check\n" + calls,
                _raised_error("ValueError", "secret_out = norm(secret_input_of_this_check)", [(7, 3), (1, 2)]),
            ),
        ]
    )
    # the student's own run (the notebook they handed in) failed the "library" cell with the same error
    own = {"own_outputs": {nb.cells[3].id: list(nb.cells[3].outputs)}}
    nb, _ = ExplainVerdicts(enabled=True).preprocess(nb, own)
    raised = {c.metadata.nbgrader.grade_id: c.metadata.nbgrader.get("raised") for c in nb.cells[1:]}
    line = "centred = x - x.mean(axis=-1)"
    # before any hidden code: the message whole, the student's own words included
    assert raised["before"] == {
        "exception": "ValueError",
        "message": "my words: " + broadcast,
        "line": line,
        "hidden": False,
        "after_hidden": False,
    }
    # during a hidden check: the type and the student's line, never the message (it may quote hidden inputs)
    assert raised["hidden"] == {
        "exception": "ValueError",
        "message": None,
        "line": line,
        "hidden": True,
        "after_hidden": True,
    }
    # after hidden code: a message the student's own run showed too shows, text only the grader's run holds does not
    assert raised["library"]["message"] == broadcast and raised["library"]["line"] == line
    assert raised["smuggled"]["message"] is None and raised["smuggled"]["line"] == line
    # a traceback pointing into a test cell (which holds hidden lines) quotes no line
    assert raised["forged"]["line"] is None
    assert raised["quoting"]["message"] is None
    assert "secret_input" not in str(raised)


#: hidden inputs, as the kernel that kept them writes them back: as shapes
KEPT = "(342,13597,12247) (5103,2980)"
#: a visible check that catches the answer's ValueError and shows its text
CAUGHT = (
    "# Check norm\ntry:\n    out = norm(x)\n    error = None\nexcept ValueError as err:\n    error = str(err)\n"
    'assert error is None, f"norm raised ValueError({error!r}) on x of shape (2, 3)"\n'
)
#: the words of NumPy's broadcast error, with the kept values
BROADCAST_KEPT = "operands could not be broadcast together with shapes " + KEPT


def _after_hidden_code(own_run: str) -> dict:
    """The page's explanations of three visible test cells that failed after a hidden check had run: an uncaught
    ValueError whose text holds :data:`KEPT` ("library"), one whose class is named with it ("named"), one that
    :data:`CAUGHT` shows ("caught"). ``own_run``: what the student's own run of those cells holds (the notebook
    they handed in): "none", "other" (a different failure) or "same" (the same errors)."""
    import nbformat
    from nbformat.v4 import new_code_cell

    from instructor.reporting.feedback.preprocessors.explain_verdicts import ExplainVerdicts

    calls = "# Check norm\nout = norm(x)\nassert out.shape == (2, 3), 'shape'\n"
    hidden = calls + "### BEGIN HIDDEN TESTS\nsecret_out = norm(secret_input_of_this_check)\n### END HIDDEN TESTS\n"
    judged = _judged_error(7, f"norm raised ValueError({KEPT!r}) on x of shape (2, 3)")
    tests = [
        _failed_test_cell("hidden", 2, hidden, []),
        _failed_test_cell("library", 3, calls, _raised_error("ValueError", BROADCAST_KEPT, [(3, 2), (1, 2)])),
        _failed_test_cell("named", 4, calls, _raised_error("L342_13597_12247", KEPT, [(4, 2), (1, 2)])),
        _failed_test_cell("caught", 5, CAUGHT, judged),
    ]
    for cell in tests:
        cell.id = cell.metadata.nbgrader.grade_id
    other = _raised_error("ValueError", "my own run: another message", [(9, 2)])
    own = {
        "none": {},
        "other": {c.id: other for c in tests[1:]},
        "same": {c.id: list(c.outputs) for c in tests[1:]},
    }[own_run]
    nbgrader = {"grade": False, "solution": True, "locked": False, "grade_id": "norm"}
    answer = new_code_cell(ANSWER, execution_count=1, metadata={"nbgrader": nbgrader})
    nb = nbformat.v4.new_notebook(cells=[answer, *tests])
    nb, _ = ExplainVerdicts(enabled=True).preprocess(nb, {"own_outputs": own})
    return {c.id: c.metadata.nbgrader for c in nb.cells[2:]}


@pytest.mark.parametrize("own_run", ["none", "other"])
def test_after_hidden_code_an_exceptions_text_shows_only_as_the_students_own_run_showed_it(own_run):
    """Code in the kernel can keep what a hidden check passed it and raise it later in words that read as
    NumPy's (36 hidden inputs reached a page so): after hidden code, is an exception's text withheld unless
    the student's own run of the cell (the notebook they handed in) failed with the same text, its type and
    line kept; and shown whole when it did?"""
    meta = _after_hidden_code(own_run)["library"]
    assert meta.raised["message"] is None and meta.raised["exception"] == "ValueError"
    assert meta.raised["line"] == "centred = x - x.mean(axis=-1)"
    assert _after_hidden_code("same")["library"].raised["message"] == BROADCAST_KEPT


@pytest.mark.parametrize("own_run", ["none", "other"])
def test_after_hidden_code_a_visible_checks_values_show_only_as_the_students_own_run_showed_them(own_run):
    """A visible check after hidden code shows values the kernel made (here an exception's text it caught): are
    they "…" unless the student's own run of the cell failed that check with the same values, and shown then?"""
    meta = _after_hidden_code(own_run)["caught"]
    assert meta.why == "norm raised ValueError(…) on x of shape (2, 3)" and "342" not in str(meta.why_parts)
    meta = _after_hidden_code("same")["caught"]
    assert meta.why == f"norm raised ValueError({KEPT!r}) on x of shape (2, 3)"
    assert [text for text, value in meta.why_parts if value] == [repr(KEPT)]


@pytest.mark.parametrize("own_run", ["none", "other"])
def test_after_hidden_code_an_exceptions_name_shows_only_if_it_is_pythons_or_the_students_own_runs(own_run):
    """A class made at run time can be named with what the kernel kept: after hidden code, is an exception's name
    shown only if it is Python's or NumPy's, or the one the student's own run of the cell raised?"""
    meta = _after_hidden_code(own_run)["named"]
    assert meta.raised["exception"] == "an exception" and meta.raised["message"] is None
    assert meta.why == "an exception at: `out = norm(x)`" and "13597" not in str(meta)
    meta = _after_hidden_code("same")["named"]
    assert meta.raised["exception"] == "L342_13597_12247" and meta.raised["message"] == KEPT


def test_the_page_shows_the_raised_error_as_inert_text(tmp_path):
    """Does the page render the student's line and message escaped, and the reason a message is withheld?"""
    import nbformat
    import nbgrader
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    from instructor.settings import configure

    cell = nbformat.v4.new_code_cell(
        "out = norm(x)",
        metadata={
            "nbgrader": {
                "grade": True,
                "grade_id": "norm__shape",
                "points": 1,
                "score": 0,
                "solution": False,
                "locked": True,
                "verdict": "failed",
                "why": "ValueError at: `out = norm(x)`",
                "raised": {
                    "exception": "ValueError",
                    "message": "<b>bold</b>",
                    "line": "y = x < 3",
                    "hidden": False,
                    "after_hidden": False,
                },
            }
        },
    )
    withheld = nbformat.from_dict(cell)
    withheld.id = "withheld"
    withheld.metadata.nbgrader.raised = {
        "exception": "ValueError",
        "message": None,
        "line": "y = x < 3",
        "hidden": True,
        "after_hidden": True,
    }
    config = configure(Config(), tmp_path)
    # what nbgrader's generate_feedback adds: the folder of the page's bootstrap.min.css
    bootstrap = Path(nbgrader.__file__).parent / "server_extensions/formgrader/static/node_modules/bootstrap/dist/css"
    config.HTMLExporter.extra_template_paths = [*config.HTMLExporter.extra_template_paths, str(bootstrap)]
    exporter = HTMLExporter(config=config, template_name="feedback")
    page, _ = exporter.from_notebook_node(
        nbformat.v4.new_notebook(cells=[cell, withheld]),
        resources={"nbgrader": {"score": 0, "max_score": 2, "late_penalty": 0}},
    )
    assert 'Your code raised <code>ValueError</code>, at your line <code class="student">y = x &lt; 3</code>' in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold</b>" not in page
    assert "during a hidden check, at your line" in page and "it could hold the hidden check's inputs" in page


def test_cells_after_hidden_checks_show_the_students_own_outputs(tmp_path):
    """After the first hidden check, does a cell show no output of the grader's run (which could carry what
    hidden checks held), and instead its output from the notebook the student handed in, marked as theirs;
    a test cell nothing; the note on hidden tests only on the cell that ran them?"""
    import nbformat
    from nbformat.v4 import new_code_cell, new_output
    from traitlets.config import Config

    from instructor.reporting.feedback.preprocessors.hide_hidden_test_outputs import HideHiddenTestOutputs

    def cell(cid, source, text, **nbgrader):
        made = new_code_cell(source, outputs=[new_output("stream", name="stdout", text=text)])
        made.id = cid
        if nbgrader:
            made.metadata["nbgrader"] = nbgrader
        return made

    hidden = "### BEGIN HIDDEN TESTS\nassert add(-40, 2) == -38, 'secret'\n### END HIDDEN TESTS\n"
    graded = {"grade": True, "solution": False, "locked": True, "points": 1, "grade_id": "t"}
    nb = nbformat.v4.new_notebook(
        cells=[
            cell("before", "print(1)", "grader's run, before any hidden code\n"),
            cell("hidden", f"assert True\n{hidden}", "printed during the hidden check\n", hidden_failed=True, **graded),
            cell("mine", "print(loss)", "grader's run: assert add(-40, 2) == -38\n"),
            cell("training", "train()", "grader's run: 2 steps\n", grade=False, solution=False, locked=True),
            cell("test", "assert add(1, 2) == 3", "grader's run of a visible test\n", **{**graded, "grade_id": "u"}),
            cell("new", "print('a cell the grader ran that the handed-in notebook lacks')", "grader's run\n"),
        ]
    )
    handed_in = nbformat.v4.new_notebook(
        cells=[
            cell("mine", "print(loss)", "loss 0.25 in my own run\n"),
            cell("training", "train()", "2000 steps in 61.0 s, 30.5 ms a step\n"),
            cell("test", "assert add(1, 2) == 3", "my own run of the test\n"),
        ]
    )
    folder = tmp_path / "submitted" / "eve" / "a"
    folder.mkdir(parents=True)
    nbformat.write(handed_in, str(folder / "a.ipynb"))
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    resources = {"nbgrader": {"student": "eve", "assignment": "a", "notebook": "a"}}
    nb, _ = HideHiddenTestOutputs(config=config).preprocess(nb, resources)
    shown = {c.id: "".join(o.get("text", "") for o in c.outputs) for c in nb.cells}
    assert shown["before"] == "grader's run, before any hidden code\n"
    assert shown["hidden"].startswith("This cell ran hidden tests")
    assert shown["mine"] == "From your own run (the notebook you handed in):\nloss 0.25 in my own run\n"
    assert shown["training"].endswith("2000 steps in 61.0 s, 30.5 ms a step\n")
    assert shown["test"] == "" and shown["new"] == ""
    assert "grader's run:" not in str(nb.cells) and sum("ran hidden tests" in s for s in shown.values()) == 1
    # without the handed-in notebook (graded from another folder): nothing, and no note on each cell
    nb2 = nbformat.v4.new_notebook(
        cells=[cell("hidden", f"assert True\n{hidden}", "x\n", **graded), cell("mine", "print(loss)", "grader's run\n")]
    )
    nb2, _ = HideHiddenTestOutputs(config=Config()).preprocess(
        nb2, {"nbgrader": {"student": "bob", "assignment": "a", "notebook": "a"}}
    )
    assert nb2.cells[1].outputs == []


def test_cells_after_hidden_checks_show_the_run_counts_of_the_students_own_run(tmp_path):
    """Code in the kernel sets the run count the grader's run records (``In [10342]`` after hidden code carried a
    hidden value): from the first cell with hidden checks on, is a cell's count its count in the notebook the
    student handed in (none where it has none), and before it the grader's run's?"""
    import nbformat
    from nbformat.v4 import new_code_cell
    from traitlets.config import Config

    from instructor.reporting.feedback.preprocessors.hide_hidden_test_outputs import HideHiddenTestOutputs

    def cell(cid, count, source="x = 1"):
        made = new_code_cell(source, execution_count=count)
        made.id = cid
        return made

    hidden = "assert True\n### BEGIN HIDDEN TESTS\nassert add(-40, 2) == -38, 'secret'\n### END HIDDEN TESTS\n"
    graded = {"grade": True, "solution": False, "locked": True, "points": 1, "grade_id": "t"}
    test = cell("hidden", 2, hidden)
    test.metadata["nbgrader"] = graded
    nb = nbformat.v4.new_notebook(cells=[cell("before", 1), test, cell("mine", 10342), cell("new", 10343)])
    folder = tmp_path / "submitted" / "eve" / "a"
    folder.mkdir(parents=True)
    handed_in = nbformat.v4.new_notebook(cells=[cell("before", 4), cell("hidden", 5), cell("mine", 6)])
    nbformat.write(handed_in, str(folder / "a.ipynb"))
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    resources = {"nbgrader": {"student": "eve", "assignment": "a", "notebook": "a"}}
    nb, _ = HideHiddenTestOutputs(config=config).preprocess(nb, resources)
    assert {c.id: c.execution_count for c in nb.cells} == {"before": 1, "hidden": 5, "mine": 6, "new": None}


def test_an_error_names_the_earlier_task_it_came_out_of():
    """When the student's code raised while a later task's check ran it, does "fix that first" name the task
    whose answer the error came out of (only that one), and nothing when it came out of the task's own answer?"""
    import nbformat
    from nbformat.v4 import new_code_cell

    from instructor.reporting.feedback.preprocessors.explain_verdicts import ExplainVerdicts

    def answer(name, count, source):
        return new_code_cell(
            source,
            execution_count=count,
            metadata={"nbgrader": {"grade": False, "solution": True, "locked": False, "grade_id": name}},
        )

    def test(name, count, source, frames):
        cell = _failed_test_cell(name, count, source, _raised_error("TypeError", "not tuple", frames))
        cell.metadata["course"] = {"task": name.split("__")[0]}
        return cell

    mask = "def mask(lengths):\n    return lengths[:, None]\n"
    model = "def model(x, lengths):\n    m = mask(lengths)\n    return x + m\n"
    nb = nbformat.v4.new_notebook(
        cells=[
            answer("mask", 1, mask),
            test("mask__shape", 2, "m = mask([2, 1])\nassert m.shape == (2, 1)\n", [(2, 1), (1, 2)]),
            answer("model", 3, model),
            test("model__in_mask", 4, "out = model(x, [2])\nassert out.shape == (2,)\n", [(4, 1), (3, 2), (1, 2)]),
            test("model__own", 5, "out = model(x, [2])\nassert out.shape == (2,)\n", [(5, 1), (3, 3)]),
        ]
    )
    nb, _ = ExplainVerdicts(enabled=True).preprocess(nb, {})
    meta = {c.metadata.nbgrader.grade_id: c.metadata.nbgrader for c in nb.cells}
    assert meta["model__in_mask"].raised["line"] == "return lengths[:, None]"
    assert meta["model__in_mask"].depends == [["mask", "mask"]]
    assert meta["model__own"].raised["line"] == "return x + m" and meta["model__own"].depends == []


def test_the_cached_checks_of_a_cell_cannot_be_changed_by_a_caller():
    """failures.checks is cached (a class's pages ask about the same release cells): what it gives is frozen."""
    import dataclasses

    from instructor.reporting.failures import checks

    source = 'x = 1\nassert x == 2, f"x is {x}, not 2"\n'
    found = checks(source)
    assert isinstance(found, tuple) and found == checks(source)
    assert [(c.first, c.words, c.parts) for c in found if c.judges] == [(2, "x is …, not 2", ("x is ", ", not 2"))]
    with pytest.raises(dataclasses.FrozenInstanceError):
        found[0].words = "changed"


def test_a_class_of_pages_compiles_each_template_once(graded_class, monkeypatch):
    """nbgrader makes a new exporter for every page: does the course's exporter compile each template once
    in a process, and write the same pages as nbconvert's own exporter?"""
    import jinja2
    from nbconvert.exporters import HTMLExporter
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    from instructor.coursedir.course_dir import CourseDir
    from instructor.grading.config import grading_config
    from instructor.reporting.feedback import template
    from instructor.reporting.feedback.chain import add_feedback_chain
    from instructor.reporting.feedback.pages import feedback

    course, _ = graded_class
    compiled = []
    compile_ = jinja2.Environment.compile

    def counted(self, source, name=None, filename=None, *args, **kwargs):
        compiled.append(filename)
        return compile_(self, source, name, filename, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counted)
    template.COMPILED._code.clear()  # as a new process starts
    files, failures = feedback(CourseDir.at(course), log=lambda *_: None)
    assert failures == [] and len(files) >= 10
    by_file = [f for f in compiled if f is not None]
    assert by_file and len(by_file) == len(set(by_file)), by_file  # each template file once, for all the pages
    pages = {f: f.read_bytes() for f in files}

    # one page again with nbconvert's own environment (no cache): everything compiled again, the same bytes
    monkeypatch.setattr(template.FeedbackExporter, "environment", HTMLExporter.environment)
    compiled.clear()
    page = files[0]
    student, assignment = page.relative_to(course / "feedback").parts[:2]
    cfg = add_feedback_chain(grading_config(CourseDir.at(course)))  # as `course feedback` configures it
    api = NbGraderAPI(coursedir=CourseDirectory(config=cfg), config=cfg)
    assert api.generate_feedback(assignment, student, force=True)["success"]
    assert sorted(f for f in compiled if f is not None) == sorted(by_file)
    assert page.read_bytes() == pages[page]
