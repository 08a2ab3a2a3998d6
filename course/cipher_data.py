"""The cipher data file of 04_transformer (``cipher_data.npz``): its format, its loader and its writer.

In the notebook::

    from course.cipher_data import load_cipher_data
    data = load_cipher_data("cipher_data.npz")

The file is an ordinary ``.npz`` archive that ``numpy.load`` opens without
pickles. It is written by hand rather than with ``numpy.savez_compressed``
because that stamps every member with the current time: here the members are
sorted and dated 1980-01-01, so the same arrays always give the same bytes.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "ALPHABET",
    "FORMAT_VERSION",
    "DATA_FILE",
    "DataFileError",
    "CipherData",
    "write_npz",
    "load_cipher_data",
]

#: The 27 symbols of a message (a-z and the space); a symbol's token is its position.
ALPHABET = "abcdefghijklmnopqrstuvwxyz "
#: Bumped whenever the arrays or their meaning change (2: plain texts of 100 symbols
#: instead of encrypted 24-symbol strings).
FORMAT_VERSION = 2
#: Name of the data file in the assignment folder.
DATA_FILE = "cipher_data.npz"
#: what to do about a missing or broken data file (a student has no builder: the file ships with 04)
REBUILD = "put back the cipher_data.npz that came with the assignment, beside the notebook"

_ARRAYS = ("train_plain", "held_out_plain")
_META = (
    "format_version",
    "corpus",
    "corpus_sha256",
    "seed",
    "held_out_fraction",
    "key",
    "alphabet",
)


class DataFileError(OSError):
    """The cipher data file is missing or unreadable; the message says how to rebuild it."""


@dataclass(frozen=True)
class CipherData:
    """The plain texts of the cipher data set, as alphabet tokens (uint8, 0–26).

    Both arrays have ``shape=(L, N)`` with ``L = 100``: time first, then one
    text per column, as everywhere in the course. ``N`` differs between the
    splits. The notebook cuts its messages from these texts and encrypts them.

    Attributes
    ----------
    train_plain : numpy.ndarray, shape=(L, N_train)
        The texts to train on.
    held_out_plain : numpy.ndarray, shape=(L, N_held_out)
        Texts never trained on: they measure whether the model learned the cipher.
    meta : dict
        How the file was made: corpus name and SHA-256, seed, held-out
        fraction, key, alphabet and format version.
    """

    train_plain: np.ndarray
    held_out_plain: np.ndarray
    meta: dict


def write_npz(path, arrays: dict) -> None:
    """Write ``arrays`` (name → array-like) to ``path`` as a byte-reproducible .npz."""
    path = Path(path)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(arrays):
            member = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            member.compress_type = zipfile.ZIP_DEFLATED
            member.external_attr = 0o644 << 16
            payload = io.BytesIO()
            np.lib.format.write_array(payload, np.asarray(arrays[name]), allow_pickle=False)
            archive.writestr(member, payload.getvalue(), compresslevel=9)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())


def _check(arrays: dict, meta: dict) -> None:
    """Raise ValueError (with the reason) when the arrays do not form a data set."""
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"format version {meta.get('format_version')}, expected {FORMAT_VERSION}")
    shapes = {name: array.shape for name, array in arrays.items()}
    if any(len(shape) != 2 or 0 in shape for shape in shapes.values()):
        raise ValueError(f"the arrays have shapes {shapes}, not non-empty (L, N) shapes")
    if len({shape[0] for shape in shapes.values()}) != 1:
        raise ValueError(f"the arrays have shapes {shapes}, with different text lengths L")
    for name, array in arrays.items():
        if array.dtype != np.uint8:
            raise ValueError(f"{name} has dtype {array.dtype}, not uint8")
        if array.max() >= len(ALPHABET):
            raise ValueError(f"{name} holds token {array.max()}, beyond the {len(ALPHABET)} symbols")


def load_cipher_data(path=DATA_FILE) -> CipherData:
    """Load the cipher data set that ships with the assignment (the course builds it, in ``data/``).

    Parameters
    ----------
    path : str or pathlib.Path
        The data file; a relative path is read from the current folder, which
        in Jupyter is the notebook's folder.

    Raises
    ------
    DataFileError
        If the file is missing or is not a cipher data file.
    """
    path = Path(path)
    if not path.is_file():
        raise DataFileError(f"The cipher data file {str(path.resolve())!r} is missing; {REBUILD}.")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in _ARRAYS}
            meta = {key: archive[key].item() for key in _META}
        _check(arrays, meta)
    except Exception as err:  # zip, npy, key and consistency errors all mean: rebuild
        reason = str(err) or type(err).__name__
        raise DataFileError(
            f"The cipher data file {str(path.resolve())!r} is not a valid cipher data file ({reason}); {REBUILD}."
        ) from None
    return CipherData(**arrays, meta=meta)
