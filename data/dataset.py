"""Turn a corpus into the cipher data set: texts, a held-out split, token arrays.

The data set stores *plain* text only: consecutive 100-symbol texts of the
corpus as alphabet tokens (uint8), time-major, ``shape=(L, N)`` with
``L = 100``. The notebook cuts its messages from them (any place, any length
up to L), encrypts them with the key and pads them into batches; it mixes in
strings of random symbols, which no data file needs to hold.

The split needs no random generator: each distinct text gets a rank from the
SHA-256 of ``"<seed>:<text>"``, the lowest ranks are held out and the
training texts are stored in rank order (a fixed shuffle). Identical texts
are kept once, so no held-out text is ever trained on. The result depends
only on the corpus text, the seed and the fraction.
"""

from __future__ import annotations

import hashlib

import numpy as np

from .corpus import TEXT_LENGTH, CorpusError, clean, cut, prose_paragraphs
from .vigenere import to_indices

__all__ = [
    "DEFAULT_SEED",
    "DEFAULT_HELD_OUT_FRACTION",
    "corpus_texts",
    "split",
    "encode",
    "build_arrays",
]

DEFAULT_SEED = 0
DEFAULT_HELD_OUT_FRACTION = 0.1


def corpus_texts(text: str, name: str = "the corpus", length: int = TEXT_LENGTH) -> list[str]:
    """The distinct plain texts of ``length`` symbols of a corpus, in the order they first occur.

    Raises
    ------
    CorpusError
        If the text holds no letters a–z, no prose paragraph, or too little
        text for one piece of ``length`` symbols.
    """
    if not any("a" <= c <= "z" for c in clean(text)):
        raise CorpusError(f"{name} holds no letters a-z, so it gives no training text.")
    paragraphs = prose_paragraphs(text)
    if not paragraphs:
        raise CorpusError(f"{name} has no prose paragraph: every paragraph is mostly code, digits or symbols.")
    cleaned = clean("\n\n".join(paragraphs))
    if len(cleaned) < length:
        raise CorpusError(
            f"{name} gives {len(cleaned)} letters and spaces after cleaning, "
            f"too little for one {length}-character text."
        )
    return list(dict.fromkeys(cut(cleaned, length)))


def _rank(seed: int, string: str) -> bytes:
    return hashlib.sha256(f"{seed}:{string}".encode("ascii")).digest()


def split(
    strings: list[str],
    seed: int = DEFAULT_SEED,
    held_out_fraction: float = DEFAULT_HELD_OUT_FRACTION,
):
    """Split distinct texts into (train, held_out) lists, deterministically.

    ``round(held_out_fraction * len(strings))`` texts are held out, at least
    one when the fraction is above 0 and at least one text is left to train on.
    """
    if not 0.0 <= held_out_fraction < 1.0:
        raise ValueError(f"the held-out fraction must lie in [0, 1), got {held_out_fraction}.")
    ranked = sorted(set(strings), key=lambda s: _rank(seed, s))
    n_held = round(held_out_fraction * len(ranked))
    if held_out_fraction > 0:
        if len(ranked) < 2:
            raise CorpusError(f"the corpus gives {len(ranked)} distinct text(s); a held-out split needs at least 2.")
        n_held = min(max(n_held, 1), len(ranked) - 1)
    return ranked[n_held:], ranked[:n_held]


def encode(strings: list[str], length: int = TEXT_LENGTH) -> np.ndarray:
    """The alphabet tokens of equal-length texts: uint8, shape (length, N), one text per column."""
    plain = np.zeros((length, len(strings)), dtype=np.uint8)
    for column, string in enumerate(strings):
        plain[:, column] = to_indices(string)
    return plain


def build_arrays(
    text: str,
    name: str = "the corpus",
    seed: int = DEFAULT_SEED,
    held_out_fraction: float = DEFAULT_HELD_OUT_FRACTION,
) -> dict[str, np.ndarray]:
    """The arrays of the data set: ``train_plain`` and ``held_out_plain``."""
    train, held_out = split(corpus_texts(text, name), seed, held_out_fraction)
    return {"train_plain": encode(train), "held_out_plain": encode(held_out)}
