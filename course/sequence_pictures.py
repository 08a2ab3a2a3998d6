"""Small pictures of what a sequence model wrote: used by notebooks 02 and 03.

* :func:`show_reversal` prints a source, its target and a model's output in
  aligned columns and marks every wrong output token with ``^``.
* :func:`show_attention` draws a decoder's attention weights for one sequence,
  one row per decoder step and one column per encoder step.

Tokens are the course's: the digits 0..9, then ``<S>`` (10) and ``<E>`` (11).
"""

from __future__ import annotations

import numpy as np

TOKEN_NAMES = [str(i) for i in range(10)] + ["<S>", "<E>"]


def _tokens(output) -> np.ndarray:
    """The first sequence's tokens, from scores (T, N, K), tokens (T, N) or tokens (T,)."""
    output = np.asarray(getattr(output, "data", output))
    if output.ndim == 3:
        output = output.argmax(axis=-1)
    if output.ndim == 2:
        output = output[:, 0]
    return output.astype(int)


def reversal_lines(batch, output) -> list[str]:
    """The four lines that :func:`show_reversal` prints (source, target, output, marks)."""
    _, target, digits = batch
    target = np.asarray(target)[:, 0]
    guess = _tokens(output)
    if guess.shape != target.shape:
        raise ValueError(f"the output has {guess.shape[0]} tokens, the target {target.shape[0]}")
    cell = [f"{name:>3}" for name in TOKEN_NAMES]  # three characters each, so the columns line up
    return [
        " ".join(["source:", *(cell[i] for i in np.asarray(digits)[:, 0]), cell[11]]),
        " ".join(["target:", *(cell[i] for i in target)]),
        " ".join(["output:", *(cell[i] for i in guess)]),
        " ".join(["       ", *("  ^" if g != t else "   " for g, t in zip(guess, target, strict=False))]).rstrip(),
    ]


def show_reversal(batch, output) -> None:
    """Print the first sequence of ``batch`` with a model's output, marking wrong tokens with ``^``.

    Parameters
    ----------
    batch : tuple
        ``(x, target, digits)`` as ``generate_batch`` returns them.
    output : array-like
        The model's output for ``x``: token indices of shape (T, N), or scores
        of shape (T, N, K) (their arg-max is taken), as a NumPy array or tensor.
    """
    print("\n".join(reversal_lines(batch, output)))


def show_attention(digits, output, weights, ax=None):
    """Draw the (T, T) attention weights of one sequence as a heat map.

    Parameters
    ----------
    digits : array-like, shape=(T - 1,)
        The source digits (the end token is added as the last column).
    output : array-like, shape=(T,)
        The tokens the decoder wrote, one per row.
    weights : array-like, shape=(T, T)
        Row t holds the weights of decoder step t + 1 over the T encoder steps.
    ax : Optional[matplotlib.axes.Axes]
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.figure.Figure
        Rows are labelled ``input → output`` (the token the decoder read, then
        the one it wrote); columns with the source tokens.
    """
    import matplotlib.pyplot as plt

    output = np.asarray(output).astype(int)
    weights = np.asarray(weights)
    T = len(output)
    if weights.shape != (T, T) or len(digits) != T - 1:
        raise ValueError(
            f"expected T - 1 = {T - 1} digits and ({T}, {T}) weights, got {len(digits)} and {weights.shape}"
        )
    source = [TOKEN_NAMES[i] for i in np.asarray(digits).astype(int)] + ["<E>"]
    read = ["<S>"] + [TOKEN_NAMES[i] for i in output[:-1]]  # the decoder reads its own previous output
    rows = [f"{r} → {TOKEN_NAMES[w]}" for r, w in zip(read, output, strict=True)]

    if ax is None:
        fig, ax = plt.subplots(figsize=(5.5, 5), layout="constrained")
    else:
        fig = ax.figure
    image = ax.imshow(weights, cmap="viridis", vmin=0, vmax=1)
    ax.set_xticks(range(T), source)
    ax.set_yticks(range(T), rows)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel("source token (encoder step $j$)")
    ax.set_ylabel("decoder step $t$: input → output")
    fig.colorbar(image, ax=ax, shrink=0.8, label=r"weight $\alpha_{t,j}$")
    return fig
