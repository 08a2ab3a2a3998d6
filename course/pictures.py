"""Pictures the notebooks draw from their own arrays: masks, positional encodings, attention heads.

The drawing code lives here, not in the notebooks, so that a notebook cell
that shows a picture is one line long (as d2l keeps ``show_heatmaps`` in its
library). Every function draws with pyplot and calls ``plt.show()``, so the
picture appears below the cell that calls it (inline in JupyterLab), and
returns None, so that the cell does not show the figure a second time as its
value. Nothing is printed.

- :func:`show_masks` (04_transformer, Part D): boolean (t, T) masks side by side;
- :func:`show_encodings` (04_transformer, Part H): positional encodings as images;
- :func:`show_attention_maps` (04_transformer): every head of every layer of
  the three attentions of a trained Transformer, for one message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["draw_heads", "show_attention_maps", "show_encodings", "show_masks"]

#: how the attention pictures write the tokens that are not letters
SHORT_LABELS = {"START": "S", "END": "E", " ": "\u2423"}  # ␣: a visible space


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


def draw_heads(ax, weights, queries: Sequence[str], keys: Sequence[str], title: str) -> None:
    """Draw attention weights in one panel: a block per head (across), a band per layer (down).

    ``weights`` has shape (layers, h, t, T); ``queries`` (t labels) name every
    band's rows and ``keys`` (T labels) every block's columns.
    """
    weights = np.asarray(weights, dtype=np.float32)
    if weights.ndim != 4:
        raise ValueError(f"weights should have shape (layers, h, t, T), not {weights.shape}")
    n_layers, n_heads, t, T = weights.shape
    if len(queries) != t or len(keys) != T:
        raise ValueError(f"{len(queries)} query and {len(keys)} key labels for weights of shape {weights.shape}")
    canvas = np.full((n_layers * (t + 1) - 1, n_heads * (T + 1) - 1), np.nan)  # NaN: blank gaps
    for layer in range(n_layers):
        for head in range(n_heads):
            top, left = layer * (t + 1), head * (T + 1)
            canvas[top : top + t, left : left + T] = weights[layer, head]
    ax.imshow(canvas, vmin=0, vmax=1, cmap="magma")
    ax.set_axis_off()
    for head in range(n_heads):
        left = head * (T + 1)
        ax.text(left + (T - 1) / 2, -1.2, f"head {head}", ha="center", va="bottom", fontsize=8)
        for j, key in enumerate(keys):
            ax.text(left + j, canvas.shape[0] - 0.3, key, ha="center", va="top", fontsize=5)
    for layer in range(n_layers):
        top = layer * (t + 1)
        ax.text(-2.5, top + (t - 1) / 2, f"layer {layer}", ha="right", va="center", rotation=90, fontsize=8)
        for i, query in enumerate(queries):
            ax.text(-0.8, top + i, query, ha="right", va="center", fontsize=5)
    ax.set_title(title, fontsize=10, pad=16)


def show_attention_maps(maps: Mapping):
    """Draw the three attentions of a Transformer for one message: every head of every layer.

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
    _, axes = plt.subplots(3, 1, figsize=(10, 13))
    draw_heads(
        axes[0],
        maps["encoder"],
        source,
        source,
        f"Encoder self-attention: cipher text (rows) reads cipher text (columns), {secret!r}",
    )
    draw_heads(
        axes[1],
        maps["decoder_self"],
        target,
        target,
        f"Decoder self-attention: decoder input (rows) reads decoder input, writing {maps['decrypted']!r}",
    )
    draw_heads(
        axes[2],
        maps["cross"],
        target,
        source,
        "Encoder-decoder attention: decoder input (rows) reads cipher text (columns)",
    )
    plt.show()
