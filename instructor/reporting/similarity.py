"""Which submissions of one assignment share answer code: pairs ranked for a person to judge.

Built on copydetect (winnowing over tokens, the method of MOSS; MIT). Its
tokenizer turns names into ``V``/``F``/``O`` and strings into ``S`` and drops
comments and white space, so renamed variables or new spacing do not hide a
copy; every run of :data:`NOISE` characters of that filtered code is a
fingerprint, and a match is a run of at least :data:`NOISE` filtered
characters that two documents share.

- One document per submission: the code answer cells (nbgrader
  ``solution: true`` code cells) of ``autograded/<student>/<a>/<a>.ipynb``,
  in notebook order, with each cell's span kept so a match is named by its
  task (``grade_id``). Written answers (markdown) are left out: tokenising
  prose as Python would compare punctuation, not ideas.
- Released code never counts: every fingerprint of the released student
  versions (``release/<a>/`` and each archived ``releases/<a>/``: stubs,
  signatures, docstrings, given and test cells) is copydetect's boilerplate;
  and so is every fingerprint that touches a released character (the lines an
  answer cell keeps from its released version), so that the seams between a
  released docstring and a student's first statement never match
  (:func:`drop_released`). A submission left as released has no fingerprint
  and matches nobody.
- Scores are copydetect's: per pair, the share of each document's
  fingerprinted code that is found in the other. A pair is ranked by the
  larger share (:attr:`Pair.score`): a student who copied one task and wrote
  nothing else is mostly someone else's work even when that someone wrote
  much more, which the mean would halve. A larger share is only as good as the
  code behind it, so a pair is shown only with at least :data:`MIN_TOKENS`
  matched filtered characters: a few lines the API dictates
  (``dense(dim_input, dim_recurrent, weight_initializer=glorot_normal)``)
  are all of a nearly blank submission and match anyone's.

Speed: each document is fingerprinted once; every pair is then scored from
the fingerprints with array operations (:func:`score`, the numbers of
copydetect's ``compare_files``), and ``compare_files`` itself, which maps the
matches back to the raw text, runs only for the pairs shown.
"""

from __future__ import annotations

import csv
import io
import statistics
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from itertools import combinations
from pathlib import Path

import nbformat
import numpy as np
from copydetect import CodeFingerprint, compare_files
from copydetect.utils import get_copied_slices, get_token_coverage, hashed_kgrams

from instructor.coursedir import releases
from instructor.errors import CourseError, first_line
from instructor.reporting.export import inert_cell

#: copydetect's noise threshold (its default): a match is at least this many filtered characters
NOISE = 25
#: copydetect's winnowing window; 1 keeps every k-gram (its default, guarantee = noise): documents are small
WINDOW = 1
#: a pair is shown when its larger share is above this. Measured on tests/reporting/test_similarity.py's
#: class: a copy with renamed names 1.00, half the tasks taken from one classmate 0.45, independent
#: implementations of 01_rnn at most 0.22 (0.20 for a rewrite of a classmate's answer)
THRESHOLD = 0.4
#: and when at least this many filtered characters match (a one-task copy of 01_rnn: 174; the three
#: `dense(...)` lines every RNN needs: 66)
MIN_TOKENS = 100
LANGUAGE = "python"
#: between two answer cells of a document (white space: the tokenizer drops it)
SEPARATOR = "\n\n"
#: the output folder, ``<dir>/similarity/<a>.html`` and ``.csv``
OUTPUT = "similarity"
CSV_COLUMNS = ["student_a", "student_b", "similarity_a", "similarity_b", "tokens_matched", "tasks"]


# --------------------------------------------------------------------------- documents


@dataclass(frozen=True)
class Span:
    """Where one answer cell lies in its document: ``text[start:end]``."""

    grade_id: str
    start: int
    end: int


@dataclass
class Document:
    """One submission's answer code: the cells joined by :data:`SEPARATOR`, and where each lies."""

    student: str
    text: str
    spans: list[Span]

    def tasks_in(self, slices: np.ndarray) -> list[str]:
        """The grade_ids of the cells that ``slices`` (2 x n: starts, ends in ``text``) overlap, in notebook order."""
        starts, ends = np.asarray(slices).reshape(2, -1)
        return [s.grade_id for s in self.spans if np.any((starts < s.end) & (ends > s.start))]


def answer_cells(nb) -> list[tuple[str, str]]:
    """(grade_id, source) of each code answer cell (nbgrader ``solution: true``) of ``nb``, in notebook order."""
    found = []
    for i, cell in enumerate(nb.cells):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") == "code" and meta.get("solution"):
            found.append((str(meta.get("grade_id") or f"cell {i + 1}"), cell.source))
    return found


def document(student: str, nb) -> Document:
    """``student``'s document: the answer cells of ``nb`` joined, with the span of each."""
    parts: list[str] = []
    spans: list = []
    at = 0
    for gid, source in answer_cells(nb):
        if parts:
            at += len(SEPARATOR)
        parts.append(source)
        spans.append(Span(gid, at, at + len(source)))
        at += len(source)
    return Document(student, SEPARATOR.join(parts), spans)


def released_code(notebooks) -> list[str]:
    """The texts whose every fingerprint is copydetect's boilerplate, from the released notebooks.

    Per notebook: its answer cells joined as a student's document is (so a
    document left as released is wholly boilerplate, the joins included), and
    each other code cell (given code, tests a student may paste from).
    """
    texts = []
    for nb in notebooks:
        texts.append(document("", nb).text)
        texts += [
            c.source
            for c in nb.cells
            if c.get("cell_type") == "code" and not c.get("metadata", {}).get("nbgrader", {}).get("solution")
        ]
    return [t for t in texts if t.strip()]


def released_answers(notebooks) -> dict[str, list[str]]:
    """grade_id -> the source of that answer cell in each released version (stubs, signatures, docstrings)."""
    found: dict[str, list[str]] = {}
    for nb in notebooks:
        for gid, source in answer_cells(nb):
            found.setdefault(gid, []).append(source)
    return found


# --------------------------------------------------------------------------- fingerprints


def _fingerprint(text: str, boilerplate=None, window: int = WINDOW) -> CodeFingerprint:
    """copydetect's fingerprint of a Python text (tokenised and filtered), ``boilerplate`` hashes removed."""
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


def released_text(doc: Document, answers: dict[str, list[str]]) -> np.ndarray:
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
    starts = np.flatnonzero(np.isin(hashed_kgrams(code.filtered_code, NOISE), boilerplate))
    edges = np.zeros(len(code.filtered_code) + NOISE + 1, dtype=np.int64)
    np.add.at(edges, starts, 1)
    np.add.at(edges, starts + NOISE, -1)
    return np.cumsum(edges)[: len(code.filtered_code)] > 0


def drop_released(code: CodeFingerprint, released: np.ndarray) -> CodeFingerprint:
    """``code`` without the fingerprints that cover a released character (``released``: a mask of the filtered code).

    copydetect drops a fingerprint only when all of it is boilerplate. Every
    answer starts right after a released docstring and ends before a released
    signature, so the fingerprints across those seams are mostly released code
    and a student's first or last few tokens: two students who start alike
    (``n = np.random.randint(``) would match there, on every task.
    """
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
    released = boilerplate_characters(code, boilerplate) | to_filtered(released_text(doc, answers), code)
    return Fingerprints(drop_released(code, released))


def _overlap(mine: Fingerprints, theirs: Fingerprints) -> tuple[int, float]:
    """(filtered characters of ``mine`` covered by fingerprints ``theirs`` also has, their share of ``mine``).

    The numbers of copydetect's ``compare_files`` (token overlap over token
    coverage), with a sorted-array membership test instead of its per-hash loop.
    """
    matched = mine.positions[np.isin(mine.position_hashes, theirs.hashes)]
    if len(matched) == 0:
        return 0, 0.0
    starts, ends = get_copied_slices(matched, NOISE)
    tokens = int(np.sum(ends - starts))
    return tokens, float(tokens / mine.code.token_coverage)


# --------------------------------------------------------------------------- pairs


@dataclass
class Pair:
    """Two submissions and how much of each is found in the other.

    ``a`` is the one with the larger share (``similarity_a >= similarity_b``);
    ``tokens_matched`` counts filtered characters of ``a`` (a name or a string
    is one) in matching runs. ``tasks`` and ``slices`` (raw-text starts and
    ends of the matching parts, in a then b) are filled for the pairs shown.
    """

    a: str
    b: str
    similarity_a: float
    similarity_b: float
    tokens_matched: int
    tasks: list[str] = field(default_factory=list)
    slices: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def score(self) -> float:
        """The rank: the larger share (a partial copy of a longer submission still ranks high)."""
        return max(self.similarity_a, self.similarity_b)


def score(a: str, b: str, fa: Fingerprints, fb: Fingerprints) -> Pair:
    """The pair of ``a`` and ``b``, from their fingerprints (no text is read)."""
    tokens_a, share_a = _overlap(fa, fb)
    tokens_b, share_b = _overlap(fb, fa)
    if share_b > share_a:  # a is the one more found in the other (equal shares: a, b as given)
        a, b, tokens_a, share_a, share_b = b, a, tokens_b, share_b, share_a
    return Pair(a, b, share_a, share_b, tokens_a)


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
    _, _, (slices_a, slices_b) = compare_files(prints[pair.a].code, prints[pair.b].code)
    pair.slices = (np.asarray(slices_a).reshape(2, -1), np.asarray(slices_b).reshape(2, -1))
    in_a, in_b = docs[pair.a].tasks_in(pair.slices[0]), docs[pair.b].tasks_in(pair.slices[1])
    pair.tasks = in_a + [t for t in in_b if t not in in_a]
    return pair


# --------------------------------------------------------------------------- the course directory


@dataclass
class Similarity:
    """One assignment's comparison: every pair scored; the pairs shown located in the text."""

    assignment: str
    threshold: float
    min_tokens: int
    documents: dict[str, Document]
    pairs: list[Pair]  # every pair, highest score first
    blank: list[str]  # submissions with nothing beyond the released code
    skipped: list[str] = field(default_factory=list)  # "student: why" of notebooks that could not be read

    def is_shown(self, pair: Pair) -> bool:
        return pair.score > self.threshold and pair.tokens_matched >= self.min_tokens

    @property
    def shown(self) -> list[Pair]:
        """The pairs above the threshold with enough matched code, highest first."""
        return [p for p in self.pairs if self.is_shown(p)]

    @property
    def best_hidden(self) -> Pair | None:
        """The highest pair not shown (where the class's ordinary likeness ends), or None."""
        return next((p for p in self.pairs if not self.is_shown(p)), None)

    @property
    def median(self) -> float:
        """The median score of the pairs of submissions that hold code of their own."""
        scores = [p.score for p in self.pairs if p.a not in self.blank and p.b not in self.blank]
        return statistics.median(scores) if scores else 0.0


def _read(path: Path):
    return nbformat.read(str(path), as_version=4)


def released_notebooks(folder: Path, assignment: str) -> list:
    """The released student versions of ``assignment``: ``release/<a>/<a>.ipynb`` and every archived release."""
    current = folder / "release" / assignment / f"{assignment}.ipynb"
    if Path(assignment).name != assignment or assignment.startswith(".") or not current.is_file():
        known = sorted(p.name for p in (folder / "release").glob("*") if p.is_dir())
        raise CourseError(
            f"unknown assignment {assignment!r}: {folder / 'release'} has no "
            f"{assignment}/{assignment}.ipynb (released: {', '.join(known) or 'none'})."
        )
    return [_read(current), *releases.issued(folder, assignment)]


def submissions(folder: Path, assignment: str) -> dict[str, Path]:
    """student -> their graded notebook ``autograded/<student>/<a>/<a>.ipynb`` (symlinks and hidden folders skipped)."""
    root = folder / "autograded"
    found = {}
    for student_dir in sorted(root.iterdir()) if root.is_dir() else []:
        path = student_dir / assignment / f"{assignment}.ipynb"
        if (
            student_dir.is_dir()
            and not student_dir.is_symlink()
            and not student_dir.name.startswith(".")
            and path.is_file()
            and not path.is_symlink()
        ):
            found[student_dir.name] = path
    return found


def analyse(folder: Path, assignment: str, threshold: float = THRESHOLD, min_tokens: int = MIN_TOKENS) -> Similarity:
    """Compare every pair of graded submissions of ``assignment`` in the course directory ``folder``."""
    if not 0 <= threshold < 1:
        raise CourseError(f"the threshold is a share of a submission's code, from 0 to 1 (not {threshold}).")
    notebooks = released_notebooks(folder, assignment)
    boilerplate, answers = boilerplate_hashes(released_code(notebooks)), released_answers(notebooks)
    paths = submissions(folder, assignment)
    if not paths:
        raise CourseError(
            f"there is no graded submission of {assignment} in {folder / 'autograded'}: run `course grade` first."
        )
    docs, skipped = {}, []
    for student, path in paths.items():
        try:
            docs[student] = document(student, _read(path))
        except Exception as err:  # one unreadable notebook must not stop the comparison
            skipped.append(f"{student}: {first_line(err)}")
    if len(docs) < 2:
        raise CourseError(f"{assignment} has {len(docs)} readable graded submission: there is no pair to compare.")
    prints = {s: fingerprints(d, boilerplate, answers) for s, d in docs.items()}
    result = Similarity(
        assignment,
        threshold,
        min_tokens,
        docs,
        score_all(prints),
        sorted(s for s, f in prints.items() if f.empty),
        skipped,
    )
    for pair in result.shown:
        locate(pair, docs, prints)
    return result


def write_csv(result: Similarity, path: Path) -> Path:
    """The pairs shown as CSV (:data:`CSV_COLUMNS`), highest first; tasks space-separated, in notebook order."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(CSV_COLUMNS)
        for p in result.shown:
            row = [p.a, p.b, f"{p.similarity_a:.3f}", f"{p.similarity_b:.3f}", p.tokens_matched, " ".join(p.tasks)]
            out.writerow([inert_cell(v) for v in row])  # student ids and grade_ids are student-controlled text
    return path
