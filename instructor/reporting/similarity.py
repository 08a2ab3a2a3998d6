"""Which submissions of one assignment share answer code: pairs ranked for a person to judge.

Reads the course directory: the graded notebooks
``autograded/<student>/<a>/<a>.ipynb`` and the released student versions
(``release/<a>/`` and each archived ``releases/<a>/``), through the shared
reader (:func:`instructor.cells.read`). Then, in rooms of their own:

- :mod:`~instructor.reporting.similarity_documents`: one document per submission, its answer code cells;
- :mod:`~instructor.reporting.similarity_fingerprints`: copydetect's fingerprints (winnowing over tokens,
  the method of MOSS), released code removed;
- :mod:`~instructor.reporting.similarity_pairs`: every pair scored and ranked by its larger share;
- :mod:`~instructor.reporting.similarity_page`: the page beside the CSV written here.

A larger share is only as good as the code behind it, so a pair is shown
only above :data:`THRESHOLD` and with at least :data:`MIN_CHARS` matched
filtered characters: a few lines the API dictates (``dense(dim_input,
dim_recurrent, weight_initializer=glorot_normal)``) are all of a nearly blank
submission and match anyone's.
"""

from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from instructor.cells import read
from instructor.coursedir import releases
from instructor.coursedir.course_dir import SIMILARITY
from instructor.errors import CourseError, first_line
from instructor.reporting.export import inert_cell
from instructor.reporting.similarity_documents import Document, document, student_version_answers, student_version_code
from instructor.reporting.similarity_fingerprints import NOISE, boilerplate_hashes, fingerprints
from instructor.reporting.similarity_pairs import Pair, locate, score_all

if TYPE_CHECKING:
    from instructor.coursedir.course_dir import CourseDir

__all__ = ["NOISE", "THRESHOLD", "MIN_CHARS", "OUTPUT", "CSV_COLUMNS", "Similarity", "analyse", "write_csv"]

#: a pair is shown when its larger share is above this. Measured on tests/reporting/test_similarity.py's
#: class: a copy with renamed names 1.00, half the tasks taken from one classmate 0.45, independent
#: implementations of 01_rnn at most 0.22 (0.20 for a rewrite of a classmate's answer)
THRESHOLD = 0.4
#: and when at least this many filtered characters match (a one-task copy of 01_rnn: 174; the three
#: `dense(...)` lines every RNN needs: 66)
MIN_CHARS = 100
#: the output folder, ``<dir>/similarity/<a>.html`` and ``.csv``
OUTPUT = SIMILARITY  # <dir>/similarity/ (CourseDir.similarity_root)
#: the CSV's header; ``tokens_matched`` holds :attr:`Pair.chars_matched` (the column keeps its name for the
#: scripts that read it: docs/glossary.md)
CSV_COLUMNS = ["student_a", "student_b", "similarity_a", "similarity_b", "tokens_matched", "tasks"]


@dataclass
class Similarity:
    """One assignment's comparison: every pair scored; the pairs shown located in the text."""

    assignment: str
    threshold: float
    min_chars: int
    documents: dict[str, Document]
    pairs: list[Pair]  # every pair, highest score first
    blank: list[str]  # submissions with nothing beyond the released code
    skipped: list[str] = field(default_factory=list)  # "student: why" of notebooks that could not be read

    def is_shown(self, pair: Pair) -> bool:
        return pair.score > self.threshold and pair.chars_matched >= self.min_chars

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


def student_versions(course_dir: CourseDir, assignment: str) -> list:
    """The student versions of ``assignment``: ``release/<a>/<a>.ipynb`` and every archived version."""
    current = course_dir.student_version(assignment)
    if Path(assignment).name != assignment or assignment.startswith(".") or not current.is_file():
        known = sorted(p.name for p in course_dir.release("").glob("*") if p.is_dir())
        raise CourseError(
            f"unknown assignment {assignment!r}: {course_dir.release('')} has no "
            f"{assignment}/{assignment}.ipynb (released: {', '.join(known) or 'none'})."
        )
    return [read(current), *releases.archived(course_dir, assignment)]


def submissions(course_dir: CourseDir, assignment: str) -> dict[str, Path]:
    """student -> their graded notebook ``autograded/<student>/<a>/<a>.ipynb`` (symlinks and hidden folders skipped)."""
    root = course_dir.autograded_root
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


def analyse(
    course_dir: CourseDir, assignment: str, threshold: float = THRESHOLD, min_chars: int = MIN_CHARS
) -> Similarity:
    """Compare every pair of graded submissions of ``assignment`` in ``course_dir``."""
    if not 0 <= threshold < 1:
        raise CourseError(f"the threshold is a share of a submission's code, from 0 to 1 (not {threshold}).")
    notebooks = student_versions(course_dir, assignment)
    boilerplate, answers = boilerplate_hashes(student_version_code(notebooks)), student_version_answers(notebooks)
    paths = submissions(course_dir, assignment)
    if not paths:
        raise CourseError(
            f"there is no graded submission of {assignment} in {course_dir.autograded_root}: run `course grade` first."
        )
    docs, skipped = {}, []
    for student, path in paths.items():
        try:
            docs[student] = document(student, read(path))
        except Exception as err:  # one unreadable notebook must not stop the comparison
            skipped.append(f"{student}: {first_line(err)}")
    if len(docs) < 2:
        raise CourseError(f"{assignment} has {len(docs)} readable graded submission: there is no pair to compare.")
    prints = {s: fingerprints(d, boilerplate, answers) for s, d in docs.items()}
    result = Similarity(
        assignment,
        threshold,
        min_chars,
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
            row = [p.a, p.b, f"{p.similarity_a:.3f}", f"{p.similarity_b:.3f}", p.chars_matched, " ".join(p.tasks)]
            out.writerow([inert_cell(v) for v in row])  # student ids and grade_ids are student-controlled text
    return path
