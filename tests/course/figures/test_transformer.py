"""The figures of 04 (course/figures/transformer.py): one call draws the picture a cell shows, quietly."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

from course.figures import transformer as pictures


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


def test_show_attention_maps_draws_the_three_attentions_of_a_message(shown):
    """Does one call draw encoder, decoder and cross-attention, naming the message and marking spaces and tokens?"""
    rng = np.random.default_rng(1)
    secret, decrypted = "ab c", "xy z"
    T = t = len(secret) + 1

    def weights(queries, keys):
        w = rng.random((2, 4, queries, keys)).astype(np.float32)
        return w / w.sum(axis=-1, keepdims=True)

    maps = {
        "decrypted": decrypted,
        "source": [*secret, "END"],
        "decoder_input": ["START", *decrypted],
        "encoder": weights(T, T),
        "decoder_self": weights(t, t),
        "cross": weights(t, T),
    }
    pictures.show_attention_maps(maps)
    (fig,) = shown
    panels = [ax for ax in fig.axes if ax.images]  # the colour bar is an axes too
    titles = [ax.get_title(loc="left") for ax in panels]
    assert len(panels) == 6, "a panel per layer (2) of each of the three attentions"
    assert "'ab c'" in titles[0] and "'xy z'" in titles[2] and titles[4].startswith("Encoder-decoder")
    assert titles[1] == titles[3] == titles[5] == ""  # a kind's title over its first layer only
    assert [ax.get_ylabel() for ax in panels[4:]] == ["layer 0: decoder input", "layer 1: decoder input"]
    cross = np.ma.filled(panels[5].images[0].get_array(), np.nan)  # layer 1 of the cross-attention, head 3
    assert np.allclose(cross[:, 3 * (T + 1) : 4 * (T + 1) - 1], maps["cross"][1, 3])
    keys = [t.get_text() for t in panels[4].get_xticklabels()]
    queries = [t.get_text() for t in panels[4].get_yticklabels()]
    assert keys == ["a", "b", "\u2423", "c", "E"] * 4  # a visible space and END shortened, once per head
    assert queries == ["S", "x", "y", "\u2423", "z"]
    assert [t.get_text() for t in panels[4].texts] == [f"head {h}" for h in range(4)]
    assert fig.axes[-1].get_ylabel() == "weight"  # one colour bar
