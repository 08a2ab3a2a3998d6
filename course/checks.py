"""What several test cells of the notebooks share: stand-in layers and cases worked out by hand.

A test cell imports from here what it would otherwise define again in every
cell of a task. Nothing here calls the student's code or decides a verdict:
the cells still call the student's functions themselves and hold every
``assert`` (with the message the student reads), so the grader judges each
check outside the student's kernel as before.

* 04's layer stand-ins (:class:`StandInAttention`, :class:`StandInNorm`,
  :class:`StandInFeedForward`, :func:`decoder_stand_ins`): parts whose
  outputs a check knows, put into the student's encoder or decoder layer
  through its documented attributes, so a check of the wiring scores only
  the wiring, and the layers wired right on them, in NumPy
  (:func:`encoder_stand_ins_output`, :func:`decoder_stand_ins_output`);
  :class:`KnownScores`, a trained model's stand-in whose scores 04's greedy checks know;
* the earlier task a later check builds on, checked first on a small case
  (:func:`reverses_digits`, :func:`guess_case`, :func:`attend_case`,
  :func:`attends_like_the_hand_case`), so that its failure reads "fix that
  task first" and not as a mistake of the task under test.
"""

from __future__ import annotations

import mygrad as mg
import numpy as np

from course.cipher_data import ALPHABET

__all__ = [
    "KnownScores",
    "StandInAttention",
    "StandInFeedForward",
    "StandInNorm",
    "attend_case",
    "attends_like_the_hand_case",
    "decoder_stand_ins",
    "decoder_stand_ins_output",
    "encoder_stand_ins_output",
    "guess_case",
    "reverses_digits",
]


def _numbered(first: int) -> tuple[mg.Tensor, mg.Tensor]:
    """Two one-number tensors holding ``first`` and ``first + 1``: a check counts a layer's parameters by them."""
    return mg.tensor([first], dtype=np.dtype(np.float32)), mg.tensor([first + 1], dtype=np.dtype(np.float32))


class StandInAttention:
    """Stands in for MultiheadAttention: 0.5 q + mean(k) - 2 mean(v), each mean over the keys the mask allows.

    It keeps what it was given (``query``, ``key``, ``value``, ``mask``, as
    arrays) and lists two tensors numbered ``first`` and ``first + 1`` as parameters.

    Call: query (t, N, d), key and value (T, N, d), mask (t, N, T) of bool or
    None (every key) -> (t, N, d).
    """

    def __init__(self, first: int):
        self.parameters = _numbered(first)
        self.query = self.key = self.value = self.mask = None

    def __call__(self, query, key, value, mask=None):
        self.query, self.key, self.value = (np.array(mg.asarray(x)) for x in (query, key, value))
        self.mask = None if mask is None else np.array(mask)
        (t, N), T = query.shape[:2], key.shape[0]
        allowed = np.ones((t, N, T), dtype=bool) if mask is None else np.asarray(mask)
        weights = (allowed / allowed.sum(axis=-1, keepdims=True)).astype(np.float32)
        return (
            np.float32(0.5) * query
            + mg.einsum("tNT,TNd->tNd", weights, key)
            - np.float32(2) * mg.einsum("tNT,TNd->tNd", weights, value)
        )


class StandInNorm:
    """Stands in for ResidualConnectionAndLayerNorm: tanh(x_old + x_new) * gain + bias.

    It counts its calls, keeps every call's two inputs (``inputs``, arrays,
    in order) and its last output (``out``); its parameters are two tensors
    numbered ``first`` and ``first + 1``. Call: x_old, x_new (T, N, d) -> (T, N, d).
    """

    def __init__(self, first: int, gain: float, bias: float):
        self.parameters = _numbered(first)
        self.gain, self.bias = np.float32(gain), np.float32(bias)
        self.calls: int = 0
        self.inputs: list[np.ndarray] = []
        self.out = None

    def __call__(self, x_old, x_new):
        self.calls += 1
        self.inputs += [np.array(mg.asarray(x_old)), np.array(mg.asarray(x_new))]
        out = mg.tanh(x_old + x_new) * self.gain + self.bias
        self.out = np.array(mg.asarray(out))
        return out


class StandInFeedForward:
    """Stands in for FeedForward: tanh(x W), ``W`` (d, d) a matrix the check chose; it keeps its input ``x``.

    Its parameters are two tensors numbered ``first`` and ``first + 1``. Call: x (T, N, d) -> (T, N, d).
    """

    def __init__(self, first: int, W: np.ndarray):
        self.parameters = _numbered(first)
        self.W, self.x = W, None

    def __call__(self, x):
        self.x = np.array(mg.asarray(x))
        return mg.tanh(mg.matmul(x, self.W))


def decoder_stand_ins(dec, W: np.ndarray) -> None:
    """Put the stand-ins into a decoder layer ``dec`` through its documented attributes.

    The six parts' parameters are numbered 0 to 11: self_attn 0-1, add_norm1
    2-3, enc_dec_attn 4-5, add_norm2 6-7, ff 8-9 (with the matrix ``W``, (d, d)), add_norm3 10-11.
    """
    dec.self_attn, dec.enc_dec_attn = StandInAttention(0), StandInAttention(4)
    dec.add_norm1, dec.add_norm2 = StandInNorm(2, 1.5, 0.25), StandInNorm(6, -0.5, 1.0)
    dec.add_norm3 = StandInNorm(10, 0.75, -0.5)
    dec.ff = StandInFeedForward(8, W)


def _stand_in_attention(q, kv, mask):
    """What :class:`StandInAttention` gives, in NumPy: q (t, N, d), kv (T, N, d), mask (t, N, T) -> (t, N, d)."""
    weights = mask / mask.sum(axis=-1, keepdims=True)
    mean = np.einsum("tNT,TNd->tNd", weights, kv)
    return 0.5 * q + mean - 2 * mean


def encoder_stand_ins_output(src, mask, gains, W):
    """An encoder layer wired right, on the stand-ins, in NumPy: attention as :class:`StandInAttention`, the two
    norms tanh(x_old + x_new) * gain + bias with ``gains`` (gain 1, bias 1, gain 2, bias 2), the feed-forward
    tanh(x W). src (T, N, d), mask (T, N, T) of bool, W (d, d) -> (T, N, d)."""
    x1 = np.tanh(src + _stand_in_attention(src, src, mask)) * gains[0] + gains[1]
    return np.tanh(x1 + np.tanh(x1 @ W)) * gains[2] + gains[3]


def decoder_stand_ins_output(enc_out, tgt, self_mask, cross_mask, W):
    """A decoder layer wired right, on :func:`decoder_stand_ins` (the same ``W``), in NumPy.

    enc_out (T, N, d), tgt (t, N, d), self_mask (t, N, t), cross_mask (t, N, T) of bool, W (d, d) -> (t, N, d).
    """
    x1 = np.tanh(tgt + _stand_in_attention(tgt, tgt, self_mask)) * 1.5 + 0.25
    x2 = np.tanh(x1 + _stand_in_attention(x1, enc_out, cross_mask)) * -0.5 + 1.0
    return np.tanh(x2 + np.tanh(x2 @ W)) * 0.75 - 0.5


class KnownScores:
    """A stand-in for 04's trained model: the scores at decoder position i depend on cipher symbol i and on
    decoder input i, through three tables drawn from ``seed``.

    ``encode`` and ``decode`` take the arguments of ``Transformer.encode`` and ``Transformer.decode``.
    """

    def __init__(self, seed):
        n_symbols, start = len(ALPHABET) + 2, len(ALPHABET)  # 04's one-hot width and its START token
        tables = np.random.default_rng(seed).normal(size=(3, n_symbols, n_symbols)).astype(np.float32)
        self.by_source, self.by_input, self.by_mean = tables
        self.by_input[:, start:] += 2  # START and END often score highest: they must never be picked

    def encode(self, src, lengths=None):
        T, N = src.shape[:2]
        real = (np.arange(T)[:, None] < (np.full(N, T) if lengths is None else np.asarray(lengths))).astype(np.float32)
        mean = (np.asarray(src) * real[..., None]).sum(axis=0) / real.sum(axis=0)[:, None]  # (N, 29): the real symbols
        return mg.tensor(np.asarray(src) + mean)

    def decode(self, enc_out, tgt, src_lengths=None, tgt_lengths=None):
        t, T = len(tgt), len(enc_out)
        real = np.arange(T)[:, None] < (np.full(tgt.shape[1], T) if src_lengths is None else np.asarray(src_lengths))
        mean = (np.asarray(enc_out) * real[..., None]).sum(axis=0) / real.sum(axis=0)[:, None]
        scores = np.asarray(enc_out)[:t] @ self.by_source + np.asarray(tgt) @ self.by_input + mean @ self.by_mean
        return mg.tensor(scores)

    def __call__(self, src, tgt, src_lengths=None, tgt_lengths=None):
        return self.decode(self.encode(src, src_lengths), tgt, src_lengths, tgt_lengths)


def reverses_digits(shapes, x, target, digits) -> bool:
    """Is this the batch of 01's ``generate_batch(3, 3, 4)``: the shapes of (x, target, digits), then the three?

    x (4, 4, 12) one-hot digits then the end token 11; target (4, 4) the
    digits reversed then 11; digits (3, 4).
    """
    return (
        list(shapes) == [(4, 4, 12), (4, 4), (3, 4)]
        and np.array_equal(np.argmax(x[:-1], axis=-1), digits)
        and np.array_equal(target[:-1], digits[::-1])
        and bool(np.all(target[-1] == 11))
        and bool(np.all(np.argmax(x[-1], axis=-1) == 11))
    )


def guess_case() -> tuple[np.ndarray, np.ndarray]:
    """02's scores of one decoder step (1, N=2, K=12), best classes 3 and 7, and their one-hot guesses (1, 2, 12).

    Both float32: ``one_hot_encode_prediction`` of the first should give the second.
    """
    scores = np.zeros((1, 2, 12), dtype=np.float32)
    scores[0, 0, 3], scores[0, 1, 7] = 1.0, 2.0
    wanted = np.zeros((1, 2, 12), dtype=np.float32)
    wanted[0, 0, 3] = wanted[0, 1, 7] = 1.0
    return scores, wanted


def attend_case() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """03's case of ``attend`` worked out by hand (T = 3, N = 2, D = 2).

    Returns the projected encoder states (3, 2, 2), the encoder states (3, 2, 2)
    and the decoder state (1, 2, 2); the weights it gives are
    [[0.4, 1/3], [0.2, 1/3], [0.4, 1/3]] and the context [[[0.8, 0.6], [1, 1]]].
    """
    ln2 = float(np.float32(np.log(2)))
    # (N, T, D), then time first: sequence 0 and sequence 1
    proj = np.ascontiguousarray(
        np.array([[[ln2, 0], [0, 0], [0, ln2]], [[1, 2], [3, -1], [0, 5]]], dtype=np.float32).transpose(1, 0, 2)
    )
    states = np.ascontiguousarray(
        np.array([[[1, 0], [0, 1], [1, 1]], [[3, 0], [0, 3], [0, 0]]], dtype=np.float32).transpose(1, 0, 2)
    )
    return proj, states, np.array([[[1, 1], [0, 0]]], dtype=np.float32)


def attends_like_the_hand_case(weights, context) -> bool:
    """Are ``weights`` (T, N) and ``context`` (1, N, D) what attend gives on :func:`attend_case`?"""
    return bool(
        np.allclose(weights, [[0.4, 1 / 3], [0.2, 1 / 3], [0.4, 1 / 3]], atol=1e-5)
        and np.allclose(context, [[[0.8, 0.6], [1.0, 1.0]]], atol=1e-5)
    )
