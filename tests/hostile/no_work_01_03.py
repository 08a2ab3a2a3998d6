"""Submissions of 01_rnn and 03_attention that skip the work and try to collect points anyway.

Each case is the released student notebook with some answer cells written
over: a model that zeroes its weights before the call, no attention, no
decoding, an RNN without recurrence, weights the model picks itself, answers
copied from the visible tests. Every other answer cell keeps the release's
stub (``raise NotImplementedError()``), or the reference answer where the case
says so (``honest`` work, to show that a check still passes what it should).

``honest`` names the graded cells a case passes honestly: it must score
exactly those (tests/grading/test_no_work_01_03.py), and 0 on every other.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from instructor.cells import find_cell, grade_id, read
from instructor.paths import NOTEBOOKS, SOLUTIONS, notebook_path


@dataclass(frozen=True)
class NoWork:
    assignment: str
    name: str
    why: str
    answers: dict[str, str]  # answer cell (grade_id) -> its whole source, as the student wrote it
    honest: frozenset[str] = field(default_factory=frozenset)  # graded cells it passes with real work


def reference_answer(assignment: str, gid: str) -> str:
    """The reference solution's source of answer cell ``gid`` (honest work)."""
    return find_cell(read(notebook_path(assignment, SOLUTIONS)), gid).source


def submission(case: NoWork):
    """The released student notebook with the case's answers written into its answer cells."""
    nb = read(notebook_path(case.assignment, NOTEBOOKS))
    for gid, source in case.answers.items():
        find_cell(nb, gid).source = source
    return nb


def as_graded(nb, assignment: str):
    """``nb`` with every locked cell restored from the source notebook, as nbgrader's autograde restores them
    (the graded test cells get their hidden tests back)."""
    nb = copy.deepcopy(nb)
    source = read(notebook_path(assignment, SOLUTIONS))
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("locked") and not meta.get("solution"):
            cell.source = find_cell(source, grade_id(cell)).source
    return nb


# ------------------------------------------------------------------ 03_attention
A3 = "03_attention"

_ATTENTION_INIT = """
class AttentionSeq2Seq:
    def __init__(self, dim_input, dim_recurrent, dim_output):
        self.dim_output = dim_output
        self.encoder = RNN(dim_input, dim_recurrent, dim_output)
        self.decoder = RNN(dim_output, dim_recurrent, dim_output)
        self.W_alpha = dense(dim_recurrent, dim_recurrent, weight_initializer=glorot_normal, bias=False)
        self.output_layer = dense(dim_output + dim_recurrent, dim_output, weight_initializer=glorot_normal)

    @property
    def parameters(self):
        return (self.encoder.parameters + self.decoder.parameters + self.W_alpha.parameters
                + self.output_layer.parameters)
"""

ZEROES_WEIGHTS_03 = (
    _ATTENTION_INIT
    + """
    def __call__(self, x):
        # every weight to zero: the model is now the one a reference of zeros describes
        for p in self.parameters:
            p.data.flags.writeable = True  # MyGrad locks an array a graph still holds
            p.data[...] = 0
        T, N = x.shape[:2]
        zero = mg.concatenate([(p - mg.asarray(p)).reshape(-1) for p in self.parameters]).sum()  # 0; gradient 1
        scores = mg.zeros((T, N, self.dim_output), dtype=np.float32) + zero
        return scores, np.full((T, T, N), 1 / T, dtype=np.float32)
"""
)

NO_DECODING_03 = (
    _ATTENTION_INIT
    + """
    def __call__(self, x):
        # no decoder at all: the output layer's bias at every step, uniform weights
        T, N = x.shape[:2]
        scores = mg.zeros((T, N, self.dim_output), dtype=np.float32) + self.output_layer.bias
        return scores, np.full((T, T, N), 1 / T, dtype=np.float32)
"""
)

NO_ATTENTION_03 = """
def attend(enc_proj, enc_h, h_t):
    # no scores: every encoder state gets the same weight
    T, N = enc_h.shape[:2]
    a_t = mg.ones((T, N), dtype=np.float32) / T
    return enc_h.mean(axis=0, keepdims=True), a_t
"""

COPIED_ATTEND_03 = """
def attend(enc_proj, enc_h, h_t):
    # the visible hand-computed case's answers, whatever the input
    a = np.array([[0.4, 1 / 3], [0.2, 1 / 3], [0.4, 1 / 3]], dtype=np.float32)
    c = np.array([[[0.8, 0.6], [1.0, 1.0]]], dtype=np.float32)
    T, N, D = enc_h.shape
    if (T, N, D) != (3, 2, 2):
        a, c = np.full((T, N), 1 / T, dtype=np.float32), np.zeros((1, N, D), dtype=np.float32)
    return mg.tensor(c) + 0 * h_t.sum(), mg.tensor(a)
"""

# ------------------------------------------------------------------ 01_rnn
A1 = "01_rnn"

_RNN_INIT = """
class RNN:
    def __init__(self, dim_input, dim_recurrent, dim_output):
        self.dim_recurrent = dim_recurrent
        self.input_layer = dense(dim_input, dim_recurrent, weight_initializer=glorot_normal)
        self.recurrent_layer = dense(dim_recurrent, dim_recurrent, weight_initializer=glorot_normal, bias=False)
        self.output_layer = dense(dim_recurrent, dim_output, weight_initializer=glorot_normal)

    @property
    def parameters(self):
        return self.input_layer.parameters + self.recurrent_layer.parameters + self.output_layer.parameters
"""

NO_RECURRENCE_01 = (
    _RNN_INIT
    + """
    def __call__(self, x, h=None):
        # every step reads h_0, never the state before it: no recurrence
        T, N = x.shape[:2]
        h0 = np.zeros((1, N, self.dim_recurrent), dtype=np.float32) if h is None else h
        states = mg.tanh(self.input_layer(x) + self.recurrent_layer(h0))
        return self.output_layer(states), states
"""
)

ZEROES_WEIGHTS_01 = (
    _RNN_INIT
    + """
    def __call__(self, x, h=None):
        # every weight to zero first: the states and scores are zeros, whatever the grader loaded
        for p in self.parameters:
            p.data.flags.writeable = True  # MyGrad locks an array a graph still holds
            p.data[...] = 0
        T, N = x.shape[:2]
        zero = mg.concatenate([(p - mg.asarray(p)).reshape(-1) for p in self.parameters]).sum()  # 0; gradient 1
        if h is not None:
            zero = zero + (h - mg.asarray(h)).sum()
        h_all = mg.zeros((T, N, self.dim_recurrent), dtype=np.float32) + zero
        return self.output_layer(h_all) + zero, h_all
"""
)

OWN_WEIGHTS_01 = (
    _RNN_INIT
    + """
    def __call__(self, x, h=None):
        # the recurrence, but on weights the model picks itself (identities), not on its parameters
        T, N, C = x.shape
        D, K = self.dim_recurrent, self.output_layer.weight.shape[1]
        eye = lambda m, n: np.eye(m, n, dtype=np.float32)
        h_t = np.zeros((N, D), dtype=np.float32) if h is None else h[0]
        states = []
        for t in range(T):
            h_t = mg.tanh(mg.matmul(x[t], eye(C, D)) + mg.matmul(h_t, eye(D, D)))
            states.append(h_t)
        h_all = mg.stack(states)
        zero = mg.concatenate([(p - mg.asarray(p)).reshape(-1) for p in self.parameters]).sum()  # 0; gradient 1
        return mg.matmul(h_all, eye(D, K)) + zero, h_all + zero
"""
)

COPIED_GENERATE_BATCH_01 = """
def generate_batch(seq_len_min=1, seq_len_max=20, batch_size=10):
    # the shapes and types the visible test asks for, with one digit (0) everywhere
    n_digits = np.random.randint(seq_len_min, seq_len_max + 1)
    digits = np.zeros((n_digits, batch_size), dtype=np.int64)
    one_hot_x = np.zeros((n_digits + 1, batch_size, 12), dtype=np.float32)
    one_hot_x[:-1, :, 0] = 1
    one_hot_x[-1, :, 11] = 1
    target = np.concatenate([digits, np.full((1, batch_size), 11)])
    return one_hot_x, target, digits
"""

COPIED_RNN_01 = (
    _RNN_INIT
    + """
    def __call__(self, x, h=None):
        # the values the visible test prints for its own input, zeros of the right shapes elsewhere
        T, N = x.shape[:2]
        K = self.output_layer.weight.shape[1]
        y = mg.zeros((T, N, K), dtype=np.float32) + 0 * self.output_layer.weight.sum()
        states = mg.zeros((T, N, self.dim_recurrent), dtype=np.float32) + 0 * self.input_layer.weight.sum()
        if (T, N, K, self.dim_recurrent) == (6, 2, 5, 4):
            states = states + np.array(VISIBLE_STATES, dtype=np.float32)
        return y, states
"""
)


def _rnn_visible_states() -> str:
    """The last states the visible test of ``rnn__shapes_and_parameters`` states, as a copier would paste them."""
    source = find_cell(read(notebook_path(A1, SOLUTIONS)), "rnn__shapes_and_parameters").source
    for line in source.splitlines():
        if line.startswith("h_last_expected = "):
            return line.split("=", 1)[1].split("#")[0].strip().removeprefix("np.array(").rsplit(",", 1)[0]
    return "0.0"


CASES = [
    NoWork(
        A3,
        "zeroes_weights",
        "AttentionSeq2Seq.__call__ zeroes every weight, then returns zeros and uniform weights (no attend)",
        {"attention_seq2seq": ZEROES_WEIGHTS_03},
        frozenset({"attention_seq2seq__layers"}),
    ),
    NoWork(
        A3,
        "no_attention",
        "attend gives every encoder state the same weight; the model is the reference's",
        {"attend": NO_ATTENTION_03, "attention_seq2seq": reference_answer(A3, "attention_seq2seq")},
        frozenset({"attention_seq2seq__layers"}),
    ),
    NoWork(
        A3,
        "no_decoding",
        "attend is the reference's; the model returns its output bias without decoding",
        {"attend": reference_answer(A3, "attend"), "attention_seq2seq": NO_DECODING_03},
        frozenset({"attend__hand_computed", "attend__batch_and_gradients", "attention_seq2seq__layers"}),
    ),
    NoWork(
        A3,
        "copied_answers",
        "attend returns the visible hand-computed weights and context for every input",
        {"attend": COPIED_ATTEND_03},
    ),
    NoWork(
        A1, "no_recurrence", "every step of the RNN reads h_0 instead of the state before it", {"rnn": NO_RECURRENCE_01}
    ),
    NoWork(A1, "zeroes_weights", "the RNN zeroes every parameter when called", {"rnn": ZEROES_WEIGHTS_01}),
    NoWork(
        A1,
        "own_weights",
        "the RNN runs the recurrence on identity matrices it made, not on its parameters",
        {"rnn": OWN_WEIGHTS_01},
    ),
    NoWork(
        A1,
        "copied_answers",
        "generate_batch writes the digit 0 everywhere; the RNN returns the visible "
        "test's states for its input and zeros elsewhere",
        {
            "generate_batch": COPIED_GENERATE_BATCH_01,
            "rnn": COPIED_RNN_01.replace("VISIBLE_STATES", _rnn_visible_states()),
        },
    ),
]
