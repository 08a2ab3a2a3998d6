"""The Vigenère cipher over the course's 27-symbol alphabet, and its tokens.

A message is written in ``ALPHABET`` (the letters a–z and the space). Symbol
``i`` of the message is shifted forward by the alphabet index of key symbol
``i mod len(key)``, modulo 27; decryption shifts back by the same amounts.
The model's vocabulary adds two tokens to the alphabet: ``START`` (27) opens
a decoder input and ``END`` (28) closes a source and a target.
"""

from __future__ import annotations

import numpy as np

from course.cipher_data import ALPHABET

__all__ = [
    "ALPHABET",
    "KEY",
    "START",
    "END",
    "N_SYMBOLS",
    "to_indices",
    "to_text",
    "shift",
    "encrypt",
    "decrypt",
]

#: The key every string of the data set is encrypted with.
KEY = "clap"
#: Token index of the start token (opens every decoder input).
START = len(ALPHABET)
#: Token index of the end token (closes every source and target).
END = len(ALPHABET) + 1
#: Size of the vocabulary: the alphabet plus START and END.
N_SYMBOLS = len(ALPHABET) + 2

_INDEX = {symbol: i for i, symbol in enumerate(ALPHABET)}


def to_indices(text: str) -> np.ndarray:
    """The alphabet indices of ``text`` as a uint8 array of shape (len(text),).

    Raises
    ------
    ValueError
        If ``text`` holds a character outside ``ALPHABET``; the message names
        every such character, in order of appearance.
    """
    unknown = list(dict.fromkeys(c for c in text if c not in _INDEX))
    if unknown:
        raise ValueError(
            f"{text!r} holds characters outside the alphabet a-z and space: " + ", ".join(repr(c) for c in unknown)
        )
    return np.array([_INDEX[c] for c in text], dtype=np.uint8)


def to_text(indices) -> str:
    """The string whose alphabet indices are ``indices`` (START/END are not allowed)."""
    return "".join(ALPHABET[int(i)] for i in indices)


def shift(indices: np.ndarray, key: str, sign: int = 1) -> np.ndarray:
    """Shift alphabet indices by the repeated key along the last axis.

    Parameters
    ----------
    indices : numpy.ndarray, shape=(..., L)
        Alphabet indices (0–26) of one message or a batch of messages.
    key : str
        The cipher key; it repeats along the message.
    sign : int
        ``+1`` encrypts, ``-1`` decrypts.

    Returns
    -------
    numpy.ndarray, shape=(..., L), dtype=uint8
    """
    if not key:
        raise ValueError("the cipher key must hold at least one character")
    indices = np.asarray(indices, dtype=np.int64)
    key_idx = to_indices(key).astype(np.int64)
    repeated = np.resize(key_idx, indices.shape[-1])  # the key, repeated to length L
    return ((indices + sign * repeated) % len(ALPHABET)).astype(np.uint8)


def encrypt(plaintext: str, key: str = KEY) -> str:
    """Encrypt ``plaintext`` with the Vigenère cipher and ``key``."""
    return to_text(shift(to_indices(plaintext), key, +1))


def decrypt(ciphertext: str, key: str = KEY) -> str:
    """Undo :func:`encrypt`."""
    return to_text(shift(to_indices(ciphertext), key, -1))
