"""Tests of the cipher data builder (``data/``, imported as ``course_data``); the loader's are in tests/course."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from course_data import CorpusError
from course_data.build import DEFAULT_OUT, build, main
from course_data.corpus import clean, cut, default_corpus, prose_paragraphs, sha256
from course_data.dataset import build_arrays, corpus_texts, split
from course_data.vigenere import (
    ALPHABET,
    KEY,
    decrypt,
    encrypt,
    shift,
    to_indices,
    to_text,
)

from benchmarks.models import SENTENCE_BANDS, SENTENCES
from course.cipher_data import load_cipher_data

PROSE = (
    "The quick brown fox jumps over the lazy dog while the small cat sleeps.\n"
    "Every good boy deserves fudge, and every dog has its day in the sun.\n\n"
    "A second paragraph follows here, with enough words to make a few strings.\n"
)


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


# --- the cipher ------------------------------------------------------------


def test_cipher_example_by_hand():
    """Does 'hello world' shift by c, l, a, p, c, l, ... (2, 11, 0, 15, ...)?"""
    # h+c=7+2=j, e+l=4+11=p, l+a=l, l+p=11+15=26=space, o+c=q, space+l=26+11-27=k
    assert encrypt("hello world", "clap") == "jpl qkwctwd"


def test_cipher_round_trips():
    """Does decrypting the encryption give the message back, for every symbol and key phase?"""
    rng = np.random.default_rng(0)
    for length in (0, 1, 3, 4, 5, 24, 61):
        message = to_text(rng.integers(0, len(ALPHABET), length))
        for key in (KEY, "z", "a b", "keykey"):
            assert decrypt(encrypt(message, key), key) == message


def test_cipher_repeats_the_key():
    """Is symbol i shifted by key symbol i mod len(key)?"""
    assert encrypt("a" * 9, "clap") == "clapclapc"


def test_cipher_names_foreign_characters():
    """Does a character outside the alphabet raise a ValueError that names it?"""
    with pytest.raises(ValueError, match="'H'.*'!'"):
        encrypt("Hi!", "clap")
    with pytest.raises(ValueError, match="key"):
        shift(to_indices("abc"), "")


# --- cleaning and splitting ------------------------------------------------


def test_clean_keeps_letters_and_single_spaces():
    """Are case, accents, punctuation and runs of white space normalised?"""
    assert clean("  Café, DÉJÀ-vu!\n\n\tx  =  1 ") == "cafe dejavu x"


def test_prose_filter_drops_code_and_doctests():
    """Are code blocks and interactive examples dropped, prose kept?"""
    text = "Plain words make a paragraph.\n\n   >>> print(1)\n   1\n\n   x = {'a': [1, 2]}\n"
    assert prose_paragraphs(text) == ["Plain words make a paragraph."]


def test_split_is_disjoint_and_deduplicated():
    """Does no held-out text appear among the training texts?"""
    assert corpus_texts("one two three four five " * 10, length=24) == ["one two three four five "]
    texts = corpus_texts(PROSE * 3, "prose", length=24)
    train, held_out = split(texts, seed=3, held_out_fraction=0.3)
    assert not set(train) & set(held_out)
    assert sorted(train + held_out) == sorted(texts)
    assert len(held_out) == round(0.3 * len(texts))


def test_arrays_hold_plain_text_columns():
    """Are the arrays (100, N) uint8 alphabet tokens, one text of the corpus per column?"""
    text = PROSE * 4
    arrays = build_arrays(text, "prose", seed=0, held_out_fraction=0.25)
    assert sorted(arrays) == ["held_out_plain", "train_plain"]
    columns = []
    for array in arrays.values():
        assert array.dtype == np.uint8 and array.shape[0] == 100 and array.shape[1] > 0
        assert array.max() < len(ALPHABET)
        columns += [to_text(array[:, n]) for n in range(array.shape[1])]
    assert sorted(columns) == sorted(corpus_texts(text, "prose"))
    assert all(len(c) == 100 for c in columns)


def test_build_is_byte_identical(tmp_path):
    """Do two builds from the same corpus and seed write the same bytes?"""
    corpus = write(tmp_path, "prose.txt", PROSE * 2)
    build(tmp_path / "a.npz", corpus, seed=5)
    build(tmp_path / "b.npz", corpus, seed=5)
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    build(tmp_path / "c.npz", corpus, seed=6)
    a, c = load_cipher_data(tmp_path / "a.npz"), load_cipher_data(tmp_path / "c.npz")
    assert not np.array_equal(a.held_out_plain, c.held_out_plain)


# --- bad corpus input ------------------------------------------------------


@pytest.mark.parametrize(
    "name, content, reason",
    [
        ("empty.txt", "", "is empty"),
        ("blank.txt", " \n\t\n", "is empty"),
        ("binary.bin", bytes(range(256)) * 4, "binary"),
        ("latin1.txt", "caf\xe9 au lait, tout le monde".encode("latin-1"), "not UTF-8"),
        ("digits.txt", "1234 5678 -- 42!\n\n3.14159\n", "no letters"),
        ("short.txt", "Too short.", "too little"),
        ("code.txt", "x = f(1, 2)\n\n{'k': [3]}\n\nABC = (1, 2, 3, 4, 5, 6)\n", "no prose"),
    ],
)
def test_bad_corpus_gives_one_clear_sentence(tmp_path, capsys, name, content, reason):
    """Does a bad corpus stop the build with one sentence that says what is wrong?"""
    corpus = write(tmp_path, name, content)
    with pytest.raises(CorpusError, match=reason):
        build(tmp_path / "out.npz", corpus)
    assert main(["--corpus", str(corpus), "--out", str(tmp_path / "out.npz")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("course data build: ") and "\n" not in err and reason in err
    assert not (tmp_path / "out.npz").exists()


def test_missing_corpus(tmp_path, capsys):
    """Does a missing corpus file give one clear sentence?"""
    assert main(["--corpus", str(tmp_path / "nope.txt"), "--out", str(tmp_path / "o.npz")]) == 1
    assert "does not exist" in capsys.readouterr().err


# --- the committed data file -----------------------------------------------


def test_committed_file_matches_the_builder(tmp_path):
    """Is the committed cipher_data.npz what the builder makes from the default corpus?"""
    committed = load_cipher_data(DEFAULT_OUT)
    text, _ = default_corpus()
    if committed.meta["corpus_sha256"] != sha256(text):
        pytest.skip(
            f"this Python ({sys.version.split()[0]}) ships other pydoc_data topics than "
            f"the ones the data file was built from ({committed.meta['corpus']})"
        )
    meta = committed.meta
    build(tmp_path / "fresh.npz", seed=meta["seed"], held_out_fraction=meta["held_out_fraction"])
    fresh = load_cipher_data(tmp_path / "fresh.npz")
    for field in committed.__dataclass_fields__:
        if field != "meta":
            assert np.array_equal(getattr(fresh, field), getattr(committed, field)), field
    assert fresh.meta == committed.meta


def test_committed_file_is_small_and_disjoint():
    """Is the committed file a few hundred kB with disjoint splits, enough held out for 300 messages a band?"""
    assert DEFAULT_OUT.stat().st_size < 1_000_000
    data = load_cipher_data(DEFAULT_OUT)
    train = {bytes(col) for col in data.train_plain.T}
    held_out = {bytes(col) for col in data.held_out_plain.T}
    assert len(held_out) == data.held_out_plain.shape[1] >= 300
    assert len(train) == data.train_plain.shape[1] > 2000
    assert not train & held_out


def test_module_entry_point():
    """Does `python -m course_data.build --help` run and describe the options?"""
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "course_data.build", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for option in ("--corpus", "--out", "--seed", "--held-out-fraction"):
        assert option in out


def test_cut_drops_the_short_tail():
    """Are the strings consecutive, of equal length, without a short tail?"""
    assert cut("abcdefg", 3) == ["abc", "def"]


def test_own_sentences_cover_every_band():
    """Are the hand-written sentences of data/sentences.txt clean alphabet text, in every length band?"""
    sentences = [line for line in SENTENCES.read_text().splitlines() if line]
    assert len(sentences) >= 50
    assert all(set(s) <= set(ALPHABET) and s == s.strip() for s in sentences)
    assert len(set(sentences)) == len(sentences)
    for low, high in SENTENCE_BANDS:
        assert sum(low <= len(s) <= high for s in sentences) >= 5, (low, high)
