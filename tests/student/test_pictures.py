"""The notebooks' pictures (course.pictures): one call draws the picture a cell shows, quietly."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from course import pictures


@pytest.fixture
def shown(monkeypatch):
    """The figures that ``plt.show()`` was asked to show, in order (closed after the test)."""
    figures = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: figures.append(plt.gcf()))
    yield figures
    plt.close("all")


def _texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts]


def test_show_masks_draws_one_labelled_panel_per_mask(shown, capsys):
    """Does each (t, T) mask get a panel with its title, key j across and query i down, and nothing printed?"""
    lengths = np.array([6, 3])
    pad = np.broadcast_to(np.arange(6)[None, None, :] < lengths[None, :, None], (6, 2, 6))  # (t, N, T)
    causal = np.tril(np.ones((6, 6), dtype=bool))
    assert pictures.show_masks([pad[:, 1], causal], ["padding", "causal"]) is None
    (fig,) = shown
    axes = fig.axes
    assert [ax.get_title() for ax in axes] == ["padding", "causal"]
    assert all(ax.get_xlabel() == "key j" and ax.get_ylabel() == "query i" for ax in axes)
    image = axes[1].images[0].get_array()
    assert image.shape == (6, 6) and np.array_equal(np.asarray(image), causal.astype(float))
    assert capsys.readouterr() == ("", "")


def test_show_masks_names_a_mask_of_the_whole_batch():
    """Is a (t, N, T) mask refused with a message that says to pick one sequence?"""
    with pytest.raises(ValueError, match=r"mask\[:, n\]"):
        pictures.show_masks([np.ones((4, 2, 4), dtype=bool)], ["batch"])
    with pytest.raises(ValueError, match="2 masks but 1 titles"):
        pictures.show_masks([np.ones((2, 2)), np.ones((2, 2))], ["one"])


def test_show_encodings_draws_each_encoding_as_an_image(shown):
    """Are (T, 1, d) and (T, d) encodings drawn side by side, positions down, with their titles?"""
    p = np.arange(7)[:, None]
    standard = np.sin(p / 10000 ** (np.arange(5) / 5))[:, None, :].astype(np.float32)  # (T, 1, d)
    pictures.show_encodings({"standard": standard, "flat": standard[:, 0]})
    (fig,) = shown
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["standard", "flat"]
    for ax in panels:
        assert ax.images[0].get_array().shape == (7, 5)
        assert ax.get_ylabel() == "position p"


def test_draw_heads_lays_out_a_block_per_head_and_a_band_per_layer():
    """Do 2 layers of 3 heads over t = 2 queries and T = 4 keys fill a (2·3 − 1) × (3·5 − 1) canvas with gaps?"""
    weights = np.random.default_rng(0).random((2, 3, 2, 4)).astype(np.float32)
    fig, ax = plt.subplots()
    pictures.draw_heads(ax, weights, ["S", "a"], ["x", "y", "z", "E"], "title")
    canvas = np.asarray(ax.images[0].get_array())
    assert canvas.shape == (2 * 3 - 1, 3 * 5 - 1)
    assert np.allclose(canvas[3:5, 10:14], weights[1, 2])  # layer 1, head 2
    assert np.ma.getmaskarray(ax.images[0].get_array())[2].all() or np.isnan(canvas[2]).all()  # the gap between layers
    texts = _texts(ax)
    assert [t for t in texts if t.startswith("head")] == ["head 0", "head 1", "head 2"]
    assert [t for t in texts if t.startswith("layer")] == ["layer 0", "layer 1"]
    assert ax.get_title() == "title"
    plt.close(fig)
    with pytest.raises(ValueError, match="labels"):
        pictures.draw_heads(plt.subplots()[1], weights, ["S"], ["x", "y", "z", "E"], "too few query labels")


def test_show_attention_maps_draws_the_three_attentions_of_a_message(shown):
    """Does one call draw encoder, decoder and cross-attention, naming the message and marking spaces and tokens?"""
    rng = np.random.default_rng(1)
    secret, decrypted = "ab c", "xy z"
    T = t = len(secret) + 1

    def weights(queries, keys):
        w = rng.random((2, 4, queries, keys)).astype(np.float32)
        return w / w.sum(axis=-1, keepdims=True)

    maps = {"decrypted": decrypted, "source": [*secret, "END"], "decoder_input": ["START", *decrypted],
            "encoder": weights(T, T), "decoder_self": weights(t, t), "cross": weights(t, T)}
    pictures.show_attention_maps(maps)
    (fig,) = shown
    titles = [ax.get_title() for ax in fig.axes]
    assert len(titles) == 3 and "'ab c'" in titles[0] and "'xy z'" in titles[1] and titles[2].startswith("Encoder-decoder")
    labels = _texts(fig.axes[2])
    assert "\u2423" in labels and "S" in labels and "E" in labels  # a visible space, START and END shortened
    assert " " not in labels and "START" not in labels
