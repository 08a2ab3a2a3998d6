"""The figures of an assignment: drawn by this package's modules, written beside its solution notebook.

The drawing code is the authors' side of the course: students get the SVG
files, never the code (the student package ``course`` holds none of it).

``course generate`` writes every figure of an assignment to
``solutions/<a>/figures/<file>.svg`` before nbgrader runs, so nbgrader copies
the folder into ``notebooks/<a>/figures/`` (and ``course bundle`` with it): the
released notebook and its pictures sit side by side, and
``![..](figures/x.svg)`` resolves in JupyterLab with no kernel and no network.
``course grade`` copies the solution folder into the course directory's
``source/<a>/``; the feedback page and the formgrader's view carry the figures
from there as ``data:`` images (the course's grading keeps only the notebook
in ``autograded/``).

``course verify`` names (:func:`verify_figures`):

* a figure file that differs from what the code draws now;
* a figure file in ``figures/`` that no code draws;
* a markdown image ``figures/<file>`` in a notebook whose file is missing, or
  whose name the feedback page cannot carry (not a plain ``<name>.svg``).

Matplotlib's SVG differs a little between versions (the course allows
``>=3.8,<4``). Each file names the version that wrote it (``Matplotlib vX`` in
its metadata); when that is the installed version the bytes are compared, and
otherwise only what a version does not change: the sequence of text labels
(``svg.fonttype = none`` keeps every label as text). The drift message says
which comparison was made.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path

from instructor.cells import read
from instructor.errors import CourseError
from instructor.paths import existing_assignments, notebook_path

FOLDER = "figures"
#: a markdown image of a figure file: ``![alt](figures/x.svg)`` (a title part, if any, is ignored)
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?(figures/[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: those of :data:`IMAGE` the feedback page can carry (a plain name ending in ``.svg``, no title):
#: :mod:`instructor.reporting.feedback.preprocessors.inline_figures` puts the file's bytes in place of group 2
FIGURE_IMAGE = re.compile(r"(!\[[^\]]*\]\(\s*)(figures/[A-Za-z0-9_.-]+\.svg)(\s*\))")
_CREATOR = re.compile(rb"Matplotlib v([0-9][^,<\s]*)")
_TEXT = re.compile(rb"<text\b[^>]*>(.*?)</text>", re.S)


def drawers(assignment: str) -> dict[str, Callable]:
    """``{file name: draw}`` of one assignment's figures (:func:`drawn.all_figures`)."""
    from instructor.authoring.figures.drawn import all_figures

    try:
        every = all_figures()
    except Exception as err:  # a diagram module that does not import: name it
        raise CourseError(f"The figures cannot be drawn: {type(err).__name__}: {err}.") from None
    prefix = f"{assignment}/"
    return {key[len(prefix) :]: draw for key, draw in sorted(every.items()) if key.startswith(prefix)}


def draw(draw_function: Callable) -> bytes:
    """One figure as the fixed SVG bytes of :func:`drawn.svg_bytes`."""
    import matplotlib.style

    from instructor.authoring.figures.drawn import svg_bytes

    # Matplotlib's defaults, not this machine's matplotlibrc (a serif font there would redraw every figure)
    with matplotlib.style.context("default"):
        return svg_bytes(draw_function())


def write_figures(solutions: Path, assignment: str) -> list[Path]:
    """Draw the figures of ``assignment`` into ``solutions/<a>/figures/``; returns the files written."""
    found = drawers(assignment)
    written = []
    for name, draw_function in found.items():
        path = solutions / assignment / FOLDER / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = draw(draw_function)
        # another Matplotlib version draws other bytes of the same figure: keep the committed file then
        if not path.is_file() or not same_figure(path.read_bytes(), data)[0]:
            path.write_bytes(data)
        written.append(path)
    return written


def creator_version(svg: bytes) -> str | None:
    """The Matplotlib version an SVG names as its creator (None if it names none)."""
    found = _CREATOR.search(svg)
    return found.group(1).decode() if found else None


def text_labels(svg: bytes) -> list[str]:
    """The characters of every ``<text>`` element, in drawing order, each element's sorted.

    Sorted, because a formula (mathtext) is written glyph by glyph, in an order
    a Matplotlib version may change; the characters and the labels' order stay.
    """
    labels = []
    for element in _TEXT.findall(svg):
        text = re.sub(rb"<[^>]+>", b"", element).decode("utf-8", "replace")
        labels.append("".join(sorted("".join(html.unescape(text).split()))))
    return labels


def same_figure(committed: bytes, fresh: bytes) -> tuple[bool, str]:
    """(equal?, how it was compared): bytes when one Matplotlib version wrote both, else the text labels."""
    old, new = creator_version(committed), creator_version(fresh)
    if old is not None and old == new:
        return committed == fresh, "bytes"
    return text_labels(committed) == text_labels(
        fresh
    ), f"text labels only: the file was written by Matplotlib {old or '?'}, this machine has {new or '?'}"


def image_references(nb) -> list[tuple[int, str, str]]:
    """(cell index, ``figures/<file>``, the whole markdown image) for every figure image in the notebook."""
    return [
        (i, m.group(1), m.group(0))
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "markdown"
        for m in IMAGE.finditer(cell.source)
    ]


def verify_figures(root: Path) -> list[str]:
    """Stale, orphaned and missing figure files of every assignment under ``root/solutions``."""
    solutions = root / "solutions"
    problems: list[str] = []
    for name in existing_assignments(solutions):
        folder = solutions / name / FOLDER
        try:
            found = drawers(name)
        except CourseError as err:
            return problems + [str(err)]
        for file_name, draw_function in found.items():
            path = folder / file_name
            rel = f"solutions/{name}/{FOLDER}/{file_name}"
            if not path.is_file():
                problems.append(f"{rel} is missing: the code draws it (run `course generate {name}`).")
                continue
            equal, how = same_figure(path.read_bytes(), draw(draw_function))
            if not equal:
                problems.append(
                    f"{rel} differs from what the code draws now (compared: {how}; run `course generate {name}`)."
                )
        if folder.is_dir():
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                file_name = path.relative_to(folder).as_posix()
                if file_name not in found:
                    problems.append(
                        f"solutions/{name}/{FOLDER}/{file_name} is drawn by no code in instructor/authoring/figures "
                        f"(remove it, or add it to a FIGURES dict)."
                    )
        path = notebook_path(name, solutions)
        if not path.is_file():
            continue
        for index, ref, whole in image_references(read(path)):
            if not (solutions / name / ref).is_file():
                problems.append(f"solutions/{name}/{name}.ipynb: cell {index} shows {ref}, which does not exist.")
            elif not FIGURE_IMAGE.fullmatch(whole):
                problems.append(
                    f"solutions/{name}/{name}.ipynb: cell {index} shows {ref} as {whole[:60]!r}: write "
                    f"![what it shows](figures/<letters, digits, _ . ->.svg), no title and no <...>, "
                    f"or the feedback page cannot carry it."
                )
    return problems
