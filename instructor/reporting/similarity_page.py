"""The page of ``course similarity``: ``<dir>/similarity/<a>.html``, beside the CSV.

The ranked table of the pairs shown, then each pair side by side, task by
task, the matching parts marked. Student code and student-chosen names are
hostile text: code reaches the page only through :func:`highlight`, which
escapes every character (also where copydetect would hand the text back
unescaped: a part with nothing to mark), and the template escapes everything
else. The page has no script, and its policy forbids scripts and any load
from elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
import numpy as np
from markupsafe import Markup, escape

from instructor.reporting.rendering import STATIC_PAGE_POLICY
from instructor.reporting.similarity import Similarity, write_csv
from instructor.reporting.similarity_documents import Document, Span
from instructor.reporting.similarity_pairs import Pair

if TYPE_CHECKING:
    from instructor.coursedir.course_dir import CourseDir

TEMPLATES = Path(__file__).parent / "templates"
TEMPLATE = "similarity.html.j2"
#: side-by-side views drawn (the table and the CSV list every pair shown); more means the threshold is too low
MAX_VIEWS = 200


def highlight(text: str, starts: np.ndarray, ends: np.ndarray) -> Markup:
    """``text`` escaped, with ``text[start:end]`` of each slice inside ``<mark>``; slices sorted, disjoint."""
    if not len(text) or not len(starts):
        return Markup(escape(text))  # copydetect returns the text as is when there is nothing to mark
    from copydetect.utils import highlight_overlap  # where it is used (similarity_fingerprints says why)

    marked, _ = highlight_overlap(text, np.array([starts, ends]), "<mark>", "</mark>", escape_html=True)
    return Markup(marked)


def in_cell(text: str, slices: np.ndarray, span: Span) -> tuple[np.ndarray, np.ndarray]:
    """The parts of ``slices`` (2 x n, in a document) in ``span``, as offsets in its cell ``text``, white space trimmed.

    copydetect's raw end offsets reach the next token, through the line
    break and the next line's indent: a mark stops at the last character.
    """
    starts, ends = [], []
    firsts, lasts = np.clip(slices[0] - span.start, 0, len(text)), np.clip(slices[1] - span.start, 0, len(text))
    for start, end in zip(firsts, lasts, strict=True):
        part = text[start:end]
        start, end = start + len(part) - len(part.lstrip()), end - (len(part) - len(part.rstrip()))
        if end > start:
            starts.append(start)
            ends.append(end)
    return np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)


@dataclass
class Row:
    """One task of a pair: each side's cell, matches marked (empty if the side has no such cell)."""

    task: str
    left: Markup
    right: Markup


@dataclass
class View:
    pair: Pair
    rows: list[Row]
    unmatched: list[str]  # the tasks of either side with no match


def _cell(doc: Document, slices: np.ndarray, task: str) -> Markup:
    span = next((s for s in doc.spans if s.grade_id == task), None)
    if span is None:
        return Markup("")
    text = doc.text[span.start : span.end]
    return highlight(text, *in_cell(text, slices, span))


def view(pair: Pair, docs: dict[str, Document]) -> View:
    """The side-by-side view of a located pair (:func:`instructor.reporting.similarity.locate`)."""
    a, b = docs[pair.a], docs[pair.b]
    if pair.slices is None:
        raise ValueError(f"the pair {pair.a}, {pair.b} was not located (similarity.locate) before its view")
    tasks = [s.grade_id for s in a.spans]
    tasks += [s.grade_id for s in b.spans if s.grade_id not in tasks]
    rows = [Row(t, _cell(a, pair.slices[0], t), _cell(b, pair.slices[1], t)) for t in tasks if t in pair.tasks]
    return View(pair, rows, [t for t in tasks if t not in pair.tasks])


def render(result: Similarity) -> str:
    """The page's HTML."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined
    )
    shown = result.shown
    views = [view(p, result.documents) for p in shown[:MAX_VIEWS]]
    return env.get_template(TEMPLATE).render(r=result, shown=shown, views=views, csp=STATIC_PAGE_POLICY)


def write(course_dir: CourseDir, result: Similarity) -> tuple[Path, Path]:
    """Write ``<dir>/similarity/<a>.html`` and ``<a>.csv``; returns their paths."""
    out = course_dir.similarity_root
    out.mkdir(parents=True, exist_ok=True)
    page = out / f"{result.assignment}.html"
    page.write_text(render(result), encoding="utf-8")
    return page, write_csv(result, out / f"{result.assignment}.csv")
