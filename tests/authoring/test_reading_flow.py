"""The reading flow of every solution notebook (AUTHORING.md, "Cells"): short prose, a picture before
each new architecture, one visible test per task, the cell convention, exercises, one definition a cell."""

from __future__ import annotations

import ast
import re

import nbformat
import pytest

from instructor.cells import grade_id, read
from instructor.grading.checks.split import statement_names
from instructor.paths import NOTEBOOKS as STUDENT_VERSIONS
from instructor.paths import SOLUTIONS, notebook_path
from tests.factories import edit_notebook, make_course

NOTEBOOKS = ("01_rnn", "02_seq2seq", "03_attention", "04_transformer")

#: the most characters of a markdown cell a student sees
MAX_PROSE = 1500
#: the tasks whose solution cell must follow a figure (after the previous task's solution cell)
PICTURED = {
    "01_rnn": ["rnn"],
    "02_seq2seq": ["seq2seq"],
    "03_attention": ["attend", "attention_seq2seq"],
    "04_transformer": ["multihead_attention", "masks", "encoder", "decoder", "transformer"],
}
FIGURE = re.compile(r"!\[[^\]]+\]\(figures/[^)\s]+\.svg\)")
MARK_SCHEME = re.compile(r"### BEGIN MARK SCHEME.*?### END MARK SCHEME\n?", re.S)


def _nb(name):
    path = notebook_path(name, SOLUTIONS)
    if not path.is_file():
        pytest.skip(f"{name} has no solution notebook")
    return read(path)


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _is_test(cell) -> bool:
    return cell.cell_type == "code" and bool(_meta(cell).get("grade"))


def _is_solution(cell) -> bool:
    return cell.cell_type == "code" and bool(_meta(cell).get("solution"))


def _task(cell) -> str:
    """The task a graded test cell checks: ``metadata.course.task``, else its grade_id up to ``__``."""
    return cell.metadata.get("course", {}).get("task") or grade_id(cell).split("__")[0]


def seen_by_students(source: str) -> str:
    """A markdown cell as students read it: without its mark scheme (nbgrader removes it from their copy)."""
    return MARK_SCHEME.sub("", source)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_prose_cells_are_short(name):
    """(a) Is every markdown cell, as students see it (the mark scheme left out), at most 1,500 characters?"""
    long = [
        (grade_id(c) or c.get("id"), len(seen_by_students(c.source)))
        for c in _nb(name).cells
        if c.cell_type == "markdown" and len(seen_by_students(c.source)) > MAX_PROSE
    ]
    assert long == [], f"{name}: split these cells (the model / on a batch / your task): {long}"


#: 04's prose, as students read it, at most this many words (issue 66: 6,629 before, then 5,499 with its additions)
MAX_WORDS_04 = 5500


def test_04_prose_stays_within_its_words():
    """Does 04's prose in the student version (generated from solutions/) keep to :data:`MAX_WORDS_04` words?"""
    student = read(notebook_path("04_transformer", STUDENT_VERSIONS))
    prose = [c.source for c in student.cells if c.cell_type == "markdown"]
    words = sum(len(text.split()) for text in prose)
    assert words <= MAX_WORDS_04, f"04's prose is {words} words: say it shorter (at most {MAX_WORDS_04})"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_figure_comes_before_each_new_architecture(name):
    """(b) Between the previous task's solution cell and the solution cell of each task of PICTURED,
    does a markdown cell show a figure (``![..](figures/x.svg)``)?"""
    cells = _nb(name).cells
    solutions = [i for i, c in enumerate(cells) if _is_solution(c)]
    missing = []
    for task in PICTURED[name]:
        at = next((i for i in solutions if grade_id(cells[i]) == task), None)
        assert at is not None, f"{name}: no solution cell {task!r}"
        start = max([i for i in solutions if i < at], default=-1)
        if not any(c.cell_type == "markdown" and FIGURE.search(c.source) for c in cells[start + 1 : at]):
            missing.append(task)
    assert missing == [], f"{name}: no figure before the solution cell of {missing}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_figure_has_a_caption(name):
    """(b) Is every figure followed by a line ``*Figure: ...*`` that ties it to the text?"""
    bare = []
    for cell in _nb(name).cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.splitlines()
        for i, line in enumerate(lines):
            if FIGURE.search(line):
                after = [ln for ln in lines[i + 1 :] if ln.strip()]
                if not after or not after[0].startswith("*Figure: "):
                    bare.append(grade_id(cell) or cell.get("id"))
    assert bare == [], f"{name}: figures without a '*Figure: ...*' line under them: {bare}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_one_visible_test_per_task_and_no_hidden_outputs(name):
    """(c) Does the first graded test cell of each task stay visible, every other one carry
    ``metadata.jupyter.source_hidden: true``, and no cell hide its outputs?"""
    seen, wrong = set(), []
    for cell in _nb(name).cells:
        jupyter = cell.metadata.get("jupyter", {})
        if jupyter.get("outputs_hidden") or cell.metadata.get("collapsed"):
            wrong.append(f"{grade_id(cell) or cell.get('id')} hides its outputs")
        if not _is_test(cell):
            continue
        hidden = jupyter.get("source_hidden") is True
        first = _task(cell) not in seen
        seen.add(_task(cell))
        if first and hidden:
            wrong.append(f"{grade_id(cell)} is the first test of its task and must stay visible")
        if not first and not hidden:
            wrong.append(f"{grade_id(cell)} needs metadata.jupyter.source_hidden = true")
    assert wrong == [], f"{name}: {wrong}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_markdown_cells_are_locked_with_an_id(name):
    """(d) Does every markdown cell carry nbgrader metadata with a grade_id, locked (a written answer aside)?"""
    wrong = []
    for cell in _nb(name).cells:
        if cell.cell_type != "markdown":
            continue
        meta = _meta(cell)
        answer = meta.get("grade") and meta.get("solution")
        if not meta.get("grade_id") or meta.get("schema_version") != 3:
            wrong.append(f"{cell.get('id')}: no nbgrader grade_id")
        elif not answer and not (
            meta.get("locked") is True and meta.get("grade") is False and meta.get("solution") is False
        ):
            wrong.append(f"{meta['grade_id']}: not locked prose")
    assert wrong == [], f"{name}: {wrong}"


def underscore_names(source: str) -> set[str]:
    """Names a cell binds (variables, functions, classes, loop targets) that start with one underscore."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
    return {n for n in found if re.match(r"_[A-Za-z]", n)}


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_test_cells_use_plain_names(name):
    """(d) Does no graded test cell bind a name with a leading underscore (``x``, not ``_x``)?"""
    found = {grade_id(c): sorted(underscore_names(c.source)) for c in _nb(name).cells if _is_test(c)}
    assert {k: v for k, v in found.items() if v} == {}, f"{name}: rename these"


def test_the_name_scan_finds_an_underscore():
    assert underscore_names("_x = 1\ndef _f(y):\n    return y\nfor _i in []: pass\nz = _x") == {"_x", "_f", "_i"}
    assert underscore_names("x, target = 1, 2\n__all__ = []\n_ = 3") == set()


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_exercises_come_before_the_recap(name):
    """(e) Does the notebook close with an ungraded ``## Exercises`` section of 4 to 6 numbered
    questions, before its Recap?"""
    cells = _nb(name).cells
    heads = [
        (i, c.source.splitlines()[0].strip())
        for i, c in enumerate(cells)
        if c.cell_type == "markdown" and c.source.strip()
    ]
    exercises = [i for i, head in heads if head == "## Exercises"]
    recap = [i for i, head in heads if head.startswith("## Recap")]
    assert exercises, f"{name}: no '## Exercises' section"
    assert recap and exercises[-1] < recap[-1], f"{name}: the exercises must come before the Recap"
    text = "\n".join(c.source for c in cells[exercises[-1] : recap[-1]] if c.cell_type == "markdown")
    count = len(re.findall(r"^\d+\. ", text, re.M))
    assert 4 <= count <= 6, f"{name}: {count} numbered exercises, expected 4 to 6"
    assert not any(_meta(c).get("grade") for c in cells[exercises[-1] : recap[-1]]), f"{name}: exercises are ungraded"


def definitions(source: str) -> list[str]:
    """The functions and classes a cell defines at its top level."""
    return [
        n.name for n in ast.parse(source).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_one_definition_per_solution_cell(name):
    """(f) Does every solution cell define at most one top-level function or class?"""
    many = {grade_id(c): definitions(c.source) for c in _nb(name).cells if _is_solution(c)}
    assert {k: v for k, v in many.items() if len(v) > 1} == {}, f"{name}: put each of these in a cell of its own"


def test_nbgrader_keeps_a_hidden_source_in_the_student_version(tmp_path):
    """Does nbgrader's generate_assignment keep ``metadata.jupyter.source_hidden`` of a test cell
    in the student version (so JupyterLab shows the cell collapsed)?"""
    from instructor.cli import main

    root = make_course(tmp_path / "repo")
    path = root / "solutions/01_toy/01_toy.ipynb"
    tests = [grade_id(c) for c in read(path).cells if _is_test(c)]
    assert tests, "the toy notebook has a graded test cell"

    def hide(nb):
        for cell in nb.cells:
            if grade_id(cell) == tests[0]:
                cell.metadata["jupyter"] = {"source_hidden": True}

    edit_notebook(path, hide)
    assert main(["generate", "--root", str(root)]) == 0
    student = nbformat.read(str(root / "notebooks/01_toy/01_toy.ipynb"), as_version=4)
    cell = next(c for c in student.cells if grade_id(c) == tests[0])
    assert cell.metadata.get("jupyter") == {"source_hidden": True}
    assert cell.get("outputs") == []


def _bound_and_read(source: str) -> tuple[set[str], set[str]]:
    """(names a cell binds at its top level, names it reads before binding them itself), counted statement by
    statement as the grader's plans count them (``split.statement_names``)."""
    bound: set[str] = set()
    read_first: set[str] = set()
    try:
        body = ast.parse(
            "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
        ).body
    except SyntaxError:
        return bound, read_first
    for stmt in body:
        reads, binds = statement_names(stmt)
        read_first |= reads - bound
        bound |= binds
    return bound, read_first


def clobbered_names(nb) -> list[tuple[str, str, str]]:
    """(test cell, name, later cell): a test cell rebinds a name the notebook's own cells bound, and a later cell
    of the notebook reads it, so it gets the test's object instead (02's trap model once replaced the trained one)."""
    owner: dict[str, str] = {}  # name -> the grade_id of the test cell that bound it last ("" for a notebook cell)
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        meta = _meta(cell)
        bound, read_first = _bound_and_read(cell.source)
        is_test = bool(meta.get("grade")) and not meta.get("solution")
        if not is_test:
            for name in sorted(read_first):
                if owner.get(name):
                    found.append((owner[name], name, grade_id(cell) or f"cell {index}"))
        for name in bound:
            if is_test and name in owner:  # a name the notebook bound before, now the test's
                owner[name] = grade_id(cell)
            elif not is_test:
                owner[name] = ""
    return found


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_no_test_cell_hands_a_later_cell_its_own_objects(name):
    """Does every cell after a test read the notebook's own objects (the trained model), not a test's stand-in?"""
    assert clobbered_names(_nb(name)) == []


def test_the_clobber_check_finds_02s_old_trap_model():
    """The check finds the test cell that once rebound 02's trained `model` to its trap, before the beam table."""
    nb = _nb("02_seq2seq")
    cell = next(c for c in nb.cells if grade_id(c) == "beam_search__beats_greedy_trap")
    cell.source = cell.source.replace("trap_model", "model")
    assert clobbered_names(nb)[0] == ("beam_search__beats_greedy_trap", "model", "cell 33")  # then Part E's
