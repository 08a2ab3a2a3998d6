"""Pairs of submissions: how much of each is found in the other, ranked, and where the matching parts lie.

Scores are copydetect's: per pair, the share of each document's fingerprinted
code that is found in the other. A pair is ranked by the larger share
(:attr:`Pair.score`): a student who copied one task and wrote nothing else is
mostly someone else's work even when that someone wrote much more, which the
mean would halve. Every pair is scored from the fingerprints (:func:`score`,
the numbers of copydetect's ``compare_files``), and ``compare_files`` itself,
which maps the matches back to the raw text, runs only for the pairs shown
(:func:`locate`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from instructor.reporting.similarity_documents import Document
from instructor.reporting.similarity_fingerprints import Fingerprints, overlap


@dataclass
class Pair:
    """Two submissions and how much of each is found in the other.

    ``a`` is the one with the larger share (``similarity_a >= similarity_b``);
    ``chars_matched`` counts filtered characters of ``a`` (a name or a string
    is one) in matching runs. ``tasks`` and ``slices`` (raw-text starts and
    ends of the matching parts, in a then b) are filled for the pairs shown.
    """

    a: str
    b: str
    similarity_a: float
    similarity_b: float
    chars_matched: int
    tasks: list[str] = field(default_factory=list)
    slices: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def score(self) -> float:
        """The rank: the larger share (a partial copy of a longer submission still ranks high)."""
        return max(self.similarity_a, self.similarity_b)


def score(a: str, b: str, fa: Fingerprints, fb: Fingerprints) -> Pair:
    """The pair of ``a`` and ``b``, from their fingerprints (no text is read)."""
    chars_a, share_a = overlap(fa, fb)
    chars_b, share_b = overlap(fb, fa)
    if share_b > share_a:  # a is the one more found in the other (equal shares: a, b as given)
        a, b, chars_a, share_a, share_b = b, a, chars_b, share_b, share_a
    return Pair(a, b, share_a, share_b, chars_a)


def score_all(prints: dict[str, Fingerprints]) -> list[Pair]:
    """Every pair of ``prints`` (student -> fingerprints), highest score first (ties: by name)."""
    pairs = []
    for a, b in combinations(sorted(prints), 2):
        fa, fb = prints[a], prints[b]
        if fa.empty or fb.empty or not np.intersect1d(fa.hashes, fb.hashes, assume_unique=True).size:
            first, second = sorted((a, b))
            pairs.append(Pair(first, second, 0.0, 0.0, 0))
        else:
            pairs.append(score(a, b, fa, fb))
    return sorted(pairs, key=lambda p: (-p.score, -min(p.similarity_a, p.similarity_b), p.a, p.b))


def locate(pair: Pair, docs: dict[str, Document], prints: dict[str, Fingerprints]) -> Pair:
    """``pair`` with the raw-text slices of its matching parts (copydetect's ``compare_files``) and their tasks."""
    from copydetect import compare_files  # where it is used (similarity_fingerprints says why)

    _, _, (slices_a, slices_b) = compare_files(prints[pair.a].code, prints[pair.b].code)
    pair.slices = (np.asarray(slices_a).reshape(2, -1), np.asarray(slices_b).reshape(2, -1))
    in_a, in_b = docs[pair.a].tasks_in(pair.slices[0]), docs[pair.b].tasks_in(pair.slices[1])
    pair.tasks = in_a + [t for t in in_b if t not in in_a]
    return pair
