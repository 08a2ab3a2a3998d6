"""The fingerprints of one submission's document: copydetect's, with every trace of the released code removed.

Built on copydetect (winnowing over tokens, the method of MOSS; MIT). Its
tokenizer turns names into ``V``/``F``/``O`` and strings into ``S`` and drops
comments and white space, so renamed variables or new spacing do not hide a
copy; every run of :data:`NOISE` characters of that filtered code is a
fingerprint, and a match is a run of at least :data:`NOISE` filtered
characters that two documents share.

Released code never counts: every fingerprint of the released student
versions (stubs, signatures, docstrings, given and test cells) is
copydetect's boilerplate; and so is every fingerprint that touches a released
character (the lines an answer cell keeps from its released version), so that
the seams between a released docstring and a student's first statement never
match (:func:`drop_student_version`). A submission left as released has no
fingerprint and matches nobody.

Each document is fingerprinted once, and flattened (:class:`Fingerprints`)
so that a pair is scored with array operations (:func:`overlap`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING

import numpy as np

from instructor.reporting.similarity_documents import Document

if TYPE_CHECKING:
    from copydetect import CodeFingerprint

# copydetect (0.3 s, matplotlib under it) is imported where it is used: every `course` command imports this module
# with the command line's verbs, and only `course similarity` needs it

#: copydetect's noise threshold (its default): a match is at least this many filtered characters
NOISE = 25
#: copydetect's winnowing window; 1 keeps every k-gram (its default, guarantee = noise): documents are small
WINDOW = 1
LANGUAGE = "python"


def _fingerprint(text: str, boilerplate=None, window: int = WINDOW) -> CodeFingerprint:
    """copydetect's fingerprint of a Python text (tokenised and filtered), ``boilerplate`` hashes removed."""
    from copydetect import CodeFingerprint

    return CodeFingerprint(
        "answers.py", NOISE, window, boilerplate=boilerplate, filter=True, language=LANGUAGE, fp=io.StringIO(text)
    )


def boilerplate_hashes(texts: list[str]) -> np.ndarray:
    """Every k-gram hash of ``texts`` (window 1, as copydetect takes boilerplate), sorted and unique."""
    found = [h for t in texts for h in _fingerprint(t, window=1).hashes]
    return np.unique(np.array(found, dtype=np.int64))


def kept_lines(source: str, versions: list[str]) -> np.ndarray:
    """A mask over the characters of an answer cell: True on each line kept as released.

    A line is kept when it is one of the lines a released version of the
    cell and ``source`` have in common, in order (difflib's alignment): the
    signatures and docstrings around a student's code, even those shorter
    than a fingerprint.
    """
    lines = source.splitlines(keepends=True)
    starts = np.cumsum([0] + [len(line) for line in lines])
    mask = np.zeros(len(source), dtype=bool)
    mine = [line.rstrip() for line in lines]
    for version in versions:
        theirs = [line.rstrip() for line in version.splitlines()]
        for block in SequenceMatcher(None, theirs, mine, autojunk=False).get_matching_blocks():
            mask[starts[block.b] : starts[block.b + block.size]] = True
    return mask


def student_version_text(doc: Document, answers: dict[str, list[str]]) -> np.ndarray:
    """A mask over ``doc.text``: True on the lines each answer cell keeps from its released version."""
    mask = np.zeros(len(doc.text), dtype=bool)
    for span in doc.spans:
        mask[span.start : span.end] = kept_lines(doc.text[span.start : span.end], answers.get(span.grade_id, []))
    return mask


def to_filtered(raw_mask: np.ndarray, code: CodeFingerprint) -> np.ndarray:
    """``raw_mask`` (over the raw text) carried to copydetect's filtered code by its offsets, as compare_files maps."""
    at = np.arange(len(code.filtered_code))
    if len(code.offsets) > 0:
        at = at + code.offsets[:, 1][np.clip(np.searchsorted(code.offsets[:, 0], at), 0, len(code.offsets) - 1)]
    return raw_mask[np.clip(at, 0, len(raw_mask) - 1)] if len(raw_mask) else np.zeros(len(at), dtype=bool)


def boilerplate_characters(code: CodeFingerprint, boilerplate: np.ndarray) -> np.ndarray:
    """A mask over the filtered code: True where a released k-gram (copydetect's boilerplate) covers it."""
    from copydetect.utils import hashed_kgrams

    starts = np.flatnonzero(np.isin(hashed_kgrams(code.filtered_code, NOISE), boilerplate))
    edges = np.zeros(len(code.filtered_code) + NOISE + 1, dtype=np.int64)
    np.add.at(edges, starts, 1)
    np.add.at(edges, starts + NOISE, -1)
    return np.cumsum(edges)[: len(code.filtered_code)] > 0


def drop_student_version(code: CodeFingerprint, released: np.ndarray) -> CodeFingerprint:
    """``code`` without the fingerprints that cover a released character (``released``: a mask of the filtered code).

    copydetect drops a fingerprint only when all of it is boilerplate. Every
    answer starts right after a released docstring and ends before a released
    signature, so the fingerprints across those seams are mostly released code
    and a student's first or last few tokens: two students who start alike
    (``n = np.random.randint(``) would match there, on every task.
    """
    from copydetect.utils import get_token_coverage

    before = np.concatenate([[0], np.cumsum(released)])  # before[j]: released characters in [0, j)
    end = len(released)
    kept = {}
    for h, positions in code.hash_idx.items():
        own = [j for j in positions if before[min(j + code.k, end)] == before[j]]
        if own:
            kept[h] = own
    code.hash_idx, code.hashes = kept, set(kept)
    code.token_coverage = get_token_coverage(kept, code.k, len(code.filtered_code))
    return code


@dataclass
class Fingerprints:
    """One document's copydetect fingerprint, flattened for fast pairwise scoring.

    ``positions[i]`` is where (in the filtered code) a fingerprint of hash
    ``position_hashes[i]`` starts; ``hashes`` is the sorted set of hashes.
    """

    code: CodeFingerprint
    positions: np.ndarray = field(init=False)
    position_hashes: np.ndarray = field(init=False)
    hashes: np.ndarray = field(init=False)

    def __post_init__(self):
        idx = self.code.hash_idx
        self.positions = np.array([p for h in idx for p in idx[h]], dtype=np.int64)
        self.position_hashes = np.array([h for h in idx for _ in idx[h]], dtype=np.int64)
        self.hashes = np.unique(self.position_hashes)

    @property
    def empty(self) -> bool:
        """True when nothing is left beyond the released code."""
        return len(self.hashes) == 0


def fingerprints(doc: Document, boilerplate: np.ndarray, answers: dict[str, list[str]]) -> Fingerprints:
    """``doc``'s fingerprints with no released character in any: copydetect's boilerplate, then the seams."""
    code = _fingerprint(doc.text, boilerplate)
    released = boilerplate_characters(code, boilerplate) | to_filtered(student_version_text(doc, answers), code)
    return Fingerprints(drop_student_version(code, released))


def overlap(mine: Fingerprints, theirs: Fingerprints) -> tuple[int, float]:
    """(filtered characters of ``mine`` covered by fingerprints ``theirs`` also has, their share of ``mine``).

    The numbers of copydetect's ``compare_files`` (token overlap over token
    coverage), with a sorted-array membership test instead of its per-hash loop.
    """
    from copydetect.utils import get_copied_slices

    matched = mine.positions[np.isin(mine.position_hashes, theirs.hashes)]
    if len(matched) == 0:
        return 0, 0.0
    starts, ends = get_copied_slices(matched, NOISE)
    tokens = int(np.sum(ends - starts))
    return tokens, float(tokens / mine.code.token_coverage)
