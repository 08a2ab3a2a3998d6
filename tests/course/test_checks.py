"""course.checks: what the test cells import does what its docstrings say."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from course.checks import attend_case, attends_like_the_hand_case, decoder_stand_ins, guess_case, reverses_digits


def test_decoder_stand_ins_number_their_parameters_0_to_11():
    dec = SimpleNamespace()
    decoder_stand_ins(dec, np.eye(4, dtype=np.float32))
    parts = (dec.self_attn, dec.add_norm1, dec.enc_dec_attn, dec.add_norm2, dec.ff, dec.add_norm3)
    assert [float(p.data[0]) for part in parts for p in part.parameters] == list(range(12))


def test_the_attend_case_gives_the_weights_and_context_it_documents():
    proj, states, s = attend_case()
    scores = (proj * s).sum(axis=-1)  # (T, N)
    weights = np.exp(scores) / np.exp(scores).sum(axis=0)
    context = (weights[..., None] * states).sum(axis=0, keepdims=True)
    assert proj.dtype == states.dtype == s.dtype == np.float32
    assert attends_like_the_hand_case(weights, context)
    assert not attends_like_the_hand_case(weights[:, ::-1], context)  # the two sequences swapped


def test_guess_case_and_the_reversed_batch():
    scores, wanted = guess_case()
    assert np.array_equal(np.eye(12, dtype=np.float32)[scores.argmax(axis=-1)], wanted)
    digits = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 0, 1, 2]])
    x = np.eye(12)[np.concatenate([digits, np.full((1, 4), 11)])]
    target = np.concatenate([digits[::-1], np.full((1, 4), 11)])
    shapes = [x.shape, target.shape, digits.shape]
    assert reverses_digits(shapes, x, target, digits)
    assert not reverses_digits(shapes, x, np.concatenate([digits, np.full((1, 4), 11)]), digits)
