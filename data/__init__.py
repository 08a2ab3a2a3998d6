"""The builder of the course's data set (importable as ``course_data``): an instructor's tool.

``course data build`` (``python -m course_data.build``) writes
``solutions/04_transformer/cipher_data.npz`` from an embedded corpus, offline.
The notebook reads it with :func:`course.cipher_data.load_cipher_data`, which
the student package holds together with the file's format; this package
holds what makes the file (corpus, cleaning, split, the cipher).
"""

from .corpus import CorpusError
from .vigenere import ALPHABET, END, KEY, N_SYMBOLS, START, decrypt, encrypt

__all__ = [
    "ALPHABET",
    "KEY",
    "START",
    "END",
    "N_SYMBOLS",
    "encrypt",
    "decrypt",
    "CorpusError",
]
