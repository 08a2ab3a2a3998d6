"""Figures that travel with their assignment: drawn by instructor/authoring/figures, written by `course generate`
beside the solution, copied by nbgrader beside the student notebook, verified by `course verify`,
carried by the bundle and inlined in the feedback page."""

from __future__ import annotations

import base64
import math
import re
import shutil

import nbformat
import pytest

from instructor.authoring.figures import IMAGE, creator_version, drawn, image_references, same_figure, text_labels
from instructor.cells import read
from instructor.paths import NOTEBOOKS, SOLUTIONS, existing_assignments, notebook_path
from instructor.reporting.feedback.preprocessors.inline_figures import inline
from tests.factories import edit_notebook, make_course, question_cell

FIGURES = drawn.all_figures()


@pytest.mark.parametrize("key", sorted(FIGURES))
def test_every_figure_is_named_by_its_assignment_and_drawn_the_same_twice(key):
    """Is each figure keyed ``<assignment>/<file>.svg`` and written as the same bytes on every run?"""
    assignment, _, file_name = key.partition("/")
    assert assignment in existing_assignments(SOLUTIONS) and re.fullmatch(r"[a-z0-9_]+\.svg", file_name)
    first = drawn.svg_bytes(FIGURES[key]())
    assert first == drawn.svg_bytes(FIGURES[key]())
    assert creator_version(first) and text_labels(first), "the SVG names its Matplotlib and keeps its text as text"


def test_the_released_notebooks_find_their_figures_beside_them():
    """Does every image a student notebook shows resolve the way JupyterLab resolves it, relative to
    the notebook's own folder (``notebooks/<a>/figures/x.svg``), to the file of the solution folder?"""
    for name in existing_assignments(NOTEBOOKS):
        path = notebook_path(name, NOTEBOOKS)
        for _, ref, _ in image_references(read(path)):
            assert not ref.startswith(("/", "..")) and "://" not in ref
            target = path.parent / ref
            assert target.is_file(), f"{name}: {ref} is not beside the notebook"
            assert target.read_bytes() == (SOLUTIONS / name / ref).read_bytes()


def test_notebook_01_shows_its_rnn_figure():
    refs = [ref for _, ref, _ in image_references(read(notebook_path("01_rnn", NOTEBOOKS)))]
    assert refs == ["figures/rnn_unrolled.svg"]


def _toy_figure():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2, 1))
    fig.text(0.5, 0.5, "toy label", ha="center")
    return fig


@pytest.fixture
def toy_with_figure(tmp_path, monkeypatch, run_course):
    """The toy course, whose 01_toy draws figures/toy.svg and shows it in a locked cell; released."""
    monkeypatch.setattr(drawn, "all_figures", lambda: {"01_toy/toy.svg": _toy_figure})
    root = make_course(tmp_path / "repo")
    edit_notebook(
        root / "solutions/01_toy/01_toy.ipynb",
        lambda nb: nb.cells.insert(
            1, question_cell("toy_picture_text", "![a toy](figures/toy.svg)\n\n*Figure: a toy.*")
        ),
    )
    run_course(["generate", "--root", root])
    return root


def test_release_writes_the_figures_beside_solution_and_student_notebook(toy_with_figure):
    root = toy_with_figure
    svg = drawn.svg_bytes(_toy_figure())
    assert (root / "solutions/01_toy/figures/toy.svg").read_bytes() == svg
    assert (root / "notebooks/01_toy/figures/toy.svg").read_bytes() == svg
    assert not (root / "notebooks/02_toy/figures").exists()


def test_check_is_clean_then_reports_each_figure_fault(toy_with_figure, run_course):
    """Are a changed figure, a figure no code draws, a missing drawn figure and an image whose file is
    missing each reported?"""
    root = toy_with_figure
    out, _ = run_course(["verify", "--root", root])
    assert "clean" in out
    figure = root / "solutions/01_toy/figures/toy.svg"
    figure.write_bytes(figure.read_bytes().replace(b"toy label", b"old label"))
    (root / "solutions/01_toy/figures/stray.svg").write_text("<svg/>")
    edit_notebook(
        root / "solutions/02_toy/02_toy.ipynb",
        lambda nb: nb.cells.insert(1, question_cell("gone_text", "![gone](figures/gone.svg)\n\n*Figure: gone.*")),
    )
    out, _ = run_course(["verify", "--root", root], retcode=1)
    assert "solutions/01_toy/figures/toy.svg differs from what the code draws now (compared: bytes" in out
    assert "solutions/01_toy/figures/stray.svg is drawn by no code" in out
    assert "solutions/02_toy/02_toy.ipynb: cell 1 shows figures/gone.svg, which does not exist" in out
    figure.unlink()
    out, _ = run_course(["verify", "--root", root], retcode=1)
    assert "solutions/01_toy/figures/toy.svg is missing: the code draws it" in out


def test_another_matplotlib_compares_the_labels_only():
    """A file written by another Matplotlib version: the same labels pass whatever the geometry,
    a changed label fails, and the message says what was compared."""
    ours = drawn.svg_bytes(_toy_figure())
    theirs = re.sub(rb"Matplotlib v[0-9.]+", b"Matplotlib v3.8.0", ours)
    theirs = re.sub(rb'd="M [0-9.]+', b'd="M 1.5', theirs)  # other paths, same text
    assert same_figure(theirs, ours)[0]
    assert "text labels only" in same_figure(theirs, ours)[1] and "3.8.0" in same_figure(theirs, ours)[1]
    assert not same_figure(theirs.replace(b"toy label", b"toy lab3l"), ours)[0]
    assert same_figure(ours, ours) == (True, "bytes")
    assert not same_figure(ours.replace(b'd="M ', b'd="M 1', 1), ours)[0]


def test_check_refuses_an_image_the_feedback_page_cannot_carry(toy_with_figure, run_course):
    """A title or angle brackets keep the image out of the feedback page's inlining: the check says so."""
    root = toy_with_figure
    edit_notebook(
        root / "solutions/02_toy/02_toy.ipynb",
        lambda nb: nb.cells.insert(1, question_cell("titled_text", '![a toy](figures/toy.svg "a title")')),
    )
    (root / "solutions/02_toy/figures").mkdir()
    (root / "solutions/02_toy/figures/toy.svg").write_bytes((root / "solutions/01_toy/figures/toy.svg").read_bytes())
    out, _ = run_course(["verify", "--root", root], retcode=1)
    assert "no title and no <...>" in out


def test_a_matplotlibrc_changes_no_figure(tmp_path, monkeypatch):
    """The figures are drawn with Matplotlib's defaults, whatever this machine's rc file says."""
    import matplotlib

    from instructor.authoring.figures import draw

    plain = draw(_toy_figure)
    with matplotlib.rc_context({"font.family": "serif", "lines.linewidth": 7}):
        assert draw(_toy_figure) == plain


def test_release_keeps_a_figure_another_matplotlib_wrote(toy_with_figure, run_course):
    """Released again on a machine with another Matplotlib, a figure with the same labels is not rewritten."""
    root = toy_with_figure
    figure = root / "solutions/01_toy/figures/toy.svg"
    older = re.sub(rb"Matplotlib v[0-9.]+", b"Matplotlib v3.8.0", figure.read_bytes())
    figure.write_bytes(older)
    run_course(["generate", "01_toy", "--root", root])
    assert figure.read_bytes() == older


def test_the_image_pattern():
    assert IMAGE.findall('![a](figures/x.svg) and ![b](figures/y_2.svg "t")\n![c](other/z.svg)') == [
        "figures/x.svg",
        "figures/y_2.svg",
    ]


def test_feedback_inlines_only_course_files(tmp_path):
    """Is a figure reference replaced by its file's bytes as a data URI, and a missing file left as it is?"""
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures/x.svg").write_bytes(b"<svg>x</svg>")
    out = inline("![x](figures/x.svg) ![y](figures/y.svg) ![z](figures/../z.svg)", [tmp_path / "nowhere", tmp_path])
    assert f"![x](data:image/svg+xml;base64,{base64.b64encode(b'<svg>x</svg>').decode()})" in out
    assert "![y](figures/y.svg)" in out and "![z](figures/../z.svg)" in out


def test_the_feedback_page_carries_the_course_figure(toy_with_figure, tmp_path, run_course):
    """Does the feedback page (whose policy admits only data: images) show the course's figure inline,
    from the course directory's source copy, and never the file a student handed in?

    The course's grading keeps only the notebook in ``autograded/`` (instructor.grading.record), so
    the page cannot count on the figure files there (nor, then, in ``feedback/``)."""
    root = toy_with_figure
    sub = tmp_path / "subs" / "eve" / "01_toy"
    sub.mkdir(parents=True)
    shutil.copy(root / "notebooks/01_toy/01_toy.ipynb", sub)  # a student hands in the notebook alone
    (sub / "figures").mkdir()
    (sub / "figures/toy.svg").write_text("<svg>the student's</svg>")
    run_course(["grade", tmp_path / "subs", "--course-dir", tmp_path / "cd", "--root", root])
    svg = (root / "solutions/01_toy/figures/toy.svg").read_bytes()
    assert (tmp_path / "cd/source/01_toy/figures/toy.svg").read_bytes() == svg
    run_course(["feedback", "--course-dir", tmp_path / "cd"])
    html = (tmp_path / "cd/feedback/eve/01_toy/01_toy.html").read_text()
    assert "img-src data:" in html
    assert f'src="data:image/svg+xml;base64,{base64.b64encode(svg).decode()}"' in html
    assert 'src="figures/' not in html and base64.b64encode(b"<svg>the student's</svg>").decode() not in html


def test_the_released_01_has_its_figure_and_no_text_form():
    """The student folder of 01 holds its notebook and figures, nothing of the text form."""
    files = sorted(
        p.relative_to(NOTEBOOKS / "01_rnn").as_posix() for p in (NOTEBOOKS / "01_rnn").rglob("*") if p.is_file()
    )
    assert files == ["01_rnn.ipynb", "figures/rnn_unrolled.svg"]
    nb = nbformat.read(str(notebook_path("01_rnn", NOTEBOOKS)), as_version=4)
    assert "jupytext" not in nb.metadata


def test_the_formgraders_view_carries_the_course_figure_too(tmp_path):
    """Does the HTMLExporter the formgrader builds from the course settings inline a course figure
    (its resources name the assignment as ``assignment_id``)?"""
    from nbconvert.exporters import HTMLExporter
    from traitlets.config import Config

    from instructor.settings import configure

    (tmp_path / "source/01_toy/figures").mkdir(parents=True)
    (tmp_path / "source/01_toy/figures/t.svg").write_bytes(b"<svg>t</svg>")
    locked = {"grade": False, "solution": False, "locked": True, "grade_id": "t_text", "schema_version": 3}
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("![t](figures/t.svg)", metadata={"nbgrader": locked})]
    )
    html, _ = HTMLExporter(config=configure(Config(), tmp_path)).from_notebook_node(
        nb, resources={"assignment_id": "01_toy"}
    )
    assert f'src="data:image/svg+xml;base64,{base64.b64encode(b"<svg>t</svg>").decode()}"' in html


def test_the_beam_search_figure_is_a_possible_beam():
    """02's beam: each node's children have probabilities that add up to at most 1 (two children at -0.1 and
    -1.1 made 1.24), each running sum is its parent's plus the token's log p, each step keeps its 2 best, and
    the best line ends the beam."""
    from instructor.authoring.figures.seq2seq import BEAM

    totals = [0.0]
    for step in BEAM:
        for parent in range(len(totals)):
            children = [logp for _, _, logp, _, _, of in step if (of or 0) == parent]
            assert sum(math.exp(logp) for logp in children) <= 1, (parent, children)
        for _, _, logp, total, _, parent in step:
            assert total == pytest.approx(totals[parent or 0] + logp)
        best = sorted(total for *_, total, _, _ in step)[-2:]
        assert {total for _, _, _, total, keep, _ in step if keep} == set(best)
        totals = [total if keep else -math.inf for _, _, _, total, keep, _ in step]
    assert max(totals) == BEAM[-1][0][3]
