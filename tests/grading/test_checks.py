"""Checks judged outside the kernel: the split, the values' format, the judge, and the four notebooks."""

from __future__ import annotations

import base64
import io
import json

import mygrad as mg
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_output

from course.channel import MIME
from course.values import MAX_ELEMENTS, Opaque, decode, encode
from instructor.cells import hidden_lines, is_graded_test, read
from instructor.grading.checks import worker
from instructor.grading.checks.influence import influenced
from instructor.grading.checks.judge import imported_names, trusted_imports
from instructor.grading.checks.judge_report import influence_report, run_reference, static_report
from instructor.grading.checks.notebook import judge_cell, notebook_imports, split_notebook
from instructor.grading.checks.split import GIVEN, JUDGED, KERNEL_ASSERT, PROBE, plan
from instructor.paths import SOLUTIONS, existing_assignments, notebook_path

ASSIGNMENTS = existing_assignments(SOLUTIONS)
IMPORTED = {"np", "mg"}

CELL = """\
rng = np.random.default_rng(0)
x = rng.normal(size=(4, 3)).astype(np.float32)
y = double(x.copy())
assert y.shape == (4, 3), f"shape {y.shape}"
### BEGIN HIDDEN TESTS
expected = 2 * x
assert np.allclose(y, expected), "y must be twice x"
### END HIDDEN TESTS
"""


def _kinds(source: str) -> list[str]:
    return [st.kind for st in plan("c", source, IMPORTED).statements]


def test_statements_are_told_apart():
    """Is a call of the student's code a probe, an input a given, an assert on their values judged outside?"""
    assert _kinds(CELL) == [GIVEN, GIVEN, PROBE, JUDGED, GIVEN, JUDGED]
    # an assert that calls the student's code itself can only run in the kernel
    assert _kinds("assert double(1) == 2") == [KERNEL_ASSERT]
    # a value handed to the student's code is the kernel's from then on (the code may have changed it)
    assert _kinds("x = np.ones(3)\ny = double(x)\ne = 2 * x\nassert np.allclose(y, e)") == [GIVEN, PROBE, PROBE, JUDGED]
    # the global random state is the kernel's once the student's code has run
    assert _kinds("np.random.seed(0)\ny = f()\nz = np.random.rand(3)\nassert y == z") == [GIVEN, PROBE, PROBE, JUDGED]
    # a loop and a comprehension's own variables are theirs, not the kernel's
    assert _kinds("ys = [f(i) for i in range(3)]\nfor i, y in enumerate(ys):\n    assert y == i") == [PROBE, JUDGED]


def test_what_a_hidden_check_expects_never_enters_the_kernel():
    """Does the kernel get the inputs and the calls, but no assert and no expected value?"""
    code, origin = plan("c", CELL, IMPORTED).kernel_code()
    assert "double(x.copy())" in code and "rng.normal" in code
    assert "assert" not in code and "expected" not in code and "2 * x" not in code
    assert len(origin) == len(code.splitlines())


def test_the_cached_private_names_are_each_callers_own():
    """imports_line and rewrite are cached (every test cell of every submission asks about the same set-up cells):
    a caller that changes the map it got changes nothing the next caller gets, and the order of a map's names
    changes nothing in a rewrite."""
    from instructor.grading.checks.private import imports_line, private_name, rewrite

    setup = ("import numpy as np\nimport mygrad as mg",)
    line, names = imports_line(setup)
    assert names == {"np": private_name("np"), "mg": private_name("mg")}, names
    names["np"] = "stolen"
    assert imports_line(list(setup)) == (line, {"np": private_name("np"), "mg": private_name("mg")})
    forward = {"np": private_name("np"), "mg": private_name("mg")}
    backward = dict(reversed(list(forward.items())))
    statement = "y = mg.tanh(np.ones(3))"
    assert rewrite(statement, forward) == rewrite(statement, backward)
    assert rewrite(statement, forward) == f"y = {private_name('mg')}.tanh({private_name('np')}.ones(3))"
    assert rewrite(statement, {"np": private_name("np")}) == f"y = mg.tanh({private_name('np')}.ones(3))"


def test_values_travel_as_data_only():
    """Do arrays, tensors, numbers and containers come back equal, and anything else as an Opaque that refuses use?"""
    t = mg.tensor(np.ones((2, 3), np.float32))
    (2 * t).sum().backward()
    sent = {
        "a": np.arange(6).reshape(2, 3),
        "f": np.float32(1.5),
        "i": 3,
        "x": 0.25,
        "s": "ab",
        "n": None,
        "tup": (1, [2, {"k": 3}]),
        "set": {3, 1},
        "t": t,
        "dt": np.dtype("float32"),
        "nan": float("nan"),
    }
    back = {k: decode(json.loads(json.dumps(encode(v)))) for k, v in sent.items()}
    assert np.array_equal(back["a"], sent["a"]) and back["a"].dtype == sent["a"].dtype
    assert type(back["f"]) is np.float32 and type(back["i"]) is int and type(back["x"]) is float
    assert back["tup"] == (1, [2, {"k": 3}]) and back["set"] == {1, 3} and back["s"] == "ab" and back["n"] is None
    assert isinstance(back["t"], mg.Tensor) and np.array_equal(back["t"].grad, np.full((2, 3), 2.0))
    assert back["dt"] == np.float32 and np.isnan(back["nan"])

    class Liar(tuple):
        def __eq__(self, other):
            return True

    assert decode(encode(Liar((1, 2)))) == (1, 2) and type(decode(encode(Liar((1, 2))))) is tuple
    opaque = decode(encode(object()))
    assert isinstance(opaque, Opaque)
    with pytest.raises(TypeError):
        opaque == 1  # noqa: B015
    with pytest.raises(TypeError):
        bool(opaque)
    assert isinstance(decode(encode(np.array([object()]))), Opaque)  # no pickled arrays either way
    for bad in ({"t": "array", "v": "not base64!"}, {"t": "nope"}, {"t": "list", "v": 3}, [1, 2]):
        with pytest.raises(ValueError):
            decode(bad)


def _executed(source: str, sent: list, error: dict | None = None):
    """A split test cell as the kernel would return it, with the values ``sent`` (check index -> values) shown."""
    cell = new_code_cell(
        source, metadata={"nbgrader": {"grade": True, "grade_id": "c", "points": 1, "solution": False, "locked": True}}
    )
    found = plan("c", source, IMPORTED)
    code, origin = found.kernel_code()
    cell.source = code
    cell.execution_count = 3
    cell.outputs = [new_output("display_data", data={MIME: {"cell": "c", "check": i, "values": v}}) for i, v in sent]
    if error:
        cell.outputs.append(new_output("error", **error))
    return cell, found, origin


def _verdict(sent, error=None):
    cell, found, origin = _executed(CELL, sent, error)
    return judge_cell(cell, found, CELL, origin, ("import numpy as np\nimport mygrad as mg",)), cell


def _right():
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    return x * 2


def test_the_grader_judges_the_values_the_kernel_sent():
    """Right values pass; wrong, missing, doubled or code-carrying values fail, in the grader's own words."""
    right = encode(_right())
    verdict, cell = _verdict([(3, {"y": right}), (5, {"y": right})])
    assert verdict.passed and cell.outputs == [] and cell.source == CELL
    verdict, cell = _verdict([(3, {"y": encode(np.zeros((4, 3)))}), (5, {"y": encode(np.zeros((4, 3)))})])
    assert not verdict.passed and verdict.message == "y must be twice x" and verdict.line == 7
    assert cell.outputs[-1]["ename"] == "AssertionError" and "line 7" in cell.outputs[-1]["traceback"][0]
    verdict, cell = _verdict([(3, {"y": right})])  # the kernel stopped before the hidden check
    assert not verdict.passed and verdict.missing
    verdict, _ = _verdict([(3, {"y": right}), (3, {"y": right}), (5, {"y": right})])
    assert not verdict.passed and verdict.exception == "ForgedValues"
    # one result, two checks: a value made up for each check alone (the right shape, then the right numbers)
    verdict, _ = _verdict([(3, {"y": encode(np.zeros((4, 3)))}), (5, {"y": right})])
    assert not verdict.passed and verdict.exception == "ForgedValues"
    verdict, _ = _verdict(
        [(3, {"y": {"t": "opaque", "type": "AlwaysEqual"}}), (5, {"y": {"t": "opaque", "type": "AlwaysEqual"}})]
    )
    assert not verdict.passed and "cannot be judged outside" in verdict.message
    # an error the kernel showed (the student's code crashed) stays the cell's failure, its line the cell's own
    # (the kernel code's first line binds its private imports: its line 4 is the cell's line 3)
    verdict, cell = _verdict([], {"ename": "NotImplementedError", "evalue": "", "traceback": ["Cell In[3], line 4"]})
    assert not verdict.passed and [o["ename"] for o in cell.outputs] == ["NotImplementedError"]
    assert cell.outputs[0]["traceback"] == ["Cell In[3], line 3"]
    # the kernel's line 6 is the send that stands for the cell's line 7, colour codes and all
    _, cell = _verdict(
        [(3, {"y": right})], {"ename": "KeyError", "evalue": "", "traceback": ["Cell \x1b[0;32mIn[3], line 6\x1b[0m"]}
    )
    assert cell.outputs[0]["traceback"] == ["Cell \x1b[0;32mIn[3], line 7\x1b[0m"]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_hidden_check_reaches_the_kernel(assignment):
    """Is no line of a hidden assert, nor of an expected value only asserts use, in the code the kernel gets?"""
    nb = read(notebook_path(assignment, SOLUTIONS))
    hidden = {c.metadata.nbgrader.grade_id: hidden_lines(c.source) for c in nb.cells if is_graded_test(c)}
    names = imported_names(notebook_imports(nb))
    for cell in nb.cells:
        if not is_graded_test(cell):
            continue
        found = plan(cell.metadata.nbgrader.grade_id, cell.source, names)
        code = found.kernel_code()[0].splitlines()
        for st in found.statements:
            if st.kind == JUDGED or (st.kind == GIVEN and not st.in_kernel):
                leaked = [
                    line
                    for line in st.source.splitlines()
                    if any(ch.isalnum() for ch in line) and line.strip() in hidden[found.cell] and line in code
                ]
                assert not leaked, f"{found.cell}: {leaked[:2]}"


#: checks that still run in the kernel (they call the student's code themselves), per assignment: only fewer
KERNEL_ASSERTS = {"01_rnn": 0, "02_seq2seq": 0, "03_attention": 0, "04_transformer": 0}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_few_checks_run_in_the_kernel(assignment):
    """Are nearly all checks judged outside, no more in the kernel than the README says?"""
    judged, kernel, lines = static_report(assignment)
    assert judged > 10 * kernel or kernel <= KERNEL_ASSERTS[assignment], "\n".join(lines)
    assert kernel <= KERNEL_ASSERTS[assignment], "\n".join(lines)


#: checks whose every compared value is the kernel's (visible, hidden), per assignment: only fewer, 0 in the end
#: (at first: 01 6 + 9, 02 6 + 7, 03 4 + 5, 04 17 + 9)
KERNEL_INFLUENCED = {"01_rnn": (2, 3), "02_seq2seq": (0, 0), "03_attention": (0, 0), "04_transformer": (0, 0)}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_few_expected_values_are_the_kernels(assignment):
    """Does no more than the count of checks compare the kernel's values only with the kernel's?"""
    weak = influence_report(assignment)
    hidden = sum(w.hidden for w in weak)
    visible_limit, hidden_limit = KERNEL_INFLUENCED[assignment]
    listed = "\n".join(w.describe() for w in weak)
    assert len(weak) - hidden <= visible_limit and hidden <= hidden_limit, listed


def test_a_check_is_anchored_only_by_a_value_of_the_graders():
    """Is a check weak exactly when none of the sides it compares is a literal or a value the cell built itself?"""
    source = """\
x = np.ones(3)
out, ref = f(x.copy()), reference(model)
same = np.allclose(out, ref)
expected = 2 * x
assert out.shape == (3,), "shape"
assert np.allclose(out, expected), "value"
assert np.allclose(out.data, ref.data), "both the kernel's"
assert same, "a verdict the kernel made"
assert isinstance(out, np.ndarray) and np.isfinite(out).all(), "a predicate of the grader's"
assert out.shape == ref.shape or np.allclose(out, expected), "or: each side must be anchored"
for i, (a, b) in enumerate(zip(out, ref)):
    assert a == b, "zip: both the kernel's"
for i, a in enumerate(out):
    assert a == 2 * x[i], "enumerate: the index is the grader's"
### BEGIN HIDDEN TESTS
assert all(o == r for o, r in zip(out, ref)), "hidden, both the kernel's"
### END HIDDEN TESTS
"""
    from instructor.cells import hidden_line_numbers

    weak = influenced(plan("c", source, IMPORTED), hidden_line_numbers(source))
    assert [(w.line, w.hidden) for w in weak] == [(7, False), (8, False), (10, False), (11, False), (16, True)]


@pytest.mark.notebook
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_reference_passes_every_check_outside(assignment):
    """Does the reference solution pass every graded cell when its checks are judged outside the kernel?"""
    assert run_reference(assignment) == []


def test_a_students_set_up_cell_does_not_choose_the_graders_names():
    """The grader binds the release's imports, whatever the student's copy of the set-up cell says."""
    release = read(notebook_path(ASSIGNMENTS[0], SOLUTIONS))
    student = read(notebook_path(ASSIGNMENTS[0], SOLUTIONS))
    for cell in student.cells:
        if cell.cell_type == "code" and "import numpy as np" in cell.source:
            cell.source = cell.source.replace("import numpy as np", "import numpy.ma as np")
    setup = split_notebook(student, release).setup
    assert "numpy.ma" not in "\n".join(setup) and trusted_imports(list(setup))["np"] is np


def _judged(source: str, sent: list) -> tuple:
    cell, found, origin = _executed(source, sent)
    return judge_cell(cell, found, source, origin, ("import numpy as np",)), cell


COSTLY = "x = np.ones((9, 7, 4))\ny = f(x.copy())\nassert np.allclose(y, x), 'y must equal x'\n"
HASHES = "x = np.ones(3)\ny = f(x.copy())\nassert len(set(y)) == 3, 'three distinct items'\n"


def test_a_set_whose_items_hash_alike_costs_linear_time():
    """Values of 40,000 ints that all hash alike (about 20 s per cell as a set, before) are refused once the ninth
    shares a hash, before any set is built, as a set and as a dict's keys; a set of honest items (distinct ids)
    decodes as before."""
    from course import values

    colliding = [{"t": "int", "v": format(k * (2**61 - 1), "x")} for k in range(40_000)]
    for sent in (
        {"t": "set", "v": colliding},
        {"t": "frozenset", "v": colliding},
        {"t": "pairs", "v": [[k, 0.0] for k in colliding]},
    ):
        with pytest.raises(ValueError, match="hash alike"):  # raised before the set or dict is made
            decode(sent)

    class Counted(list):
        """The decoded items, counting how many the check reads."""

        read = 0

        def __iter__(self):
            for item in super().__iter__():
                self.read += 1
                yield item

    items = Counted(decode(c) for c in colliding)
    with pytest.raises(ValueError, match="hash alike"):
        values._spread_hashes(items, "a set")
    assert items.read == values.MAX_SHARED_HASH + 1  # not 40,000, nor 40,000 squared
    verdict, _ = _judged(COSTLY, [(2, {"y": {"t": "set", "v": colliding}})])
    # refused, not stopped at the judge's deadline (that verdict is JudgeStopped)
    assert not verdict.passed and verdict.exception == "MalformedValues"
    ids = {id(object()) + 16 * k for k in range(40_000)}
    assert decode(json.loads(json.dumps(encode(ids)))) == ids


def test_a_submission_has_a_judging_budget(monkeypatch):
    """Once a submission has spent its judging time, its remaining cells fail unjudged, at no cost."""
    budget = worker.Budget(1.0)
    colliding = [{"t": "int", "v": format(k * (2**61 - 1), "x")} for k in range(40_000)]
    cell, found, origin = _executed(HASHES, [(2, {"y": {"t": "list", "v": colliding}})])
    first = judge_cell(cell, found, HASHES, origin, ("import numpy as np",), budget)
    assert first.exception == "JudgeStopped" and budget.left() <= 0
    asked = []
    monkeypatch.setattr(worker._WORKER, "judge", lambda *args, **kwargs: asked.append(args))
    cell, found, origin = _executed(COSTLY, [(2, {"y": encode(np.ones((9, 7, 4)))})])
    second = judge_cell(cell, found, COSTLY, origin, ("import numpy as np",), budget)
    assert second.exception == "JudgeStopped" and "judging time" in second.message and second.broken
    assert asked == []  # the judge process was not asked: the cell cost nothing
    assert worker.SUBMISSION_SECONDS <= 120  # what the README states


def test_values_that_cost_stop_the_judge_not_the_grader(monkeypatch):
    """Values made to cost (a broadcast of millions of rows, a set whose items all hash alike) fail their
    cell in the judge's own process, under its memory and time limits; the grader goes on judging."""
    raw = io.BytesIO()  # written by hand, as a forger would: the kernel's own encoder refuses such sizes
    np.save(raw, np.zeros((MAX_ELEMENTS, 1, 1, 1), dtype=bool))  # broadcast against (9, 7, 4): 8 GB of floats
    wide = {"t": "array", "v": base64.b64encode(raw.getvalue()).decode()}
    verdict, _ = _judged(COSTLY, [(2, {"y": wide})])
    assert not verdict.passed and "MemoryError" in verdict.exception + verdict.message
    monkeypatch.setattr(worker, "SECONDS", 1.0)
    # ints that all hash alike: sent as a set, refused while decoding (linear); as a list a check makes a set
    # of in the judge, stopped by the cell's time limit
    colliding = [{"t": "int", "v": format(k * (2**61 - 1), "x")} for k in range(40_000)]
    verdict, _ = _judged(HASHES, [(2, {"y": {"t": "list", "v": colliding}})])
    assert not verdict.passed and verdict.exception == "JudgeStopped" and "1 s" in verdict.message
    monkeypatch.setattr(worker, "SECONDS", 20.0)
    verdict, _ = _judged(COSTLY, [(2, {"y": encode(np.ones((9, 7, 4)))})])  # a new worker, right values
    assert verdict.passed


def test_an_array_is_what_its_header_says():
    """An .npy whose header claims more than its bytes, or a zip, is refused."""
    raw = io.BytesIO()
    np.save(raw, np.zeros(3))
    for payload in (raw.getvalue().replace(b"(3,)", b"(10000000000,)"), b"PK\x03\x04" + b"0" * 60):
        with pytest.raises(ValueError):
            decode({"t": "array", "v": base64.b64encode(payload).decode()})


def test_a_student_cell_cannot_rebind_the_libraries_a_probe_reads(monkeypatch):
    """An answer cell that sets ``mg = <a proxy whose logsoftmax returns zeros>`` (and ``np`` likewise) does not
    change what a probe computes: the kernel code reads its own private imports, not the notebook's globals."""
    import types

    import course.values

    source = (
        "x = np.arange(6.0).reshape(2, 3)\nout = model(x)\nref = mg.nnet.logsoftmax(x)\n"
        "assert np.allclose(out, ref.data), 'log-softmax'\n"
    )
    setup = ("import numpy as np\nimport mygrad as mg\n",)
    code, _ = plan("c", source, IMPORTED).kernel_code(setup)
    sent = {}
    monkeypatch.setattr(course.values, "send", lambda cell, index, **values: sent.update(values))
    proxy = types.SimpleNamespace(
        nnet=types.SimpleNamespace(logsoftmax=lambda x: mg.tensor(np.zeros_like(x))), tensor=mg.tensor
    )
    fake_np = types.SimpleNamespace(arange=lambda n: np.zeros(n), allclose=lambda *a, **k: True)
    # the student's notebook: their model returns zeros, and their cells rebound both library names
    exec(compile(code, "<kernel>", "exec"), {"mg": proxy, "np": fake_np, "model": lambda x: np.zeros((2, 3))})
    assert np.allclose(sent["ref"].data, mg.nnet.logsoftmax(np.arange(6.0).reshape(2, 3)).data)
    assert not np.allclose(sent["out"], sent["ref"].data)  # the judge then fails the check
    # the cell's own lines keep their numbers: one header line, then the probes in place
    assert code.splitlines()[2].startswith("out = model(x)") and "mg.nnet.logsoftmax(x)" in code.splitlines()[3]


def test_the_channel_is_the_graders():
    """Values for another cell, for a check the cell has not, shown with other data, or marked by the
    executor as dropped or cut, fail the cell with a fault that flags the submission; values missing from a
    cell that ran to its end without an error fail it too."""
    from course.channel import CUT_NOTE, DROPPED_NOTE
    from instructor.grading.checks.judge import CHANNEL_FAULTS

    right = encode(_right())
    good = [(3, {"y": right}), (5, {"y": right})]

    def faulted(extra) -> str:
        cell, found, origin = _executed(CELL, good)
        cell.outputs += extra
        return judge_cell(cell, found, CELL, origin, ("import numpy as np",)).exception

    other_cell = new_output("display_data", data={MIME: {"cell": "another", "check": 3, "values": {"y": right}}})
    unasked = new_output("display_data", data={MIME: {"cell": "c", "check": 4, "values": {"y": right}}})
    dressed = new_output(
        "display_data", data={MIME: {"cell": "c", "check": 3, "values": {"y": right}}, "text/plain": "passed"}
    )
    assert faulted([]) == ""  # the honest cell passes
    assert faulted([other_cell]) == faulted([unasked]) == faulted([dressed]) == "StrayValues"
    assert faulted([new_output("stream", name="stdout", text=DROPPED_NOTE)]) == "StrayValues"
    assert faulted([new_output("stream", name="stdout", text=CUT_NOTE)]) == "CutValues"
    assert {"StrayValues", "CutValues", "LostValues", "ForgedValues"} <= set(CHANNEL_FAULTS)
    cell, found, origin = _executed(CELL, [(3, {"y": right})])  # ran to its end, no error, one check's values gone
    assert judge_cell(cell, found, CELL, origin, ("import numpy as np",)).exception == "LostValues"


def test_the_executor_and_the_grader_agree_on_the_channel():
    """The executor (which imports nothing of the grader) takes the channel's MIME type and notes from the
    student package, as the grader does, and finds each send call of a split cell's code."""
    import importlib.util

    import course.channel
    from instructor.paths import REPO_ROOT

    spec = importlib.util.spec_from_file_location("executor", REPO_ROOT / "instructor" / "sandbox" / "executor.py")
    executor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(executor)
    assert executor.channel is course.channel
    code, _ = plan("c", CELL, IMPORTED).kernel_code(("import numpy as np",))
    assert {(m.group(2), int(m.group(3))) for m in executor._SEND_CALL.finditer(code)} == {("c", 3), ("c", 5)}


def test_the_channels_names_are_written_once():
    """Are the values' MIME type and the executor's two notes written in one module of the grader and the
    student package, course/channel.py, so the kernel, the executor and the judge cannot drift apart?"""
    from course.channel import CUT_NOTE, DROPPED_NOTE
    from instructor.paths import REPO_ROOT

    sources = {
        path: path.read_text() for folder in ("instructor", "course") for path in (REPO_ROOT / folder).rglob("*.py")
    }
    for literal in (MIME, DROPPED_NOTE.strip(), CUT_NOTE.strip()):
        assert [p.relative_to(REPO_ROOT).as_posix() for p, text in sources.items() if literal in text] == [
            "course/channel.py"
        ], literal


def test_the_checks_travel_typed_and_are_built_one_way():
    """Does the split of a notebook leave one frozen NotebookChecks, equal to what the gradebook's copy of the
    release's test code gives (the other way the judge gets them), and is anything else in its place refused?"""
    import dataclasses

    from instructor.grading.checks.notebook import (
        RESOURCES_KEY,
        carried_checks,
        carry,
        plan_checks,
        setup_sources,
    )

    nb = read(notebook_path(ASSIGNMENTS[0], SOLUTIONS))
    sources = {c.metadata.nbgrader.grade_id: c.source for c in nb.cells if is_graded_test(c)}
    checks = split_notebook(nb)
    again = plan_checks(sources, setup_sources(nb))
    shown = lambda found: [(c.name, c.original, c.kernel_code, c.origin) for c in found.cells]  # noqa: E731
    assert shown(checks) == shown(again) and checks.setup == again.setup and len(checks.cells) == len(sources)
    assert all(
        c.kernel_code == cell.source for c, cell in zip(checks.cells, filter(is_graded_test, nb.cells), strict=True)
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        checks.setup = ()  # type: ignore[misc]
    resources: dict = {}
    carry(resources, checks)
    assert carried_checks(resources) is checks and carried_checks({}) is None
    with pytest.raises(TypeError):
        carried_checks({RESOURCES_KEY: ({}, ())})  # the untyped triple it once was


def test_the_graders_faults_are_named_in_one_module():
    """Is every kind of verdict the grader gives without a check saying so (a Fault) spelled only in
    instructor/grading/checks/judge.py, its enum?"""
    from instructor.grading.checks.judge import Fault
    from instructor.paths import REPO_ROOT

    spelled = {
        path.relative_to(REPO_ROOT).as_posix()
        for path in (REPO_ROOT / "instructor").rglob("*.py")
        for fault in Fault
        if f'"{fault.value}"' in path.read_text()
    }
    assert spelled == {"instructor/grading/checks/judge.py"}, spelled


def test_grading_threads_never_parse_at_once(monkeypatch):
    """Four threads splitting and scanning the release notebook of 01 at once (as the grading tasks of one process
    do): is ast.parse never running in two of them at a time (CPython 3.11.7's parser keeps its recursion count in
    state every thread shares: gh-106905), and is each test cell's plan made once?"""
    import ast
    import copy
    import threading

    from instructor.grading.checks import judge, split
    from instructor.grading.preprocessors.flag_test_machinery import reads_history
    from instructor.grading.preprocessors.match_student_version import defined_names
    from instructor.paths import NOTEBOOKS

    release = read(notebook_path(ASSIGNMENTS[0], NOTEBOOKS))
    tests = [c.source for c in release.cells if is_graded_test(c)]
    others = [c.source for c in release.cells if c.cell_type == "code" and not is_graded_test(c)]
    real, guard, inside, most, parsed = ast.parse, threading.Lock(), [0], [0], []

    def watched(source, *args, **kwargs):
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
            parsed.append(source)
        threading.Event().wait(0.001)  # a parse that takes a while: another thread would start one meanwhile
        with guard:
            inside[0] -= 1
        return real(source, *args, **kwargs)

    split._plan.cache_clear()
    judge._imports.cache_clear()
    monkeypatch.setattr(ast, "parse", watched)
    start = threading.Barrier(4)

    def task():
        start.wait()
        split_notebook(copy.deepcopy(release))
        for source in others:
            reads_history(source)
            defined_names(source)

    threads = [threading.Thread(target=task) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1, f"{most[0]} parses ran at once"
    assert [parsed.count(source) for source in tests] == [1] * len(tests)


def test_source_is_parsed_in_one_place():
    """Does every parse of instructor/ go through instructor.grading.syntax.parse, the one that holds the lock?"""
    import ast

    from instructor.paths import REPO_ROOT

    found = []
    for path in sorted((REPO_ROOT / "instructor").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "parse" and getattr(node.value, "id", None) == "ast":
                found.append(path.relative_to(REPO_ROOT).as_posix())
    assert found == ["instructor/grading/syntax.py"], found
