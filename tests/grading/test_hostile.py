"""Does the hostile corpus (tests/hostile/) end as expected, with the reference untouched?

The whole corpus is graded once, two submissions at a time, in one
course directory with the cheats in the kernel (tests/grading/conftest.py),
with small limits (10 s per cell, 60 s per notebook, 1 GB; smaller ones for
the cases about time), then feedback is written for every graded submission
and searched for leaks.
Set COURSE_HOSTILE_TABLE=FILE to keep the table of outcomes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

import nbformat
import pytest

from instructor import sandbox
from instructor.cells import hidden_lines
from instructor.coursedir.course_dir import CourseDir
from instructor.grading.submission import Submission
from instructor.paths import REPO_ROOT, SOLUTIONS, notebook_path
from instructor.reporting import export
from instructor.reporting.table import grades
from instructor.sandbox import cgroup
from tests.hostile.cases import FULL, SECRET, A
from tests.hostile.grading import part, scores_over_the_release


@pytest.fixture(scope="module")
def corpus(graded_corpus):
    """The hostile corpus's cases and results (tests/grading/conftest.py grades it with the cheats in the kernel)."""
    mine = part(graded_corpus, graded_corpus["hostile"])
    table = _table(mine["cases"], mine["outcomes"])
    print("\n" + table)
    if os.environ.get("COURSE_HOSTILE_TABLE"):
        Path(os.environ["COURSE_HOSTILE_TABLE"]).write_text(table + "\n")
    return mine


def _table(cases, outcomes) -> str:
    lines = ["| case | class | outcome | reason shown | seconds |", "|---|---|---|---|---|"]
    for case in cases:
        o = outcomes[case.name]
        shown = o.status.shown if o.status.shown == "not graded" else f"{o.status.shown} {o.score:g}/{o.max_score:g}"
        lines.append(f"| {case.name} | {case.class_} | {shown} | {o.reason or '-'} | {o.seconds:.1f} |")
    return "\n".join(lines)


def test_corpus_is_large_and_covers_every_class(corpus):
    """Does the corpus hold at least 30 hostile cases across every class of the issue?"""
    hostile = [c for c in corpus["cases"] if c.class_ != "control"]
    assert len(hostile) >= 30
    classes = {c.class_ for c in hostile}
    for needed in (
        "broken file",
        "tampered metadata",
        "tampered cells",
        "runaway time",
        "runaway memory",
        "runaway output",
        "runaway processes",
        "exits and crashes",
        "cheat in the kernel",
        "attack on files",
        "attack on the gradebook",
        "attack on other students",
        "attack on the grader",
        "leak through outputs",
        "HTML injection",
        "symlinks",
    ):
        assert needed in classes


def test_every_case_ends_as_expected(corpus):
    """Does every submission end as its case says: a score, a flag, or not graded with its reason?"""
    wrong = []
    for case in corpus["cases"]:
        o = corpus["outcomes"][case.name]
        kind, what = case.expect
        if kind == "graded":
            ok = o.status.shown == "graded" and o.score == what
        elif kind == "flagged":
            ok = o.status.shown == "flagged" and what in o.reason
        else:
            ok = o.status.shown == "not graded" and what in o.reason
        if not ok:
            wrong.append(f"{case.name}: expected {case.expect}, got {o.status.shown} {o.score} {o.reason!r}")
    assert not wrong, "\n".join(wrong)


def test_no_recorded_score_exceeds_the_release(corpus):
    """Does no cell's recorded points exceed what the release gives it, nor any total the assignment's maximum?"""
    assert scores_over_the_release(corpus["course_dir"]) == []
    assert {n: o.score for n, o in corpus["outcomes"].items() if (o.score or 0) > FULL} == {}


def test_reference_keeps_full_marks_and_no_flag(corpus):
    """Is the reference, graded among the hostile cases, at full marks and flagged by nothing?"""
    rows = {g.student: g for g in grades(CourseDir.at(corpus["course_dir"]))}
    assert rows["reference"].auto_score == rows["reference"].auto_max == FULL
    assert rows["reference"].status == "graded" and not corpus["outcomes"]["reference"].flags
    assert rows["blank"].auto_score == 0 and rows["blank"].status == "graded"


def test_no_cheat_pays(corpus):
    """Does every cheat in the kernel score 0, flagged or not? (Checks are judged outside the kernel.)"""
    for case in corpus["cases"]:
        if case.class_ == "cheat in the kernel":
            o = corpus["outcomes"][case.name]
            assert o.status.shown == "not graded" or o.score == 0, case.name


def test_attacks_change_nothing_outside(corpus):
    """Are the gradebook, another student's notebook and the host untouched, and no process left?"""
    assert hashlib.sha256(corpus["other"].read_bytes()).hexdigest() == corpus["other_hash"]
    assert (corpus["course_dir"] / "gradebook.db").read_bytes()[:16] == b"SQLite format 3\x00"
    # other tests and other runs may be grading at the same moment (pytest-xdist, a second checkout, a run
    # without limits, so in no cgroup): look at this process's sandboxes only, by cgroup and by descent.
    # A sandbox cannot leave its cgroups (it is no root) nor outlive its bwrap (a pid namespace of its own),
    # so each of its processes stays in one or descends from this process while it lives.
    mine = f"{cgroup.PARENT}/{cgroup.prefix()}"
    left = [
        pid
        for pid in subprocess.run(
            ["pgrep", "-u", f"{sandbox.NOBODY},{sandbox.KERNEL_UID}"], capture_output=True, text=True
        ).stdout.split()
        if mine in (_cgroups_of(pid) or "") or _descends_from(pid, os.getpid())
    ]
    assert not left, f"processes of uid {sandbox.NOBODY} or {sandbox.KERNEL_UID} outlived grading: {left}"
    assert not [name for name in cgroup.Group(cgroup.PARENT).children() if name.startswith(mine)]


def _cgroups_of(pid: str) -> str | None:
    try:
        return Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:  # ended meanwhile
        return None


def _descends_from(pid: str, ancestor: int) -> bool:
    """Is ``ancestor`` on the chain of parents of ``pid`` (False once the chain ends, or ``pid`` did)?"""
    seen = int(pid)
    while seen > 1:
        if seen == ancestor:
            return True
        try:  # the parent is the field after the state, which follows the command name's closing parenthesis
            seen = int(Path(f"/proc/{seen}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            return False
    return False


def test_every_submission_has_a_log_and_csv_row(corpus, tmp_path):
    """Does each submission end in the CSV as a grade or `not graded` with its reason, with a log kept?"""
    ws = corpus["course_dir"]
    csv_text = export.export_csv(CourseDir.at(ws), tmp_path / "grades.csv").read_text()
    for case in corpus["cases"]:
        o = corpus["outcomes"][case.name]
        if o.status.shown == "not graded":
            assert o.reason in csv_text
    assert len(list((ws / "logs").rglob("*.log"))) >= len(corpus["cases"])


def _secret_lines() -> set[str]:
    source = nbformat.read(str(notebook_path(A, SOLUTIONS)), as_version=4)
    lines = {line for c in source.cells for line in hidden_lines(c.source) if len(line) >= 16}
    assert lines
    return lines


def test_feedback_leaks_nothing(corpus):
    """Is every feedback page free of hidden tests, scripts, the grader's secrets, symlinks and huge outputs?"""
    assert not corpus["feedback_failures"]
    pages = corpus["feedback"]
    graded = [o for o in corpus["outcomes"].values() if o.status.shown != "not graded"]
    assert len(pages) == len(graded)
    secrets = _secret_lines()
    for page in pages:
        text = page.read_text()
        assert page.stat().st_size < 3_000_000, page
        assert not [s for s in secrets if s in text], page
        assert "<script>alert" not in text and "alert('owned')</script>" not in text, page
        assert SECRET not in text, page
    feedback_root = corpus["course_dir"] / "feedback"
    others = [p for p in feedback_root.rglob("*") if p.is_symlink() or (p.is_file() and p.suffix != ".html")]
    assert not others


# --------------------------------------------------------------------------- the guards on their own (no kernel)


@pytest.mark.parametrize("assignment", ["01_rnn", "02_seq2seq", "03_attention", "04_transformer"])
@pytest.mark.parametrize("folder", ["solutions", "notebooks"])
def test_honest_notebooks_are_never_flagged(assignment, folder):
    """Does the test-machinery scan leave every reference and blank notebook of the course alone?"""
    from instructor.grading.preprocessors.flag_test_machinery import FlagTestMachinery

    nb = nbformat.read(str(notebook_path(assignment, REPO_ROOT / folder)), as_version=4)
    _, resources = FlagTestMachinery()(nb, {})
    assert resources["course"].flags == []


@pytest.mark.parametrize("assignment", ["01_rnn", "02_seq2seq", "03_attention", "04_transformer"])
def test_no_test_cell_returns_a_value(assignment):
    """Does every test cell of the course end in a statement, so that a value returned by one is the kernel's doing?"""
    import ast

    from instructor.cells import is_graded_test

    nb = nbformat.read(str(notebook_path(assignment, REPO_ROOT / "solutions")), as_version=4)
    ending = [
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if is_graded_test(c)
        and (body := ast.parse(c.source).body)
        and isinstance(body[-1], ast.Expr)
        and not (isinstance(body[-1].value, ast.Call) and getattr(body[-1].value.func, "id", "") == "print")
    ]
    assert ending == []


def test_a_test_cell_whose_output_the_kernel_shaped_scores_zero():
    """Is a returned number before an error, a widget, or an error past the byte cap no pass (nbgrader's rule
    says pass)?"""
    from nbformat.v4 import new_code_cell, new_notebook, new_output
    from nbgrader.utils import determine_grade

    from instructor.grading.preprocessors.cap_output_bytes import CapOutputBytes
    from instructor.grading.preprocessors.fail_shaped_outputs import (
        FailShapedTestOutputs,
    )

    meta = {"nbgrader": {"grade": True, "solution": False, "locked": True, "points": 3, "grade_id": "t"}}
    error = new_output("error", ename="AssertionError", evalue="wrong", traceback=[])
    cells = [
        new_code_cell(
            "assert f() == 1",
            metadata=meta,
            outputs=[new_output("execute_result", data={"text/plain": "3.0"}, execution_count=1), error],
        ),
        new_code_cell(
            "assert f() == 1",
            metadata=meta,
            outputs=[
                new_output(
                    "display_data",
                    data={
                        "application/vnd.jupyter.widget-view+json": {"model_id": "m", "version_major": 2},
                        "text/plain": "Output()",
                    },
                )
            ],
        ),
        new_code_cell(
            "assert f() == 1", metadata=meta, outputs=[new_output("stream", name="stdout", text="x" * 70_000), error]
        ),
        new_code_cell(
            "assert f() == 1", metadata=meta, outputs=[new_output("display_data", data={"image/png": "AAAA"})]
        ),
    ]
    assert [determine_grade(c)[0] for c in cells] == [3.0, 3.0, 0, 3.0]  # nbgrader's own rule
    nb, resources = FailShapedTestOutputs()(new_notebook(cells=cells), {})
    nb, _ = CapOutputBytes()(nb, resources)
    assert [determine_grade(c)[0] for c in nb.cells] == [0, 0, 0, 3.0]
    assert len(resources["course"].flags) == 2 and all("shaped by the kernel" in f for f in resources["course"].flags)
    assert nb.cells[2].outputs[-2]["ename"] == "AssertionError"  # the cap cut the padding, not the failure


@pytest.mark.parametrize(
    "code, reads",
    [
        ("print(In)", True),
        ("x = _ih[-1]", True),
        ("y = Out[2]", True),
        ("In = In", True),
        ("_i += 1", True),
        ("def f():\n    return In\nIn = 3", True),
        ("print(_i2)\nfor _i2 in range(4):\n    pass", True),
        ("for _i in range(3):\n    t += _i", False),
        ("x = [_i * 2 for _i in range(3)]", False),
        ("_i = 0\n_i += 1", False),
        ("def f(_i):\n    return _i", False),
        ("with open('x') as _i:\n    print(_i)", False),
        ("obj.In = 3\nprint(obj.In)", False),
    ],
)
def test_the_input_history_is_what_the_code_did_not_bind_itself(code, reads):
    """Is a loop variable named ``_i`` the student's own (not flagged), while reading ``In`` or ``_ih`` is?"""
    from nbformat.v4 import new_code_cell, new_notebook

    from instructor.grading.preprocessors.flag_test_machinery import FlagTestMachinery

    nb = new_notebook(cells=[new_code_cell(code)])
    _, resources = FlagTestMachinery()(nb, {})
    assert any("input history" in f for f in resources["course"].flags) == reads, resources["course"].flags


@pytest.mark.parametrize(
    "code, flagged",
    [
        ("from course.values import send\nsend('rnn__matches_numpy', 0)", True),
        ("from course.values import encode as enc", True),
        ("import course.values", True),
        ("import course . values as v", True),
        ("from course import runtime, values", True),
        ("m = __name__ and 'course.values'", True),
        ("from IPython.display import publish_display_data\npublish_display_data({'text/plain': 'ok'})", True),
        ("shell.display_pub.publish({})", True),
        ("display({'application/vnd.course.values+json': {}}, raw=True)", True),
        ("kind = 'application/' + 'vnd.course' + '.values+json'", True),
        ("from course.runtime import pick\nfrom course.figures import setup_backend", False),
        ("values = [1, 2]\nsend = {}\nencode = str.encode", False),
        ("# course.values is the grader's", False),
    ],
)
def test_the_graders_value_channel_is_flagged(code, flagged):
    """Is student code that names the channel the kernel sends values by (course.values, display data) flagged?"""
    from nbformat.v4 import new_code_cell, new_notebook

    from instructor.grading.preprocessors.flag_test_machinery import FlagTestMachinery

    nb = new_notebook(cells=[new_code_cell(code)])
    _, resources = FlagTestMachinery()(nb, {})
    assert any("value channel" in f for f in resources["course"].flags) == flagged, resources["course"].flags


#: "evil" written with a right-to-left override: it shows as "live"
FLIPPED = "\u202elive\u202c and \u2067x\u2069\u200f\u061c"


def test_direction_marks_in_answers_and_outputs_are_shown_not_obeyed():
    """Does the sanitiser show every mark that sets the direction of text (U+202E, isolates, LRM/RLM, ALM)
    as a visible <U+...> in a written answer (markdown and raw) and in each kind of output, so that no text
    the formgrader or a feedback page shows reads reversed?"""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

    from instructor.grading.preprocessors.inert_student_content import make_inert
    from instructor.terminal import BIDI

    code = new_code_cell("print(1)")
    code.outputs = [
        new_output("stream", name="stdout", text=FLIPPED),
        new_output("execute_result", data={"text/plain": FLIPPED}, execution_count=1),
        new_output("error", ename="ValueError", evalue=FLIPPED, traceback=[FLIPPED]),
    ]
    nb = new_notebook(cells=[new_markdown_cell(f"My answer: {FLIPPED}"), new_raw_cell(FLIPPED), code])
    for cell in nb.cells:
        make_inert(cell, set())
    text = json.dumps(nb, ensure_ascii=False)
    assert not re.search(f"[{BIDI}]", text), text
    assert "&lt;U+202E&gt;live&lt;U+202C&gt;" in nb.cells[0].source and "&lt;U+061C&gt;" in nb.cells[1].source
    assert nb.cells[2].outputs[0].text.startswith("<U+202E>live<U+202C> and <U+2067>x<U+2069><U+200F>")
    make_inert(nb.cells[0], set())  # a second pass (the feedback chain's) keeps the marks visible
    assert "&lt;U+202E&gt;live" in nb.cells[0].source


SETUP_CELL = {"nbgrader": {"grade": False, "grade_id": "setup", "locked": True, "schema_version": 3, "solution": False}}


@pytest.mark.parametrize(
    "code, flagged",
    [
        ("course.checks.close = lambda *a, **k: None", True),
        ("import course.checks\ncourse.checks.close = print", True),
        ("import course.checks as c\nc.close = print", True),
        ("from course import checks as ch\nch.close = print", True),
        ("checks.close = print", True),  # `checks` bound by the given setup cell
        ("c = checks\nc.close = print", True),
        ("course.runtime.QUICK += 1", True),
        ("course.layers.dense: object = None", True),
        ("del checks.close", True),
        ("setattr(checks, 'close', print)", True),
        ("delattr(course.checks, 'close')", True),
        ("checks.TABLE['x'] = 1", True),
        ("course.checks.close = print\nif (:", True),  # does not parse: the pattern still sees it
        ("result = checks.close(1, 1)\nok = course.runtime.QUICK == 1", False),
        ("model = course.layers.Dense(3, 4)\nmodel.weight = None", False),
        ("x = [0]\nx[course.runtime.QUICK] = 1", False),
        ("class Model:\n    pass\nm = Model()\nm.checks = 2", False),
        ("# course.checks.close = print", False),
    ],
)
def test_patching_the_student_package_is_flagged(code, flagged):
    """Is student code that assigns, deletes or setattr()s an attribute of a course module (course.checks.X =
    ...) flagged for review, with names the given setup cell imports counted, and the student's own objects
    left alone?"""
    from nbformat.v4 import new_code_cell, new_notebook

    from instructor.grading.preprocessors.flag_test_machinery import COURSE_MODULES, FlagTestMachinery

    setup = new_code_cell("from course import checks\nimport course.layers", metadata=SETUP_CELL)
    nb = new_notebook(cells=[setup, new_code_cell(code)])
    _, resources = FlagTestMachinery()(nb, {})
    assert any(COURSE_MODULES in f for f in resources["course"].flags) == flagged, resources["course"].flags


ANSWER_CELL = {
    "nbgrader": {"grade": False, "grade_id": "add_and_norm", "locked": False, "schema_version": 3, "solution": True}
}


@pytest.mark.parametrize(
    "code, answer_cell, flagged",
    [
        ("from course.recurrent import RNN", False, True),
        ("import course . recurrent as r", False, True),
        ("from course import runtime, recurrent", False, True),
        ("from course.ops import tanh_recurrence", False, True),
        ("h = ops.tanh_recurrence(x_part, h, w)", True, True),
        ("return ops.layer_norm(x, gain, bias)", True, True),
        ("from course.ops import softmax, layer_norm", True, True),
        ("fused = ops.layer_norm(x, gain, bias)", False, False),  # 04's timing cell, which is no answer
        ("def layer_norm(x):\n    return x", True, False),
        ("recurrent = h", True, False),
        ("# course.recurrent holds the course's", False, False),
        ("name = 'course.recurrent'", False, False),
    ],
)
def test_the_courses_own_answers_are_flagged(code, answer_cell, flagged):
    """Is an answer taken from the student package (01's fused RNN, 04's fused layer norm) flagged for review?"""
    from nbformat.v4 import new_code_cell, new_notebook

    from instructor.grading.preprocessors.flag_test_machinery import COURSE_ANSWERS, FlagTestMachinery

    nb = new_notebook(cells=[new_code_cell(code, metadata=ANSWER_CELL if answer_cell else {})])
    _, resources = FlagTestMachinery()(nb, {})
    assert any(COURSE_ANSWERS in f for f in resources["course"].flags) == flagged, resources["course"].flags


@pytest.mark.parametrize("assignment", ["01_rnn", "02_seq2seq", "03_attention", "04_transformer"])
@pytest.mark.parametrize("folder", ["solutions", "notebooks"])
def test_honest_notebooks_are_not_called_tampered(assignment, folder):
    """Does the tamper check take the reference (hidden tests, mark schemes) and the blank notebook as untouched?"""
    from instructor.grading.preprocessors.restore_tampered_cells import (
        RestoreTamperedCells,
    )

    nb = nbformat.read(str(notebook_path(assignment, REPO_ROOT / folder)), as_version=4)
    release = notebook_path(assignment, REPO_ROOT / "notebooks")
    course = Submission("s", assignment, release.parent, student_version=release)
    _, resources = RestoreTamperedCells()(nb, {"course": course})
    assert resources["course"].flags == []


def test_feedback_guards_escape_cap_and_withhold():
    """Are scripts escaped, huge outputs cut, outputs quoting hidden tests withheld, and nothing shown
    of a cell that ran after hidden code, however it is encoded?"""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    from instructor.grading.preprocessors.cap_output_bytes import CapOutputBytes
    from instructor.reporting.feedback.preprocessors.escape_student_html import (
        EscapeStudentHTML,
    )
    from instructor.reporting.feedback.preprocessors.hide_hidden_test_outputs import (
        HideHiddenTestOutputs,
    )
    from instructor.reporting.feedback.preprocessors.withhold_leaks import WithholdLeaks

    hidden = "assert add(-40, 2) == -38, 'the hidden check'"
    html = new_code_cell(
        "display(HTML(...))",
        outputs=[
            new_output(
                "display_data",
                data={"text/html": "<script>alert(1)</script>", "text/plain": "<IPython.core.display.HTML object>"},
            )
        ],
    )
    flood = new_code_cell("print('x' * 10**6)", outputs=[new_output("stream", name="stdout", text="x" * 10**6)])
    quoting = new_code_cell(
        "print(open(...).read())", outputs=[new_output("stream", name="stdout", text=f"...{hidden}...")]
    )
    test = new_code_cell(
        f"assert True\n### BEGIN HIDDEN TESTS\n{hidden}\n### END HIDDEN TESTS",
        outputs=[new_output("stream", name="stdout", text="encoded: c2VjcmV0")],
    )
    later = new_code_cell("print(In)", outputs=[new_output("stream", name="stdout", text=f"['{hidden}']")])
    encoded = new_code_cell("print(x)", outputs=[new_output("stream", name="stdout", text="rebmun a ton si 24")])
    silent = new_code_cell("x = 1")
    nb = new_notebook(
        cells=[new_markdown_cell("<script>alert(1)</script>"), html, flood, quoting, test, later, encoded, silent]
    )
    resources = {}
    for pp in (HideHiddenTestOutputs, EscapeStudentHTML, CapOutputBytes, WithholdLeaks):
        nb, resources = pp()(nb, resources)
    assert "<script" not in nb.cells[0].source and "alert" not in nb.cells[0].source
    assert "text/html" not in nb.cells[1].outputs[0]["data"]
    assert len(str(nb.cells[2].outputs)) < 70_000 and "output cut" in str(nb.cells[2].outputs)
    assert hidden not in str(nb.cells[3].outputs) and "withheld" in str(nb.cells[3].outputs)
    assert "encoded" not in str(nb.cells[4].outputs)
    for cell in nb.cells[5:7]:  # the grader's outputs after hidden code: none (no notebook handed in to show)
        assert hidden not in str(cell.outputs) and cell.outputs == []
    assert "rebmun" not in str(nb.cells[6].outputs)
    assert nb.cells[7].outputs == []
