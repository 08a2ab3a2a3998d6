"""Cell and course factories: small nbgrader courses built in a temporary folder, and their checks."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook


def _nbgrader(grade_id: str, *, grade=False, solution=False, locked=False, points=None) -> dict:
    meta = {"grade": grade, "solution": solution, "locked": locked, "grade_id": grade_id, "schema_version": 3}
    if points is not None:
        meta["points"] = points
    return meta


def solution_cell(grade_id: str, source: str, library: bool = True):
    cell = new_code_cell(source, metadata={"nbgrader": _nbgrader(grade_id, solution=True)})
    if library:
        cell.metadata["tags"] = ["library"]
    return cell


def test_cell(grade_id: str, task: str, source: str, points: int = 1):
    return new_code_cell(
        source,
        metadata={"nbgrader": _nbgrader(grade_id, grade=True, locked=True, points=points), "course": {"task": task}},
    )


def answer_cell(grade_id: str, source: str, points: int = 1):
    return new_markdown_cell(
        source, metadata={"nbgrader": _nbgrader(grade_id, grade=True, solution=True, points=points)}
    )


def question_cell(grade_id: str, source: str):
    """A locked markdown cell; it may hold the grader's mark scheme."""
    return new_markdown_cell(source, metadata={"nbgrader": _nbgrader(grade_id, locked=True)})


WHY_QUESTION = """Why does add commute? (1 point)

### BEGIN MARK SCHEME
Model answer: addition of numbers is commutative. Rubric: a grader-only rubric line.
### END MARK SCHEME
"""


def given_cell(refs: list[str]):
    return new_code_cell(
        "", metadata={"nbgrader": _nbgrader("given_code", locked=True), "course": {"given": refs}, "tags": ["library"]}
    )


ADD = '''def add(a, b):
    """Return a + b."""
    ### BEGIN SOLUTION
    total_of_both_numbers = a + b
    return total_of_both_numbers
    ### END SOLUTION
'''

ADD_TEST = """# Check that add adds
assert add(1, 2) == 3
### BEGIN HIDDEN TESTS
assert add(-40, 2) == -38  # a hidden, very secret check
### END HIDDEN TESTS
"""


def toy_notebooks() -> dict[str, nbformat.NotebookNode]:
    """Two toy assignments: 01_toy defines add(); 02_toy is given it and uses it."""
    first = new_notebook(
        cells=[
            new_markdown_cell(
                "# Toy 1\n\nFor all numbers, $a + b = b + a$ and $$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}.$$"
            ),
            new_code_cell("import math", metadata={"tags": ["library"]}),
            solution_cell("add", ADD),
            test_cell("add__values", "add", ADD_TEST, points=2),
            question_cell("why_question", WHY_QUESTION),
            answer_cell(
                "why", "### BEGIN SOLUTION\nBecause addition commutes, obviously enough.\n### END SOLUTION", points=1
            ),
        ]
    )
    second = new_notebook(
        cells=[
            new_markdown_cell("# Toy 2"),
            given_cell(["01_toy:add"]),
            solution_cell(
                "double",
                "def double(x):\n    ### BEGIN SOLUTION\n    doubled_value_of_x = add(x, x)\n"
                "    return doubled_value_of_x\n    ### END SOLUTION\n",
            ),
            test_cell("double__values", "double", "# Check that double doubles\nassert double(4) == 8\n", points=1),
        ]
    )
    for nb in (first, second):
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
    return {"01_toy": first, "02_toy": second}


def make_course(root: Path) -> Path:
    """A course repository with toy solutions; returns ``root``."""
    for name, nb in toy_notebooks().items():
        folder = root / "solutions" / name
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / f"{name}.ipynb"))
    return root


def toy_submissions(folder: Path, repo: Path) -> Path:
    """``folder/{ref,blank}/<a>/<a>.ipynb``: the reference and the blank notebook of each toy assignment of ``repo``."""
    for student, source in (("ref", "solutions"), ("blank", "notebooks")):
        for name in ("01_toy", "02_toy"):
            target = folder / student / name
            target.mkdir(parents=True)
            shutil.copy(repo / source / name / f"{name}.ipynb", target)
    return folder


def released_toy_class(tmp: Path) -> tuple[Path, Path]:
    """The toy course released under ``tmp/repo``, and ``tmp/subs/{ref,blank}/<a>/<a>.ipynb``.

    Returns (tmp, repository root): a reference and a blank submission of each toy assignment.
    """
    from instructor.cli import main

    root = make_course(tmp / "repo")
    assert main(["generate", "--root", str(root)]) == 0
    toy_submissions(tmp / "subs", root)
    return tmp, root


def copy_course_dir(source: Path, target: Path) -> Path:
    """A course directory of its own at ``target``, copied from ``source`` (a graded class costs seconds per
    submission; a copy costs milliseconds). `course init` points the copy's settings at its own exchange and
    gradebook: the original's name them by absolute path. Returns ``target``."""
    import contextlib
    import io

    from instructor.cli import main

    shutil.copytree(source, target, symlinks=True)
    args = ["init", str(target), "--exchange", str(target / "exchange"), "--db", f"sqlite:///{target / 'gradebook.db'}"]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(args) == 0
    return target


def edit_notebook(path: Path, change) -> None:
    """Apply ``change(nb)`` to the notebook at ``path`` and save it."""
    nb = nbformat.read(str(path), as_version=4)
    change(nb)
    nbformat.write(nb, str(path))


def assert_one_sentence_error(err: str) -> None:
    """Is ``err`` one line from `course`, with no traceback?"""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("course ")


#: nbgrader_config.py as `course init` wrote it before the settings became data (nbgrader_config.json): Python
#: that held the values (and, earlier still, named course.* modules: see test_directory)
OLDER_SETTINGS = """\"\"\"nbgrader configuration of the seqmodels course directory (written by `course init`).

`course grade`, `export`, `feedback`, `formgrader` and nbgrader's own commands
run in this folder (`nbgrader release_assignment`, `collect`, `generate_feedback`,
`release_feedback`, the formgrader) all read this file, so they share one set of
settings. Edit the values below, or run `course init` again with new options.
\"\"\"

from pathlib import Path

from instructor.coursedir.due import read_due
from instructor.settings import configure

c = get_config()  # noqa: F821  (provided by traitlets when this file is loaded)
# the course settings: course id, hidden tests stripped from every feedback path, sandboxed autograde
configure(c, Path(__file__).resolve().parent)

# where students fetch and submit (root's folders; students write only into inbound: docs/trust.md)
c.Exchange.root = {exchange!r}
# the gradebook (SQLite here, or postgresql://user@host/db)
c.CourseDirectory.db_url = {db_url!r}
# late work: this percent of the notebook's autograded points per day (or part of a day) late
c.AssignLatePenalties.plugin_class = "instructor.coursedir.late.PercentPerDay"
c.PercentPerDay.percent_per_day = {late_penalty!r}
# due dates (UTC): data in due.json beside this file, which `course init --due` writes (on the hub the staff
# may, while this file, which root runs, stays root's); `course grade` and `course release-to-exchange` copy them
# into the gradebook
c.DueDates.dates = read_due(Path(__file__).resolve().parent)
# the course repository (a checkout holding solutions/) that `course release-to-exchange` and `course grade`
# release and grade: never inside the installed package, which every student's server can read
c.CourseRepository.root = {root!r}
"""


def older_course_dir(folder: Path, exchange: Path, late_penalty: float = 10.0) -> Path:
    """A course directory as an older `course init` left it: its settings in nbgrader_config.py, no JSON."""
    folder.mkdir(parents=True, exist_ok=True)
    text = OLDER_SETTINGS.format(
        exchange=str(exchange), db_url=f"sqlite:///{folder / 'gradebook.db'}", late_penalty=late_penalty, root=None
    )
    (folder / "nbgrader_config.py").write_text(text)
    return folder
