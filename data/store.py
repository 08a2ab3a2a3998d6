"""Write and read the cipher data file (``cipher_data.npz``).

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

from .vigenere import N_SYMBOLS

__all__ = [
    "FORMAT_VERSION",
    "DATA_FILE",
    "DataFileError",
    "CipherData",
    "write_npz",
    "load_cipher_data",
]

#: Bumped whenever the arrays or their meaning change.
FORMAT_VERSION = 1
#: Name of the data file in the assignment folder.
DATA_FILE = "cipher_data.npz"
REBUILD = "rebuild it with `course data build` (or `python -m course_data.build`)"

_ARRAYS = ("source", "decoder_input", "target")
_SPLITS = ("train", "held_out")
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
    """The cipher data set, as token indices (uint8).

    Every array has ``shape=(T, N)`` with ``T = 25``: time first, then the
    batch, as everywhere in the course. ``N`` differs between the splits.

    Attributes
    ----------
    train_source, held_out_source : numpy.ndarray, shape=(T, N)
        Cipher text followed by the end token: the encoder's input.
    train_decoder_input, held_out_decoder_input : numpy.ndarray, shape=(T, N)
        The start token followed by the plain text: the decoder's input.
    train_target, held_out_target : numpy.ndarray, shape=(T, N)
        The plain text followed by the end token: what the decoder predicts.
    meta : dict
        How the file was made: corpus name and SHA-256, seed, held-out
        fraction, key, alphabet and format version.
    """

    train_source: np.ndarray
    train_decoder_input: np.ndarray
    train_target: np.ndarray
    held_out_source: np.ndarray
    held_out_decoder_input: np.ndarray
    held_out_target: np.ndarray
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
    for split in _SPLITS:
        shapes = {arrays[f"{split}_{a}"].shape for a in _ARRAYS}
        if len(shapes) != 1 or len(next(iter(shapes))) != 2:
            raise ValueError(
                f"the {split} arrays have shapes {sorted(shapes)}, not one (T, N) shape"
            )
    for name, array in arrays.items():
        if array.dtype != np.uint8:
            raise ValueError(f"{name} has dtype {array.dtype}, not uint8")
        if array.size and array.max() >= N_SYMBOLS:
            raise ValueError(f"{name} holds token {array.max()}, beyond the {N_SYMBOLS} symbols")


def load_cipher_data(path=DATA_FILE) -> CipherData:
    """Load the cipher data set written by ``course data build``.

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
            arrays = {f"{s}_{a}": archive[f"{s}_{a}"] for s in _SPLITS for a in _ARRAYS}
            meta = {key: archive[key].item() for key in _META}
        _check(arrays, meta)
    except Exception as err:  # zip, npy, key and consistency errors all mean: rebuild
        reason = str(err) or type(err).__name__
        raise DataFileError(
            f"The cipher data file {str(path.resolve())!r} is not a valid cipher data file "
            f"({reason}); {REBUILD}."
        ) from None
    return CipherData(**arrays, meta=meta)
