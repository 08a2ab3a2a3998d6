"""Hidden checks draw fresh inputs for each submission: a memorised answer earns nothing (issue 63).

The seed is the grader's (:mod:`instructor.coursedir.hidden_seed`): a key only
its owner reads, the student and the notebook's bytes. The kernel and the
judge draw the same inputs from it (:mod:`course.draws`); a table of answers
taken from one draw fails the hidden checks of another, while the reference
passes every draw.
"""

from __future__ import annotations

import copy
import os
import pickle
import stat

import numpy as np
import pytest
from nbformat.v4 import new_code_cell

from course import draws
from instructor.cells import find_cell, is_graded_test, task_of
from instructor.coursedir import hidden_seed
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.grading.checks.notebook import split_notebook
from tests.nbexec import runner_per_assignment

#: the assignments whose hidden checks draw from course.draws, and how many draws the reference passes here
DRAWN = ["01_rnn", "02_seq2seq", "03_attention", "04_transformer"]
DRAWS = 25


# -- the seed -------------------------------------------------------------------------------------------------


def test_a_submission_draws_the_same_inputs_again_and_others_draw_others():
    key = bytes(range(32))
    seed = hidden_seed.seed_for(key, "03_attention", "amy", "ab" * 32)
    assert seed == hidden_seed.seed_for(key, "03_attention", "amy", "ab" * 32)
    others = {
        hidden_seed.seed_for(key, "03_attention", "bob", "ab" * 32),  # a classmate's copy of the same bytes
        hidden_seed.seed_for(key, "03_attention", "amy", "cd" * 32),  # the notebook changed
        hidden_seed.seed_for(key, "02_seq2seq", "amy", "ab" * 32),
        hidden_seed.seed_for(bytes(32), "03_attention", "amy", "ab" * 32),  # another course's key
    }
    assert seed not in others and len(others) == 4
    assert all(0 <= s < 2**63 for s in others | {seed})


def test_each_check_draws_from_a_stream_of_its_own():
    draws.use_seed(12345)
    try:
        first = draws.hidden_rng("attend__hand_computed").integers(0, 2**31, size=4)
        again = draws.hidden_rng("attend__hand_computed").integers(0, 2**31, size=4)
        other = draws.hidden_rng("attend__batch_and_gradients").integers(0, 2**31, size=4)
        draws.use_seed(54321)
        moved = draws.hidden_rng("attend__hand_computed").integers(0, 2**31, size=4)
    finally:
        draws.use_seed(None)
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other) and not np.array_equal(first, moved)
    author = draws.hidden_rng("attend__hand_computed").integers(0, 2**31, size=4)
    draws.use_seed(draws.AUTHOR_SEED)
    assert np.array_equal(author, draws.hidden_rng("attend__hand_computed").integers(0, 2**31, size=4))


@pytest.mark.parametrize("bad", [-1, 1.5, "7", True])
def test_a_seed_is_a_non_negative_int(bad):
    with pytest.raises(ValueError, match="non-negative int"):
        draws.use_seed(bad)


def test_the_key_is_made_once_and_kept_to_its_owner(tmp_path):
    course_dir = CourseDir.planned(tmp_path)
    path = hidden_seed.key_file(course_dir)
    assert path == tmp_path / ".hidden-inputs.key"
    key = hidden_seed.read_key(path)
    assert len(key) == hidden_seed.KEY_BYTES and hidden_seed.read_key(path) == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def _read_key_in_a_process(path):
    return hidden_seed.read_key(path)


def test_grading_runs_making_the_key_at_once_all_read_the_one_made_whole(tmp_path):
    # CI once had a grading run read the key while another had created it but not yet written it
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=4) as pool:
        for round_ in range(10):
            path = tmp_path / f"round{round_}" / ".hidden-inputs.key"
            keys = list(pool.map(_read_key_in_a_process, [path] * 8))
            assert len(set(keys)) == 1 and len(keys[0]) == hidden_seed.KEY_BYTES
            assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no draft left beside it


def test_a_key_others_may_read_is_refused(tmp_path):
    path = tmp_path / "key"
    hidden_seed.read_key(path)
    os.chmod(path, 0o644)
    with pytest.raises(CourseError, match="only you can read"):
        hidden_seed.read_key(path)


def test_a_link_in_place_of_the_key_is_refused(tmp_path):
    real = tmp_path / "real"
    hidden_seed.read_key(real)
    (tmp_path / "key").symlink_to(real)
    with pytest.raises(CourseError, match="is a link"):
        hidden_seed.read_key(tmp_path / "key")


def test_a_file_that_holds_no_key_is_refused(tmp_path):
    path = tmp_path / "key"
    path.write_text("not a key\n")
    os.chmod(path, 0o600)
    with pytest.raises(CourseError, match="does not hold a key"):
        hidden_seed.read_key(path)


def test_the_hubs_key_is_named_by_root_step(tmp_path, monkeypatch):
    monkeypatch.setenv(hidden_seed.KEY_ENV, str(tmp_path / "state" / "hidden-inputs.key"))
    assert hidden_seed.key_file(CourseDir.planned(tmp_path / "course")) == tmp_path / "state" / "hidden-inputs.key"


def test_the_seed_reaches_the_kernel_code_and_the_judge():
    from instructor.cells import read
    from instructor.paths import SOLUTIONS, notebook_path

    nb = read(notebook_path("03_attention", SOLUTIONS))
    checks = split_notebook(copy.deepcopy(nb), seed=987654321)
    assert checks.seed == 987654321
    assert all(".use_seed(987654321)" in cell.kernel_code.splitlines()[0] for cell in checks.cells)
    assert all(".use_seed(None)" in c.kernel_code.splitlines()[0] for c in split_notebook(copy.deepcopy(nb)).cells)


# -- the notebooks --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runner():
    with runner_per_assignment() as get:
        yield get


def _seeds(n: int) -> list[int]:
    return [int(s) for s in np.random.default_rng(63).integers(0, 2**63, size=n)]


@pytest.mark.notebook
@pytest.mark.parametrize("assignment", DRAWN)
def test_hidden_checks_draw_from_the_seed(assignment):
    """Does every hidden block of a drawn notebook take its inputs from course.draws?"""
    from instructor.cells import read
    from instructor.paths import SOLUTIONS, notebook_path

    nb = read(notebook_path(assignment, SOLUTIONS))
    hidden = [c for c in nb.cells if is_graded_test(c) and "### BEGIN HIDDEN TESTS" in c.source]
    fixed = [c.metadata.nbgrader.grade_id for c in hidden if "hidden_rng(" not in c.source.split("BEGIN HIDDEN")[1]]
    assert hidden and not fixed


@pytest.mark.notebook
@pytest.mark.parametrize("assignment", DRAWN)
def test_the_reference_earns_full_marks_on_every_draw(runner, assignment):
    r = runner(assignment)
    failed = {}
    for seed in _seeds(DRAWS):
        run = r.run_notebook(r.source, seed=seed)
        if bad := [c.grade_id for c in run.failed_tests()]:
            failed[seed] = bad
    assert not failed


#: the task a memoriser answers with a table (its answer cell's grade_id), and the module-level function it replaces
MEMORISED = [
    ("01_rnn", "loss_and_accuracy", "loss_and_accuracy"),
    ("01_rnn", "accuracy_by_length", "accuracy_by_length"),
    ("02_seq2seq", "one_hot_encode_prediction", "one_hot_encode_prediction"),
    ("02_seq2seq", "teacher_forcing_inputs", "teacher_forcing_inputs"),
    ("03_attention", "attend", "attend"),
    ("04_transformer", "attention", "scaled_dot_product_attention"),
    ("04_transformer", "causal_mask", "causal_mask"),
]

_RECORDER = """
import copy as _copy

import mygrad as _mg
import numpy as _np
_answer = {name}
_table = []


def _kept(o):
    return ("tensor", _np.array(o.data)) if isinstance(o, _mg.Tensor) else ("value", _copy.deepcopy(o))


def {name}(*args, **kwargs):
    out = _answer(*args, **kwargs)
    _table.append((isinstance(out, tuple), [_kept(o) for o in (out if isinstance(out, tuple) else (out,))]))
    return out
"""

_REPLAY = """
import pickle as _pickle

import mygrad as _mg
_table = _pickle.loads({table!r})
_calls = [0]


def {name}(*args, **kwargs):
    # the answers of one draw, in the order the checks asked: nothing is computed
    is_tuple, kept = _table[min(_calls[0], len(_table) - 1)]
    _calls[0] += 1
    outs = [_mg.tensor(v) if kind == "tensor" else v for kind, v in kept]
    return tuple(outs) if is_tuple else outs[0]
"""


def _with_cell_after(nb, task: str, code: str):
    """``nb`` with ``code`` run right after the answer cell of ``task`` (its solution cell)."""
    nb = copy.deepcopy(nb)
    answer = find_cell(nb, task)
    nb.cells.insert(nb.cells.index(answer) + 1, new_code_cell(code))
    return nb


@pytest.mark.notebook
@pytest.mark.parametrize("assignment, task, name", MEMORISED)
def test_a_table_of_one_draws_answers_loses_every_hidden_check_of_another(runner, assignment, task, name):
    """A student who replays the answers of one draw (a classmate's, or last term's) keeps only what the
    visible checks give; the same table on its own draw passes, so it is the draw that tells them apart."""
    r = runner(assignment)
    own, other = _seeds(2)
    recorded = _with_cell_after(r.source, task, _RECORDER.format(name=name))
    r.run_notebook(recorded, through=task, seed=own)
    dump = new_code_cell("import pickle as _pickle\nprint(_pickle.dumps(_table).hex())")
    r._client.execute_cell(dump, 0, store_history=False)
    table = bytes.fromhex("".join(o.get("text", "") for o in dump.outputs).strip())
    assert pickle.loads(table), "the recorder kept no answers"

    memoriser = _with_cell_after(r.source, task, _REPLAY.format(name=name, table=table))
    cells = [c for c in memoriser.cells if is_graded_test(c) and task_of(c) == task]
    hidden = {c.metadata.nbgrader.grade_id for c in cells if "### BEGIN HIDDEN TESTS" in c.source}
    on_own = {c.grade_id for c in r.run_notebook(memoriser, through=task, seed=own).failed_tests(task)}
    on_other = {c.grade_id for c in r.run_notebook(memoriser, through=task, seed=other).failed_tests(task)}
    memorised = hidden - on_own  # the hidden cells the table answers on its own draw
    assert memorised, f"the table answers none of {sorted(hidden)} even on its own draw: the test proves nothing"
    assert memorised <= on_other, f"on another draw the table still passes {sorted(memorised - on_other)}"
