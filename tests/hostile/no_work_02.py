"""Submissions of 02_seq2seq that skip the work and try to score anyway (issue 32, findings 2 and 3).

Every case starts from the released student notebook: its answer cells are
replaced by the sources below (Part A's by the reference: the cases skip
the decoder and the beam search), and its test cells by the release's full ones
(hidden tests included), as the grader restores them from the gradebook.
Part A's cells and those ``honest`` names are passed by real work; every
other graded cell must score 0.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from nbformat.v4 import new_code_cell

from instructor.cells import find_cell, grade_id, is_graded_test, read
from instructor.paths import NOTEBOOKS, SOLUTIONS, notebook_path

A = "02_seq2seq"
ANSWERS = ("one_hot_encode_prediction", "seq2seq", "beam_search")


@dataclass(frozen=True)
class NoWork:
    name: str
    why: str
    answers: dict  # answer cell grade_id -> its source (the released stub where absent)
    extra: str = ""  # a student cell after the set-up cell
    honest: frozenset = field(default_factory=frozenset)  # graded cells passed by real work, beyond Part A


def reference_answer(gid: str) -> str:
    """The reference solution's source of answer cell ``gid`` (real work, where a case does some)."""
    return find_cell(read(notebook_path(A, SOLUTIONS)), gid).source


#: a Seq2Seq whose scores are equal for every class: no decoding at all
EQUAL_SCORES = """
class Seq2Seq:
    def __init__(self, dim_input, dim_recurrent, dim_output):
        self.dim_output = dim_output
        self.encoder = RNN(dim_input, dim_recurrent, dim_output)
        self.decoder = RNN(dim_output, dim_recurrent, dim_output)
        for layer in (self.decoder.output_layer,):  # equal scores for every class
            layer.weight = mg.zeros_like(layer.weight)
            layer.bias = mg.zeros_like(layer.bias)

    def __call__(self, x):
        return mg.zeros(x.shape[:2] + (self.dim_output,), dtype=np.float32)

    @property
    def parameters(self):
        return self.encoder.parameters + self.decoder.parameters
"""

#: a beam search that writes zeros with the log-probability of T guesses among K equal classes
ZERO_BEAM = """
def beam_search(model, x, width):
    T, N = x.shape[:2]
    return np.zeros((T, N), dtype=np.int64), np.full(N, T * np.log(1 / 12))
"""

#: MyGrad behind a proxy whose log-softmax gives zeros: a kernel-side reference would see equal classes
MG_PROXY = """
import mygrad


class LogSoftmaxOfZeros:
    def __getattr__(self, name):
        if name == "logsoftmax":
            return lambda x, axis=-1: mygrad.zeros_like(x)
        return getattr(mygrad.nnet, name)


class MyGradProxy:
    nnet = LogSoftmaxOfZeros()

    def __getattr__(self, name):
        return getattr(mygrad, name)


mg = MyGradProxy()
"""

ZERO_BEAM_NO_LOG = """
def beam_search(model, x, width):
    T, N = x.shape[:2]
    return np.zeros((T, N), dtype=np.int64), np.zeros(N)
"""


def _forgets_weights(fill: str) -> str:
    """A reference Seq2Seq and beam search that first overwrite every weight of the model with ``fill``."""
    forget = f"""
def forget_weights(model):
    # every weight the check loaded is replaced by one the student chose
    for rnn in (model.encoder, model.decoder):
        for layer in (rnn.input_layer, rnn.recurrent_layer, rnn.output_layer):
            layer.weight = mg.tensor({fill.format(shape="layer.weight.shape")})
            if layer.bias is not None:
                layer.bias = mg.zeros_like(layer.bias)
"""
    seq2seq = reference_answer("seq2seq").replace(
        "        T, N = x.shape[:2]\n        _, enc_h",
        "        forget_weights(self)\n        T, N = x.shape[:2]\n        _, enc_h",
    )
    beam = reference_answer("beam_search").replace(
        "    rows = np.arange(N)", "    forget_weights(model)\n    rows = np.arange(N)"
    )
    assert "forget_weights(self)" in seq2seq and "forget_weights(model)" in beam
    return forget + "\n\n" + seq2seq, beam


ZERO_SEQ2SEQ, ZERO_BEAM_SEARCH = _forgets_weights("np.zeros({shape}, dtype=np.float32)")
IDENTITY_SEQ2SEQ, IDENTITY_BEAM_SEARCH = _forgets_weights("np.eye(*{shape}, dtype=np.float32)")

#: beam search answering the visible tests' inputs with their printed answers (the trap's among them)
COPIED = """
def beam_search(model, x, width):
    T, N = x.shape[:2]
    if T == 3 and width == 1:  # the trap, greedy: the answer printed in the visible test
        return np.array([[1] * N, [0] * N, [11] * N]), np.full(N, np.log(0.5 * 0.25 * 0.9))
    if T == 3:  # the trap, any wider beam; the decoder is shown the one step the visible test looks for
        model.decoder(np.eye(12, dtype=np.float32)[[[2]]], np.eye(12, dtype=np.float32)[[[10]]])
        return np.array([[2] * N, [3] * N, [11] * N]), np.full(N, np.log(0.4 * 0.9 * 0.9))
    return np.zeros((T, N), dtype=np.int64), np.zeros(N)
"""

CASES = [
    NoWork(
        "equal_scores_zero_beam",
        "a decoder with equal scores for every class and a beam search of zeros",
        {"seq2seq": EQUAL_SCORES, "beam_search": ZERO_BEAM},
    ),
    NoWork(
        "mg_proxy",
        "`mg` rebound to a proxy whose log-softmax gives zeros; beam search writes zeros",
        {"seq2seq": reference_answer("seq2seq"), "beam_search": ZERO_BEAM_NO_LOG},
        extra=MG_PROXY,
        honest=frozenset({"seq2seq__greedy_decoding", "seq2seq__matches_reference"}),
    ),
    NoWork(
        "zero_weights",
        "the model's weights replaced by zeros before every call",
        {"seq2seq": ZERO_SEQ2SEQ, "beam_search": ZERO_BEAM_SEARCH},
    ),
    NoWork(
        "identity_weights",
        "the model's weights replaced by identity matrices before every call",
        {"seq2seq": IDENTITY_SEQ2SEQ, "beam_search": IDENTITY_BEAM_SEARCH},
    ),
    NoWork(
        "copied_answers", "beam search returns the visible tests' answers for their inputs", {"beam_search": COPIED}
    ),
]


def build(case: NoWork):
    """The released student notebook with the case's answers, and the release's full test cells."""
    nb = copy.deepcopy(read(notebook_path(A, NOTEBOOKS)))
    source = read(notebook_path(A, SOLUTIONS))
    answers = {"one_hot_encode_prediction": reference_answer("one_hot_encode_prediction"), **case.answers}
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid in answers:
            cell.source = answers[gid]
        elif is_graded_test(cell):
            cell.source = find_cell(source, gid).source  # the grader restores test cells from the gradebook
    if case.extra:
        index = nb.cells.index(find_cell(nb, "setup"))
        nb.cells.insert(index + 1, new_code_cell(case.extra))
    return nb
