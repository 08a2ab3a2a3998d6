"""What a digit-reversal model wrote (notebooks 02 and 03), in the course's tokens.

* :func:`show_reversal` prints a source, its target and a model's output in
  aligned columns and marks every wrong output token with ``^``.
* :func:`reversal_labels` names the rows and columns of a decoder's attention
  map over one sequence, for :func:`course.figures.show_attention`.

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


def reversal_labels(digits, output) -> tuple[list[str], list[str]]:
    """(row labels, column labels) of a decoder's (T, T) attention map over one sequence.

    Parameters
    ----------
    digits : array-like, shape=(T - 1,)
        The source digits (the end token is added as the last column).
    output : array-like, shape=(T,)
        The tokens the decoder wrote, one per row.

    Returns
    -------
    Tuple[List[str], List[str]]
        T rows ``input → output`` (the token the decoder read at that step,
        ``<S>`` then its own previous output, and the one it wrote), and T
        columns: the source tokens, then ``<E>``.
    """
    output = _tokens(output)
    digits = np.asarray(digits).astype(int).reshape(-1)
    if len(digits) != len(output) - 1:
        raise ValueError(
            f"expected T - 1 = {len(output) - 1} digits for {len(output)} output tokens, got {len(digits)}"
        )
    read = ["<S>"] + [TOKEN_NAMES[i] for i in output[:-1]]  # the decoder reads its own previous output
    rows = [f"{r} → {TOKEN_NAMES[w]}" for r, w in zip(read, output, strict=True)]
    return rows, [TOKEN_NAMES[i] for i in digits] + ["<E>"]
