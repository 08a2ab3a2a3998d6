"""Turn a corpus into the cipher data set: strings, a held-out split, index arrays.

Every array is time-major, ``shape=(T, N)`` with ``T = 25`` (24 symbols plus
one token), and holds token indices as uint8:

* ``source``: the cipher text, then END — what the encoder reads;
* ``decoder_input``: START, then the plain text — what the decoder reads
  while training (teacher forcing);
* ``target``: the plain text, then END — what the decoder must predict.

The split needs no random generator: each distinct string gets a rank from
the SHA-256 of ``"<seed>:<string>"``, the lowest ranks are held out and the
training strings are stored in rank order (a fixed shuffle). Identical
strings are kept once, so no held-out string is ever trained on. The result
depends only on the corpus text, the seed and the fraction.
"""

from __future__ import annotations

import hashlib

import numpy as np

from .corpus import STRING_LENGTH, CorpusError, clean, cut, prose_paragraphs
from .vigenere import END, KEY, START, shift, to_indices

__all__ = [
    "DEFAULT_SEED",
    "DEFAULT_HELD_OUT_FRACTION",
    "corpus_strings",
    "split",
    "encode",
    "build_arrays",
]

DEFAULT_SEED = 0
DEFAULT_HELD_OUT_FRACTION = 0.1


def corpus_strings(text: str, name: str = "the corpus", length: int = STRING_LENGTH) -> list[str]:
    """The distinct plain-text strings of a corpus, in the order they first occur.

    Raises
    ------
    CorpusError
        If the text holds no letters a–z, no prose paragraph, or too little
        text for one string.
    """
    if not any("a" <= c <= "z" for c in clean(text)):
        raise CorpusError(f"{name} holds no letters a-z, so it gives no training text.")
    paragraphs = prose_paragraphs(text)
    if not paragraphs:
        raise CorpusError(
            f"{name} has no prose paragraph: every paragraph is mostly code, digits or symbols."
        )
    cleaned = clean("\n\n".join(paragraphs))
    if len(cleaned) < length:
        raise CorpusError(
            f"{name} gives {len(cleaned)} letters and spaces after cleaning, "
            f"too little for one {length}-character string."
        )
    return list(dict.fromkeys(cut(cleaned, length)))


def _rank(seed: int, string: str) -> bytes:
    return hashlib.sha256(f"{seed}:{string}".encode("ascii")).digest()


def split(
    strings: list[str],
    seed: int = DEFAULT_SEED,
    held_out_fraction: float = DEFAULT_HELD_OUT_FRACTION,
):
    """Split distinct strings into (train, held_out) lists, deterministically.

    ``round(held_out_fraction * len(strings))`` strings are held out, at least
    one when the fraction is above 0 and at least one string is left to train on.
    """
    if not 0.0 <= held_out_fraction < 1.0:
        raise ValueError(f"the held-out fraction must lie in [0, 1), got {held_out_fraction}.")
    ranked = sorted(set(strings), key=lambda s: _rank(seed, s))
    n_held = round(held_out_fraction * len(ranked))
    if held_out_fraction > 0:
        if len(ranked) < 2:
            raise CorpusError(
                f"the corpus gives {len(ranked)} distinct string(s); "
                "a held-out split needs at least 2."
            )
        n_held = min(max(n_held, 1), len(ranked) - 1)
    return ranked[n_held:], ranked[:n_held]


def encode(
    strings: list[str], key: str = KEY, length: int = STRING_LENGTH
) -> dict[str, np.ndarray]:
    """Encrypt plain-text strings and build the three uint8 arrays of shape (length + 1, N)."""
    plain = np.zeros((len(strings), length), dtype=np.uint8)
    for row, string in enumerate(strings):
        plain[row] = to_indices(string)
    secret = shift(plain, key, +1)
    n = len(strings)
    start = np.full((n, 1), START, dtype=np.uint8)
    end = np.full((n, 1), END, dtype=np.uint8)
    return {
        "source": np.ascontiguousarray(np.concatenate([secret, end], axis=1).T),
        "decoder_input": np.ascontiguousarray(np.concatenate([start, plain], axis=1).T),
        "target": np.ascontiguousarray(np.concatenate([plain, end], axis=1).T),
    }


def build_arrays(
    text: str,
    name: str = "the corpus",
    seed: int = DEFAULT_SEED,
    held_out_fraction: float = DEFAULT_HELD_OUT_FRACTION,
    key: str = KEY,
) -> dict[str, np.ndarray]:
    """All arrays of the data set: ``train_<array>`` and ``held_out_<array>``."""
    train, held_out = split(corpus_strings(text, name), seed, held_out_fraction)
    arrays = {}
    for prefix, strings in (("train", train), ("held_out", held_out)):
        for field, array in encode(strings, key).items():
            arrays[f"{prefix}_{field}"] = array
    return arrays
