"""The cipher data loader of the student package (``course.cipher_data``): clear errors, one format."""

from __future__ import annotations

import numpy as np
import pytest
from course_data.build import build
from course_data.vigenere import KEY

from course.cipher_data import ALPHABET, DataFileError, load_cipher_data, write_npz
from tests.data.test_builder import PROSE, write


def test_loader_error_on_missing_file(tmp_path):
    """Does a missing data file raise one sentence that says how to rebuild it?"""
    with pytest.raises(DataFileError, match=r"missing; put back the cipher_data.npz that came with the assignment"):
        load_cipher_data(tmp_path / "cipher_data.npz")


@pytest.mark.parametrize("content", [b"", b"not a zip file at all", b"PK\x03\x04broken"])
def test_loader_error_on_corrupt_file(tmp_path, content):
    """Does a corrupt data file raise one sentence that says what a student can do about it?"""
    path = write(tmp_path, "cipher_data.npz", content)
    expected = r"not a valid cipher data file .*put back the cipher_data.npz that came with the assignment"
    with pytest.raises(DataFileError, match=expected):
        load_cipher_data(path)


def test_loader_error_on_wrong_arrays(tmp_path):
    """Is a readable .npz with the wrong contents refused too?"""
    path = tmp_path / "cipher_data.npz"
    np.savez(path, train_plain=np.zeros((100, 3)))
    with pytest.raises(DataFileError, match="not a valid cipher data file"):
        load_cipher_data(path)


def test_loader_reads_a_relative_path(tmp_path, monkeypatch):
    """Does the default path name a file in the current folder (the notebook's folder)?"""
    build(tmp_path / "cipher_data.npz", write(tmp_path, "prose.txt", PROSE * 4))
    monkeypatch.chdir(tmp_path)
    data = load_cipher_data()
    assert data.train_plain.shape[0] == 100 and data.meta["key"] == KEY


def test_loader_refuses_an_old_format(tmp_path):
    """Is a data file of format 1 (encrypted 24-symbol strings) refused with the rebuild hint?"""
    arrays = {"train_plain": np.zeros((100, 2), np.uint8), "held_out_plain": np.zeros((100, 2), np.uint8)}
    meta = {
        "format_version": 1,
        "corpus": "x",
        "corpus_sha256": "0",
        "seed": 0,
        "held_out_fraction": 0.1,
        "key": KEY,
        "alphabet": ALPHABET,
    }
    write_npz(tmp_path / "old.npz", {**arrays, **{k: np.array(v) for k, v in meta.items()}})
    with pytest.raises(DataFileError, match="format version 1, expected 2.*put back the cipher_data.npz"):
        load_cipher_data(tmp_path / "old.npz")
    meta["format_version"] = 2
    arrays["held_out_plain"] = np.full((100, 2), 27, np.uint8)  # START is no plain-text symbol
    write_npz(tmp_path / "bad.npz", {**arrays, **{k: np.array(v) for k, v in meta.items()}})
    with pytest.raises(DataFileError, match="beyond the 27 symbols"):
        load_cipher_data(tmp_path / "bad.npz")
