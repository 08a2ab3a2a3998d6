"""Text forms of the solution notebooks (jupytext, percent format): written by `course generate` beside
each assignment folder, never released, verified by `course verify`, and enough to rebuild the notebook."""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest

from instructor.authoring.text_form import from_text, text_form_path, to_text
from instructor.cells import read
from instructor.paths import SOLUTIONS, existing_assignments, notebook_path
from tests.factories import edit_notebook, make_course


def _same_cells(a, b) -> None:
    assert len(a.cells) == len(b.cells)
    for x, y in zip(a.cells, b.cells, strict=True):
        assert (x.cell_type, x.source) == (y.cell_type, y.source)
        assert x.metadata == y.metadata  # nbgrader, course, tags, jupyter: all of it
        assert x.metadata.get("nbgrader") == y.metadata.get("nbgrader")


@pytest.mark.parametrize("name", ["01_rnn"])
def test_the_committed_text_form_rebuilds_its_notebook(name):
    """Text form -> notebook: the same cells, sources and metadata (nbgrader's included) as the solution."""
    text = text_form_path(SOLUTIONS, name).read_text(encoding="utf-8")
    _same_cells(from_text(text), read(notebook_path(name, SOLUTIONS)))
    assert '# %% nbgrader={"grade": true' in text or "nbgrader={" in text


@pytest.mark.parametrize("name", existing_assignments(SOLUTIONS))
def test_every_solution_notebook_survives_the_round_trip(name):
    """Notebook -> text -> notebook keeps every cell, source and metadata, hidden tests and schemes
    included, up to a newline that ends a cell (see below)."""
    nb = read(notebook_path(name, SOLUTIONS))
    for cell in nb.cells:
        cell.source = cell.source.rstrip("\n")
    _same_cells(from_text(to_text(nb)), nb)


def test_release_writes_the_text_form_outside_the_assignment_folder(tmp_path, run_course):
    root = make_course(tmp_path / "repo")
    run_course(["generate", "--root", root])
    for name in ("01_toy", "02_toy"):
        path = root / "solutions" / f"{name}.py"
        assert path.is_file() and path.read_text() == to_text(read(notebook_path(name, root / "solutions")))
        assert not list((root / "notebooks" / name).glob("*.py"))
    # a text form is a file, not a folder: it is no assignment
    assert existing_assignments(root / "solutions") == ["01_toy", "02_toy"]
    out, _ = run_course(["verify", "--root", root])
    assert "clean" in out


def test_check_reports_a_text_form_out_of_sync_or_missing(tmp_path, run_course):
    root = make_course(tmp_path / "repo")
    run_course(["generate", "--root", root])
    edit_notebook(
        root / "solutions/01_toy/01_toy.ipynb",
        lambda nb: setattr(nb.cells[0], "source", nb.cells[0].source + "\nOne more line."),
    )
    (root / "solutions/02_toy.py").unlink()
    out, _ = run_course(["verify", "--root", root], retcode=1)
    assert "solutions/01_toy.py is out of sync with solutions/01_toy/01_toy.ipynb" in out
    assert "solutions/02_toy.py is missing" in out


def test_an_edit_in_the_text_comes_back_with_jupytext_update(tmp_path):
    """The documented way back (AUTHORING.md): ``jupytext --update --to ipynb`` on a copy of 01 changes
    only the edited line, and keeps cell ids, metadata and the notebook's JSON layout byte for byte."""
    folder = tmp_path / "solutions" / "01_rnn"
    folder.mkdir(parents=True)
    nb_path = folder / "01_rnn.ipynb"
    nb_path.write_bytes(notebook_path("01_rnn", SOLUTIONS).read_bytes())
    text_path = tmp_path / "solutions" / "01_rnn.py"
    text = text_form_path(SOLUTIONS, "01_rnn").read_text(encoding="utf-8")
    assert text.count("# ## Recap") == 1
    text_path.write_text(text.replace("# ## Recap", "# ## Recap: what we built"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "jupytext", "--update", "--to", "ipynb", str(text_path), "-o", str(nb_path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    expected = (
        notebook_path("01_rnn", SOLUTIONS)
        .read_text(encoding="utf-8")
        .replace('"## Recap\\n"', '"## Recap: what we built\\n"')
    )
    assert expected != notebook_path("01_rnn", SOLUTIONS).read_text(encoding="utf-8")
    assert nb_path.read_text(encoding="utf-8") == expected


def test_a_cell_loses_only_its_last_newline():
    """Jupytext cannot tell a newline that ends a cell from the blank line between cells, so a rebuilt
    cell ends without one: the same code. 01's cells end without one (its round trip is exact); a
    given cell ends with one, and `course generate` writes it again anyway."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("a = 1\n"), nbformat.v4.new_code_cell("b = 2")])
    assert [c.source for c in from_text(to_text(nb)).cells] == ["a = 1", "b = 2"]
