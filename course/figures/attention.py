"""The course's one attention heat map: who reads whom, one row per query, one column per key.

Every attention picture of notebooks 03 and 04 is drawn by :func:`draw_attention`
(03's map of one sequence, 04's maps of every layer and head, and the explorers
of both), so they all read the same way: queries down, keys across (named at
the top), dark for a weight near 0, bright for a weight near 1.

It takes, and checks:

- ``weights``, shape=(T_out, T_in) or (heads, T_out, T_in): row i holds the
  weights that query i puts on the T_in keys (each row sums to one); with a
  heads axis the heads stand side by side, a blank column between them, each
  named below its block;
- ``queries``: T_out labels, the name of each row (e.g. the token a decoder
  step reads, or writes);
- ``keys``: T_in labels, the name of each column (e.g. the source tokens).

A space is written ``␣`` so that it shows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["draw_attention", "show_attention"]

VISIBLE_SPACE = "\u2423"  # ␣
CMAP = "magma"  # dark = 0, bright = 1


def _visible(labels: Sequence[str]) -> list[str]:
    return [VISIBLE_SPACE if label == " " else str(label) for label in labels]


def as_heads(weights) -> np.ndarray:
    """The weights as (heads, T_out, T_in): a single map is one head. Refuses any other shape."""
    weights = np.asarray(getattr(weights, "data", weights), dtype=np.float32)
    if weights.ndim == 2:
        return weights[None]
    if weights.ndim != 3:
        raise ValueError(
            f"attention weights should have shape (T_out, T_in) or (heads, T_out, T_in), not {weights.shape}: "
            "pick one sequence (and one layer) first"
        )
    return weights


def draw_attention(
    ax,
    weights,
    queries: Sequence[str],
    keys: Sequence[str],
    *,
    title: str = "",
    query_axis: str = "query",
    key_axis: str = "key",
):
    """Draw attention weights as a heat map in ``ax``: one row per query, one column per key.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    weights : array_like, shape=(T_out, T_in) or (heads, T_out, T_in)
        Weights in [0, 1]; row i holds query i's weights over the keys.
    queries : Sequence[str]
        T_out row labels.
    keys : Sequence[str]
        T_in column labels (repeated over every head).
    title, query_axis, key_axis : str
        The panel's title and the names of its rows and columns.

    Returns
    -------
    matplotlib.image.AxesImage
        The image, for a colour bar (weights 0 to 1).
    """
    heads = as_heads(weights)
    n_heads, t, T = heads.shape
    if len(queries) != t or len(keys) != T:
        raise ValueError(f"{len(queries)} query and {len(keys)} key labels for weights of shape {heads.shape}")
    # heads side by side, a NaN column between them (drawn blank)
    canvas = np.full((t, n_heads * (T + 1) - 1), np.nan, dtype=np.float32)
    for head in range(n_heads):
        canvas[:, head * (T + 1) : head * (T + 1) + T] = heads[head]
    image = ax.imshow(canvas, vmin=0, vmax=1, cmap=CMAP)
    size = 8 if n_heads * T <= 40 else 5  # many columns: smaller labels, so they do not overlap
    columns = [head * (T + 1) + j for head in range(n_heads) for j in range(T)]
    ax.set_xticks(columns, _visible(keys) * n_heads, fontsize=size)
    ax.set_yticks(range(t), _visible(queries), fontsize=size)
    ax.tick_params(length=0)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel(key_axis, fontsize=9)
    ax.set_ylabel(query_axis, fontsize=9)
    if n_heads > 1:  # name each block below it (the keys' names are above)
        for head in range(n_heads):
            ax.text(
                head * (T + 1) + (T - 1) / 2,
                -0.02,  # just below the image: x in data units, y in axes units
                f"head {head}",
                transform=ax.get_xaxis_transform(),
                ha="center",
                va="top",
                fontsize=8,
            )
    for side in ax.spines.values():
        side.set_visible(False)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    return image


def figure_size(weights, width_per_column: float = 0.28, height_per_row: float = 0.26) -> tuple[float, float]:
    """Inches for one heat map of these weights with its labels and colour bar."""
    n_heads, t, T = as_heads(weights).shape
    return 1.8 + width_per_column * n_heads * (T + 1), 1.4 + height_per_row * t


def show_attention(
    weights,
    queries: Sequence[str],
    keys: Sequence[str],
    *,
    title: str = "",
    query_axis: str = "query",
    key_axis: str = "key",
) -> None:
    """Show attention weights below the cell as a heat map (see :func:`draw_attention`), with a colour bar.

    Draws with pyplot and calls ``plt.show()``; returns None, so the cell does
    not show the figure a second time as its value.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figure_size(weights), layout="constrained")
    image = draw_attention(ax, weights, queries, keys, title=title, query_axis=query_axis, key_axis=key_axis)
    fig.colorbar(image, ax=ax, shrink=0.8, label="weight")
    plt.show()
