"""English text for the cipher data set: where it comes from and how it is cleaned.

The default corpus ships with Python itself: ``pydoc_data.topics``, the
topics of the Python reference documentation that ``help()`` shows (PSF
licence). Any UTF-8 text file can replace it. Both go through the same steps:

1. split the text into paragraphs at blank lines and keep the prose ones
   (:func:`prose_paragraphs`): code examples, grammar rules and tables fail
   the test, English sentences with the odd ``"name"`` in them pass;
2. lowercase, fold accents (é → e), turn every run of white space into one
   space and drop every character that is not a–z or space
   (:func:`clean`);
3. cut the result into consecutive texts of ``length`` symbols
   (:func:`cut`); a shorter tail is dropped.
"""

from __future__ import annotations

import hashlib
import re
import sys
import unicodedata
from pathlib import Path

__all__ = [
    "CorpusError",
    "TEXT_LENGTH",
    "PROSE_LETTER_SHARE",
    "default_corpus",
    "read_corpus",
    "prose_paragraphs",
    "clean",
    "cut",
    "sha256",
]

#: Symbols in one plain text of the data set: the longest message the notebook
#: evaluates on; training messages are cut from these texts at any place and length.
TEXT_LENGTH = 100
#: A paragraph is prose when at least this share of its visible characters are letters.
PROSE_LETTER_SHARE = 0.8


class CorpusError(ValueError):
    """A corpus that cannot give training strings; the message says why in one sentence."""


def default_corpus() -> tuple[str, str]:
    """The default corpus text and its name.

    The topics are joined in sorted order of their names, so the text depends
    only on the Python release that ships them.
    """
    from pydoc_data.topics import topics

    text = "\n\n".join(topics[name] for name in sorted(topics))
    version = ".".join(str(v) for v in sys.version_info[:3])
    return text, f"pydoc_data.topics (Python {version})"


def read_corpus(path) -> tuple[str, str]:
    """Read a UTF-8 text file; return its text and its name.

    Raises
    ------
    CorpusError
        For a path that is missing or not a file, an empty file, or a file
        that is not UTF-8 text.
    """
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"corpus file {str(path)!r} does not exist.")
    if not path.is_file():
        raise CorpusError(f"corpus {str(path)!r} is not a file.")
    raw = path.read_bytes()
    if not raw.strip():
        raise CorpusError(f"corpus file {str(path)!r} is empty.")
    if b"\x00" in raw:
        raise CorpusError(f"corpus file {str(path)!r} is binary, not text (it holds NUL bytes).")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CorpusError(
            f"corpus file {str(path)!r} is not UTF-8 text (undecodable byte at offset {err.start})."
        ) from None
    return text, path.name


def _letter_share(paragraph: str) -> float:
    visible = [c for c in paragraph if not c.isspace()]
    if not visible:
        return 0.0
    return sum(c.isalpha() for c in visible) / len(visible)


def prose_paragraphs(text: str) -> list[str]:
    """The paragraphs of ``text`` that read as prose.

    A paragraph is a run of lines between blank lines. It counts as prose when
    it is not an interactive example (its first line does not start with
    ``>>>``) and at least :data:`PROSE_LETTER_SHARE` of its visible characters
    are letters. Code, grammar rules and tables are mostly punctuation, so
    they fall below that share.
    """
    paragraphs = re.split(r"\n[ \t\r\f\v]*\n", text)
    return [p for p in paragraphs if not p.lstrip().startswith(">>>") and _letter_share(p) >= PROSE_LETTER_SHARE]


def clean(text: str) -> str:
    """Lowercase ``text`` and keep only a–z and single spaces.

    Accented letters lose their accents; every other character outside a–z
    and white space is dropped; runs of white space become one space.
    """
    text = unicodedata.normalize("NFKD", text.lower())
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"[^a-z ]+", "", text)
    return re.sub(r" {2,}", " ", text).strip()


def cut(text: str, length: int = TEXT_LENGTH) -> list[str]:
    """Consecutive, non-overlapping pieces of ``text`` with ``length`` symbols each."""
    return [text[i : i + length] for i in range(0, len(text) - length + 1, length)]


def sha256(text: str) -> str:
    """Hex SHA-256 of the UTF-8 bytes of ``text``: the fingerprint of a corpus."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
