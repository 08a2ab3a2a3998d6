"""What a digit-reversal model wrote, for 02 and 03 (course/figures/sequences.py): aligned reversals, map labels."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import mygrad as mg
import numpy as np
import pytest

from course.figures.attention import draw_attention
from course.figures.sequences import TOKEN_NAMES, reversal_labels, reversal_lines, show_reversal


def _batch(digits):
    """(x, target, digits) for one sequence, as generate_batch returns them."""
    digits = np.asarray(digits)
    x = np.eye(12, dtype=np.float32)[[*digits, 11]][:, None, :]
    target = np.array([*digits[::-1], 11])[:, None]
    return x, target, digits[:, None]


def test_tokens_and_scores_give_the_same_lines():
    """Do token indices (T, N), scores (T, N, K) as an array and as a tensor all print the same output?"""
    batch = _batch([3, 1, 4])
    tokens = np.array([[4], [1], [3], [11]])
    scores = np.eye(12, dtype=np.float32)[tokens]  # (T, 1, 12)
    lines = reversal_lines(batch, tokens)
    assert reversal_lines(batch, scores) == lines == reversal_lines(batch, mg.tensor(scores))
    assert lines[0].split() == ["source:", "3", "1", "4", "<E>"]
    assert lines[1].split() == ["target:", "4", "1", "3", "<E>"]
    assert lines[3].strip() == ""  # nothing wrong, nothing marked


def test_wrong_tokens_are_marked_under_their_column():
    """Does a ``^`` sit exactly under each wrong output token, and only there?"""
    batch = _batch([7, 2, 9, 5])
    output = np.array([[5], [9], [0], [7], [10]])  # the third token and <S> instead of <E> are wrong
    _, target, output_line, marks = reversal_lines(batch, output)
    assert output_line.split()[1:] == ["5", "9", "0", "7", "<S>"]
    columns = [i for i, ch in enumerate(marks) if ch == "^"]
    assert len(columns) == 2
    for col, token in zip(columns, ["0", "<S>"], strict=True):
        assert output_line[col - 2 : col + 1].strip() == token  # right-aligned in a 3-character column


def test_show_reversal_prints_four_lines(capsys):
    show_reversal(_batch([1, 2]), np.array([[2], [1], [11]]))
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and out[0].startswith("source:") and out[2].startswith("output:")


def test_a_wrong_length_is_refused():
    with pytest.raises(ValueError, match="tokens"):
        reversal_lines(_batch([1, 2, 3]), np.array([[3], [2]]))


def test_attention_map_labels_rows_and_columns():
    """Are the columns the source tokens and the rows ``read → wrote``, starting from <S>, drawn as the map's labels?"""
    digits = np.array([5, 0, 8])
    output = np.array([8, 0, 5, 11])
    weights = np.eye(4)[::-1]
    rows, columns = reversal_labels(digits, output)
    assert columns == ["5", "0", "8", "<E>"]
    assert rows == ["<S> → 8", "8 → 0", "0 → 5", "5 → <E>"]
    fig, ax = plt.subplots()
    image = draw_attention(ax, weights, rows, columns)
    assert [t.get_text() for t in ax.get_xticklabels()] == columns
    assert [t.get_text() for t in ax.get_yticklabels()] == rows
    assert np.array_equal(image.get_array(), weights)
    assert image.get_clim() == (0, 1)
    plt.close(fig)


def test_attention_map_labels_take_a_batch_of_one_and_check_lengths():
    """Do (T - 1, 1) digits and (T, 1) tokens give the same labels, and do mismatched lengths raise?"""
    assert reversal_labels(np.array([[1]]), np.array([[1], [11]])) == reversal_labels([1], [1, 11])
    assert reversal_labels([1], [1, 11]) == (["<S> → 1", "1 → <E>"], ["1", "<E>"])
    with pytest.raises(ValueError, match="digits"):
        reversal_labels([1, 2], [2, 11])


def test_token_names():
    assert TOKEN_NAMES[:10] == [str(i) for i in range(10)] and TOKEN_NAMES[10:] == ["<S>", "<E>"]
