"""The course's one attention heat map (course/figures/attention.py): its contract, and that it draws what it takes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import mygrad as mg
import numpy as np
import pytest

from course.figures.attention import draw_attention, show_attention


def _ticks(labels) -> list[str]:
    return [t.get_text() for t in labels]


def test_one_map_rows_are_queries_columns_are_keys():
    """A (T_out, T_in) map: the image is the weights, queries down, keys across on top, clim 0 to 1?"""
    weights = np.eye(4, dtype=np.float32)[::-1][:3]  # (T_out=3, T_in=4)
    fig, ax = plt.subplots()
    image = draw_attention(ax, weights, ["a", "b", "c"], ["w", " ", "y", "z"], title="t", query_axis="q", key_axis="k")
    assert np.array_equal(np.asarray(image.get_array()), weights)
    assert image.get_clim() == (0, 1)
    assert _ticks(ax.get_yticklabels()) == ["a", "b", "c"]
    assert _ticks(ax.get_xticklabels()) == ["w", "\u2423", "y", "z"]  # a space is shown as ␣
    assert ax.xaxis.get_ticks_position() == "top"
    assert (ax.get_title(loc="left"), ax.get_ylabel(), ax.get_xlabel()) == ("t", "q", "k")
    assert not [t for t in ax.texts if t.get_text().startswith("head")]  # one map: no head names
    plt.close(fig)


def test_heads_stand_side_by_side_with_a_blank_column_between():
    """(heads, T_out, T_in) = (3, 2, 4): a 2 x (3·5 − 1) canvas, head 2 in its block, NaN gaps, each head named?"""
    weights = np.random.default_rng(0).random((3, 2, 4)).astype(np.float32)
    fig, ax = plt.subplots()
    image = draw_attention(ax, mg.tensor(weights), ["S", "a"], ["x", "y", "z", "E"])  # a tensor is fine too
    canvas = np.ma.filled(image.get_array(), np.nan)
    assert canvas.shape == (2, 3 * 5 - 1)
    assert np.allclose(canvas[:, 10:14], weights[2])
    assert np.isnan(canvas[:, 4]).all() and np.isnan(canvas[:, 9]).all()
    assert [t.get_text() for t in ax.texts] == ["head 0", "head 1", "head 2"]
    assert _ticks(ax.get_xticklabels()) == ["x", "y", "z", "E"] * 3
    assert list(ax.get_xticks()) == [0, 1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13]
    plt.close(fig)


def test_labels_and_shapes_outside_the_contract_are_refused():
    """Too few labels, or a batch or layer axis left in: a ValueError that says what to do?"""
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="1 query and 4 key labels"):
        draw_attention(ax, np.ones((2, 4)), ["S"], ["x", "y", "z", "E"])
    with pytest.raises(ValueError, match=r"\(heads, T_out, T_in\).*pick one sequence"):
        draw_attention(ax, np.ones((2, 3, 2, 4)), ["S", "a"], ["x", "y", "z", "E"])
    with pytest.raises(ValueError, match=r"\(T_out, T_in\)"):
        draw_attention(ax, np.ones(4), ["S"], ["x", "y", "z", "E"])
    plt.close(fig)


def test_show_attention_shows_one_figure_with_a_colour_bar(shown, capsys):
    """Does one call show one figure (the map and its colour bar), return None and print nothing?"""
    weights = np.full((2, 3), 1 / 3)
    assert show_attention(weights, ["<S> → 1", "1 → <E>"], ["1", "2", "<E>"], title="one") is None
    (fig,) = shown
    heat, bar = fig.axes
    assert heat.get_title(loc="left") == "one" and np.allclose(np.asarray(heat.images[0].get_array()), weights)
    assert bar.get_ylabel() == "weight"
    assert capsys.readouterr() == ("", "")
