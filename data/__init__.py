"""Data sets of the course (importable as ``course_data``).

The Transformer notebook reads ``cipher_data.npz``::

    from course_data import load_cipher_data
    data = load_cipher_data("cipher_data.npz")

and ``course data build`` (``python -m course_data.build``) writes it.
"""

from .corpus import CorpusError
from .store import CipherData, DataFileError, load_cipher_data
from .vigenere import ALPHABET, END, KEY, N_SYMBOLS, START, decrypt, encrypt

__all__ = [
    "ALPHABET",
    "KEY",
    "START",
    "END",
    "N_SYMBOLS",
    "encrypt",
    "decrypt",
    "CipherData",
    "CorpusError",
    "DataFileError",
    "load_cipher_data",
]
