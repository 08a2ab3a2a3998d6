"""What putting the assignments into a course directory decides from what it read: no disk, no gradebook.

``into_course_dir`` reads first (the solution notebooks with their given cells
regenerated, what the gradebook records of each assignment), decides, then
writes; the decisions are tested here on values alone.
"""

from __future__ import annotations

import nbformat
import pytest

from instructor.authoring.given import GIVEN_HEADER, given_source
from instructor.coursedir.gradebook import changed_tests, refused_cells


def _cell(gid: str, source: str = "", **nbgrader) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade_id": gid, **nbgrader}
    return cell


def _notebook(*cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nb


#: a source notebook: an answer cell, a graded test cell, a locked cell, and a cell nbgrader does not record
SOURCE = _notebook(
    _cell("answer", "x = 1", solution=True),
    _cell("check", "assert x == 1", grade=True, points=1),
    _cell("setup", "import math", locked=True),
    nbformat.v4.new_markdown_cell("text"),
)
RECORDED = ({"answer", "check", "setup"}, {"check": "assert x == 1"})


def test_nothing_recorded_or_the_same_cells_is_not_refused():
    """Is an assignment without submissions, or with the cells the gradebook records, accepted?"""
    assert refused_cells("01_rnn", None, SOURCE) == ""
    assert refused_cells("01_rnn", RECORDED, SOURCE) == ""


def test_a_removed_or_added_graded_cell_is_refused_by_name():
    """Is a source whose recorded cells differ refused in one sentence naming the removed and added cells?"""
    recorded = ({"answer", "check", "gone"}, {})
    why = refused_cells("01_rnn", recorded, SOURCE)
    assert why.startswith("01_rnn cannot be regraded: its nbgrader cells changed")
    assert "(removed: gone; added: setup)" in why and "\n" not in why


def test_only_test_cells_whose_code_changed_are_named():
    """Is each recorded test cell whose code changed named once, and nothing when none changed or none was
    recorded before or after?"""
    before = ({"a", "b"}, {"a": "assert f() == 1", "b": "assert g() == 2"})
    after = ({"a", "b", "c"}, {"a": "assert f() == 3", "b": "assert g() == 2", "c": "assert h()"})
    [line] = changed_tests("01_rnn", before, after)
    assert line.startswith("01_rnn: test cell a changed since submissions were graded")
    assert changed_tests("01_rnn", before, before) == []
    assert changed_tests("01_rnn", None, after) == changed_tests("01_rnn", before, None) == []


def test_a_given_cell_is_made_from_the_earlier_notebooks_it_is_handed():
    """Is a given cell's source the referenced cells of the notebooks handed in, markers removed, in order?"""
    earlier = {
        "01_rnn": _notebook(_cell("step", "### BEGIN SOLUTION\ndef step():\n    return 1\n### END SOLUTION")),
        "02_seq2seq": _notebook(_cell("pad", "def pad(): pass")),
    }
    source = given_source(["02_seq2seq:pad", "01_rnn:step"], earlier)
    assert source.startswith(GIVEN_HEADER)
    assert source.index("from 02_seq2seq: pad") < source.index("from 01_rnn: step")
    assert "def step():\n    return 1" in source and "BEGIN SOLUTION" not in source


def test_a_given_cell_naming_a_missing_cell_says_which():
    """Does a reference to a cell the earlier notebook lacks raise, naming the reference?"""
    with pytest.raises(KeyError, match="01_rnn:nope"):
        given_source(["01_rnn:nope"], {"01_rnn": _notebook(_cell("step", "pass"))})
