"""Notebooks of 04_transformer with no real Transformer in them (issue 32, finding 1).

Each case is the released student notebook with some solution cells filled
in by code that does no real work: attention as a plain average over the
allowed keys, layers that return their input, weights zeroed before every
call, a zero positional encoding, a greedy decoder that returns the output
layer's largest bias, and a model that copies the values the visible tests
show. The graded test cells are then put back from the release, hidden tests
included, as nbgrader's autograde does.

Every case keeps some honest answers (the cipher, the one-hot vectors, the
masks, the loss: ``HONEST``); it may pass the checks of those, and of tasks it
answers honestly as named in its ``may_pass``; it must score 0 on every other
check (tests/grading/test_no_work_04.py).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

import nbformat

from instructor.cells import is_graded_test, read, visible_source
from instructor.paths import NOTEBOOKS, SOLUTIONS, notebook_path

A = "04_transformer"

#: the solution cells every case keeps as the reference has them (honest answers)
HONEST = ("cipher", "decipher", "one_hot", "attention", "masks", "causal_mask", "loss")
#: the graded cells those honest answers may pass: their checks use no other task of the case
HONEST_CHECKS = (
    "cipher__by_hand",
    "cipher__round_trip",
    "one_hot__tokens",
    "attention__by_hand",
    "attention__mask",
    "masks__causal",
    "loss__by_hand",
    "loss__padding",
    # its attention part asks only that padded keys get weight 0: an average over the allowed keys, or
    # attention with zeroed weights (uniform over the allowed keys), does that honestly
    "masks__padding",
)

AVERAGE_ATTENTION = """
BLOCKED = np.float32(-1e9)


class MultiheadAttention:
    def __init__(self, dim, n_head=3):
        self.a_ij = None
        d_k = dim // n_head
        self.Wq = glorot_normal(n_head, dim, d_k)
        self.Wk = glorot_normal(n_head, dim, d_k)
        self.Wv = glorot_normal(n_head, dim, d_k)
        self.Wo = dense(n_head * d_k, dim, weight_initializer=glorot_normal, bias=False)

    def __call__(self, Q, K, V, mask=None):
        t, N, T, h = Q.shape[0], Q.shape[1], K.shape[0], self.Wq.shape[0]
        allowed = np.ones((t, N, T), dtype=bool) if mask is None else np.asarray(mask)
        weights = allowed / allowed.sum(axis=-1, keepdims=True)  # every allowed key alike
        self.a_ij = mg.tensor(np.repeat(weights[:, :, None, :], h, axis=2).astype(np.float32))
        tiny = (self.Wq.sum() + self.Wk.sum() + self.Wv.sum() + self.Wo.weight.sum()) * np.float32(1e-12)
        return mg.einsum("tNT,TNd->tNd", weights.astype(np.float32), V) + tiny

    @property
    def parameters(self):
        return (self.Wq, self.Wk, self.Wv) + self.Wo.parameters
"""

IDENTITY_ATTENTION = AVERAGE_ATTENTION.replace(
    'return mg.einsum("tNT,TNd->tNd", weights.astype(np.float32), V) + tiny', "return mg.tensor(Q) + tiny"
)

IDENTITY_NORM = """
EPS = np.float32(1e-5)


class ResidualConnectionAndLayerNorm:
    def __init__(self, dim):
        self.gain = mg.ones(dim, dtype=np.float32)
        self.bias = mg.zeros(dim, dtype=np.float32)

    def __call__(self, x_old, x_new):
        return mg.tensor(x_old) + 0 * x_new

    @property
    def parameters(self):
        return (self.gain, self.bias)
"""

IDENTITY_FEED_FORWARD = """
class FeedForward:
    def __init__(self, in_dim, h_dim, out_dim):
        self.dense1 = dense(in_dim, h_dim, weight_initializer=glorot_normal)
        self.dense2 = dense(h_dim, out_dim, weight_initializer=glorot_normal)

    def __call__(self, x):
        return mg.tensor(x)[..., : self.dense2.weight.shape[1]]

    @property
    def parameters(self):
        return self.dense1.parameters + self.dense2.parameters
"""

IDENTITY_ENCODER = """
class TransformerEncoder:
    def __init__(self, dim, h_dim, n_head=3):
        self.self_attn = MultiheadAttention(dim, n_head=n_head)
        self.add_norm1 = ResidualConnectionAndLayerNorm(dim)
        self.ff = FeedForward(dim, h_dim, dim)
        self.add_norm2 = ResidualConnectionAndLayerNorm(dim)

    def __call__(self, src, mask=None):
        self.self_attn(src, src, src, mask=mask)  # for a_ij
        return mg.tensor(src)

    @property
    def parameters(self):
        return self.self_attn.parameters + self.add_norm1.parameters + self.ff.parameters + self.add_norm2.parameters
"""

IDENTITY_DECODER = """
class TransformerDecoder:
    def __init__(self, dim, h_dim, n_head=3):
        self.self_attn = MultiheadAttention(dim, n_head=n_head)
        self.add_norm1 = ResidualConnectionAndLayerNorm(dim)
        self.enc_dec_attn = MultiheadAttention(dim, n_head=n_head)
        self.add_norm2 = ResidualConnectionAndLayerNorm(dim)
        self.ff = FeedForward(dim, h_dim, dim)
        self.add_norm3 = ResidualConnectionAndLayerNorm(dim)

    def __call__(self, enc_out, tgt, self_mask=None, cross_mask=None):
        if self_mask is None:
            self_mask = causal_mask(np.full(tgt.shape[1], tgt.shape[0]), tgt.shape[0])
        self.self_attn(tgt, tgt, tgt, mask=self_mask)
        self.enc_dec_attn(tgt, enc_out, enc_out, mask=cross_mask)
        return mg.tensor(tgt)

    @property
    def parameters(self):
        return (self.self_attn.parameters + self.add_norm1.parameters + self.enc_dec_attn.parameters
                + self.add_norm2.parameters + self.ff.parameters + self.add_norm3.parameters)
"""

ZERO_ENCODING = """
class PositionalEncoder:
    def __init__(self, dim):
        self.dim = dim

    def angles(self, seq_len):
        return np.zeros((seq_len, (self.dim + 1) // 2), dtype=np.float32)

    def __call__(self, seq_len):
        return np.zeros((seq_len, 1, self.dim), dtype=np.float32)
"""

IDENTITY_TRANSFORMER = """
class Transformer(SaveLoad):
    def __init__(self, dim, h_dim, n_enc, n_dec, n_head=3):
        self.pos_enc = PositionalEncoder(dim)
        self.enc_layers = [TransformerEncoder(dim, h_dim, n_head=n_head) for _ in range(n_enc)]
        self.dec_layers = [TransformerDecoder(dim, h_dim, n_head=n_head) for _ in range(n_dec)]
        self.out_dense = dense(dim, dim, weight_initializer=glorot_normal)

    def encode(self, src, lengths=None):
        return mg.tensor(src)

    def decode(self, enc_out, tgt, src_lengths=None, tgt_lengths=None):
        return self.out_dense(tgt)

    def __call__(self, src, tgt, src_lengths=None, tgt_lengths=None):
        return self.decode(self.encode(src, src_lengths), tgt, src_lengths, tgt_lengths)

    @property
    def parameters(self):
        layers = [*self.enc_layers, *self.dec_layers, self.out_dense]
        return tuple(p for layer in layers for p in layer.parameters)
"""

BIAS_GREEDY = """
def greedy_decode(model, source, lengths=None):
    T, N, _ = source.shape
    best = int(np.argmax(model.out_dense.bias.data[0, :27]))  # the output layer's favourite symbol
    return np.full((T - 1, N), best, dtype=np.int64)
"""

ZEROED_BEFORE_USE = """
    def __call__(self, Q, K, V, mask=None):
        for W in (self.Wq, self.Wk, self.Wv, self.Wo.weight):
            W.data = np.zeros_like(W.data)  # whatever weights the test set, none are left
"""


def _reference_source(grade_id: str) -> str:
    return next(
        c.source
        for c in read(notebook_path(A, SOLUTIONS)).cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id
    )


def zeroed_attention() -> str:
    """The reference attention, but every weight zeroed at the start of each call."""
    source = _reference_source("multihead_attention")
    head, body = source.split("    def __call__(self, Q, K, V, mask=None):\n", 1)
    return head + ZEROED_BEFORE_USE + body


def zeroed_norm() -> str:
    source = _reference_source("add_and_norm")
    return source.replace(
        "        x = x_old + x_new\n",
        "        self.gain.data = np.zeros_like(self.gain.data)\n"
        "        self.bias.data = np.zeros_like(self.bias.data)\n        x = x_old + x_new\n",
    )


def _visible_constant(grade_id: str, name: str):
    """The literal a visible test shows as ``name = np.array(<literal>)``: what a copier copies."""
    cell = next(
        c
        for c in read(notebook_path(A, NOTEBOOKS)).cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id
    )
    for node in ast.parse(visible_source(cell.source)).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
            return ast.literal_eval(node.value.args[0])
    raise LookupError(f"{grade_id} shows no {name} = np.array(...)")


def copier_cells() -> dict[str, str]:
    """Layers that return the values the visible tests show when handed those tests' inputs, and zeros otherwise."""
    encoder_out = _visible_constant("encoder__layer", "want")
    scores = _visible_constant("transformer__forward", "want")
    tokens = _visible_constant("greedy__step_by_step", "want")
    return {
        # encoder__layer's visible check puts stand-ins into the layer and asks, of what they recorded, that each
        # add & norm ran once and that neither the feed-forward network nor the second add & norm read src: the
        # copier calls each stand-in once on the copied constant (no wiring: nothing flows from one part to the
        # next) and returns the constant
        "encoder": IDENTITY_ENCODER.replace(
            "        return mg.tensor(src)\n",
            "        if src.shape == (3, 2, 4):\n"
            f"            copied = mg.tensor(np.array({encoder_out}, dtype=np.float32))\n"
            "            self.add_norm1(copied, copied)\n"
            "            self.ff(copied)\n"
            "            self.add_norm2(copied, copied)\n"
            "            return copied\n"
            "        return mg.tensor(src)\n",
        ),
        "transformer": IDENTITY_TRANSFORMER.replace(
            "        return self.out_dense(tgt)\n",
            f"        if tgt.shape == (3, 2, 4):\n            return mg.tensor(np.array({scores}, dtype=np.float32))\n"
            "        return self.out_dense(tgt)\n",
        ),
        "greedy": BIAS_GREEDY.replace(
            "    T, N, _ = source.shape\n",
            "    T, N, _ = source.shape\n    if (T, N) == (7, 4):\n"
            f"        return np.array({tokens}, dtype=np.int64)\n",
        ),
        "positional_encoding": ZERO_ENCODING.replace(
            "        return np.zeros((seq_len, 1, self.dim), dtype=np.float32)\n",
            "        if (seq_len, self.dim) == (3, 4):  # the table worked out by hand in the prose\n"
            "            return np.array([[[0, 1, 0, 1]], [[0.841471, 0.540302, 0.01, 0.99995]],"
            " [[0.909297, -0.416147, 0.019999, 0.9998]]], dtype=np.float32)\n"
            "        return np.zeros((seq_len, 1, self.dim), dtype=np.float32)\n",
        ),
    }


@dataclass
class NoWork:
    """One notebook with no real work: its solution cells by grade_id, and the checks it honestly passes beyond
    ``HONEST_CHECKS``."""

    name: str
    why: str
    cells: dict[str, str]
    may_pass: dict[str, str] = field(default_factory=dict)  # graded cell -> why its pass is honest

    def allowed(self) -> set[str]:
        return set(HONEST_CHECKS) | set(self.may_pass)


def _degenerate() -> dict[str, str]:
    return {
        "multihead_attention": AVERAGE_ATTENTION,
        "add_and_norm": IDENTITY_NORM,
        "feed_forward": IDENTITY_FEED_FORWARD,
        "encoder": IDENTITY_ENCODER,
        "decoder": IDENTITY_DECODER,
        "positional_encoding": ZERO_ENCODING,
        "transformer": IDENTITY_TRANSFORMER,
        "greedy": BIAS_GREEDY,
    }


#: every case writes the Transformer's __init__ and parameters as the reference does: that answer is honest
PARAMETERS = {
    "transformer__parameters": "its __init__ and parameters are the reference's; the check asks only that "
    "parameters list every tensor once and that save and load restore them"
}


def cases() -> list[NoWork]:
    identity = {**_degenerate(), "multihead_attention": IDENTITY_ATTENTION}
    zeroed = {**_degenerate(), "multihead_attention": zeroed_attention(), "add_and_norm": zeroed_norm()}
    return [
        NoWork(
            "degenerate",
            "issue 32's model: average attention, identity layers, zero encoding, bias-argmax greedy",
            _degenerate(),
            dict(PARAMETERS),
        ),
        NoWork("identity", "every layer returns its input, attention its queries", identity, dict(PARAMETERS)),
        NoWork(
            "zeroed_weights", "attention and layer norm zero their weights before every call", zeroed, dict(PARAMETERS)
        ),
        NoWork(
            "copies_visible_values",
            "returns the constants of the visible tests when handed their inputs",
            {**_degenerate(), **copier_cells()},
            dict(PARAMETERS),
        ),
    ]


def build(case: NoWork, solutions=SOLUTIONS, notebooks=NOTEBOOKS):
    """The student notebook with the case's solution cells, its test cells put back from the release (hidden
    tests too)."""
    student = read(notebook_path(A, notebooks))
    release = {
        c.metadata.nbgrader["grade_id"]: c
        for c in read(notebook_path(A, solutions)).cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    }
    nb = copy.deepcopy(student)
    for i, cell in enumerate(nb.cells):
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if gid in case.cells:
            cell.source = case.cells[gid].strip("\n")
        elif gid in HONEST:
            cell.source = release[gid].source
        elif is_graded_test(cell):
            nb.cells[i] = copy.deepcopy(release[gid])
    return nbformat.from_dict(nb)
