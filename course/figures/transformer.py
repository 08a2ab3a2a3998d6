"""The figures of notebook 04 (the Transformer), drawn from the notebook's own arrays.

Every function draws with pyplot and calls ``plt.show()``, so the picture
appears below the cell that calls it (inline in JupyterLab), and returns
None, so that the cell does not show the figure a second time as its value.
Nothing is printed.

- :func:`show_masks` (Part D): boolean (t, T) masks side by side;
- :func:`show_encodings` (Part H): positional encodings as images;
- :func:`show_attention_maps`: every head of every layer of the three
  attentions of a trained Transformer, for one message, each layer drawn by
  the course's one heat map (:func:`course.figures.attention.draw_attention`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np

from course.figures.attention import draw_attention

__all__ = ["show_attention_maps", "show_encodings", "show_masks"]

#: how the attention maps write the tokens that are not letters (a space is shown as ␣ by the heat map)
SHORT_LABELS = {"START": "S", "END": "E"}


def _short(labels: Sequence[str]) -> list[str]:
    return [SHORT_LABELS.get(label, label) for label in labels]


def show_masks(masks: Sequence, titles: Sequence[str]):
    """Draw boolean (t, T) masks side by side: light = the query may read the key, dark = blocked.

    Parameters
    ----------
    masks : Sequence[array_like], each shape=(t, T), dtype=bool
        One mask per panel: ``mask[i, j]`` says whether query i may read key j.
    titles : Sequence[str]
        One title per mask.

    """
    masks = [np.asarray(m) for m in masks]
    if len(masks) != len(titles):
        raise ValueError(f"{len(masks)} masks but {len(titles)} titles")
    for m in masks:
        if m.ndim != 2:
            raise ValueError(f"each mask should have shape (t, T), not {m.shape}: pick one sequence, e.g. mask[:, n]")
    fig, axes = plt.subplots(1, len(masks), figsize=(3.3 * len(masks), 3.6), squeeze=False)
    for ax, mask, title in zip(axes[0], masks, titles, strict=True):
        ax.imshow(mask.astype(float), cmap="gray", vmin=0, vmax=1)
        ax.set_xticks(range(mask.shape[1]))
        ax.set_yticks(range(mask.shape[0]))
        ax.set_xlabel("key j")
        ax.set_ylabel("query i")
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    plt.show()


def show_encodings(encodings: Mapping[str, np.ndarray]):
    """Draw positional encodings side by side, one image each: positions down, dimensions across.

    Parameters
    ----------
    encodings : Mapping[str, array_like]
        {title: encoding of shape (T, d) or (T, 1, d)}, values in [-1, 1].

    """
    fig, axes = plt.subplots(1, len(encodings), figsize=(5.2 * len(encodings), 4.6), squeeze=False)
    for ax, (title, encoding) in zip(axes[0], encodings.items(), strict=True):
        encoding = np.asarray(encoding)
        if encoding.ndim == 3:
            encoding = encoding[:, 0, :]
        image = ax.imshow(encoding, cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
        ax.set_xlabel("dimension (even: sine, odd: cosine)")
        ax.set_ylabel("position p")
        ax.set_title(title, fontsize=10)
    fig.colorbar(image, ax=list(axes[0]), label="value", shrink=0.85)
    plt.show()


def show_attention_maps(maps: Mapping):
    """Draw the three attentions of a Transformer for one message: a row per layer, the heads across.

    Parameters
    ----------
    maps : Mapping
        What 04's ``attention_maps(model, encrypted_message)`` returns:
        ``"source"`` (T labels), ``"decoder_input"`` (t labels), ``"decrypted"``
        (str), ``"encoder"`` (n_enc, h, T, T), ``"decoder_self"`` (n_dec, h, t, t)
        and ``"cross"`` (n_dec, h, t, T).

    """
    source, target = _short(maps["source"]), _short(maps["decoder_input"])
    secret = "".join(maps["source"][:-1])
    kinds = [  # (title, weights (layers, h, queries, keys), query labels, key labels, query name, key name)
        (
            f"Encoder self-attention: cipher text reads cipher text, {secret!r}",
            maps["encoder"],
            source,
            source,
            "cipher text",
            "cipher text",
        ),
        (
            f"Decoder self-attention: decoder input reads decoder input, writing {maps['decrypted']!r}",
            maps["decoder_self"],
            target,
            target,
            "decoder input",
            "decoder input",
        ),
        (
            "Encoder-decoder attention: decoder input reads cipher text",
            maps["cross"],
            target,
            source,
            "decoder input",
            "cipher text",
        ),
    ]
    # one panel per layer of each kind; the kind's title over its first layer
    panels = [
        (title if layer == 0 else "", w, queries, keys, f"layer {layer}: {query_name}", key_name)
        for title, weights, queries, keys, query_name, key_name in kinds
        for layer, w in enumerate(np.asarray(weights, dtype=np.float32))
    ]
    width = 10.0
    cell = (width - 2) / max(w.shape[0] * (w.shape[2] + 1) for _, w, *_ in panels)  # inches per square
    heights = [w.shape[1] * cell + (1.4 if title else 1.0) for title, w, *_ in panels]  # + labels and title
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(width, sum(heights)), height_ratios=heights, layout="constrained", squeeze=False
    )
    for ax, (title, w, queries, keys, query_axis, key_axis) in zip(axes[:, 0], panels, strict=True):
        image = draw_attention(ax, w, queries, keys, title=title, query_axis=query_axis, key_axis=key_axis)
    fig.colorbar(image, ax=list(axes[:, 0]), label="weight", shrink=0.4)
    plt.show()
