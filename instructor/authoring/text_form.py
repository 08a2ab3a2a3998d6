"""The text form of a solution notebook: jupytext's percent format, for diffs and review.

``solutions/<a>/<a>.ipynb``  ->  ``solutions/<a>.py`` (beside the assignment folder,
so nbgrader never copies it into a student version; :func:`instructor.paths.existing_assignments`
lists folders only, so it is no assignment either).

Every cell starts with a ``# %%`` line that carries its metadata (nbgrader's
included: ``# %% nbgrader={"grade": true, ...} course={"task": "rnn"}``), so the
notebook can be rebuilt from the text: same cells, sources and metadata. The
text has no header: nothing in it depends on the jupytext version, and
rebuilding adds no ``jupytext`` metadata to the notebook.

``course generate`` writes it; ``course verify`` names one out of sync with its
notebook (:func:`verify_text_forms`). The notebook stays the source: an edit
made in the text is brought back with ``jupytext --update`` (AUTHORING.md).
"""

from __future__ import annotations

from pathlib import Path

from instructor.cells import read
from instructor.paths import existing_assignments, notebook_path

FORMAT = "py:percent"


def text_form_path(solutions: Path, assignment: str) -> Path:
    """``solutions/<a>.py``, beside the assignment's folder."""
    return solutions / f"{assignment}.py"


def _config():
    from jupytext.config import JupytextConfiguration

    # every cell metadata key (nbgrader, course, tags, jupyter), no notebook metadata (no header)
    return JupytextConfiguration(cell_metadata_filter="all", notebook_metadata_filter="-all")


def to_text(nb) -> str:
    """The notebook in the percent format, with every cell's metadata and no header."""
    import jupytext

    return jupytext.writes(nb, fmt=FORMAT, config=_config())


def from_text(text: str):
    """The notebook a text form describes (cells, sources, cell metadata)."""
    import jupytext

    nb = jupytext.reads(text, fmt=FORMAT)
    nb.metadata.pop("jupytext", None)
    return nb


def write_text_form(solutions: Path, assignment: str) -> Path:
    """Write ``solutions/<a>.py`` from the notebook (only when it changed); returns its path."""
    path = text_form_path(solutions, assignment)
    text = to_text(read(notebook_path(assignment, solutions)))
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path


def verify_text_forms(root: Path) -> list[str]:
    """A text form missing, or out of sync with its notebook, for every assignment under ``root/solutions``."""
    solutions = root / "solutions"
    problems = []
    for name in existing_assignments(solutions):
        nb_path = notebook_path(name, solutions)
        if not nb_path.is_file():
            continue
        path = text_form_path(solutions, name)
        rel = f"solutions/{path.name}"
        if not path.is_file():
            problems.append(
                f"{rel} is missing: the text form of solutions/{name}/{name}.ipynb (run `course generate {name}`)."
            )
        elif path.read_text(encoding="utf-8") != to_text(read(nb_path)):
            problems.append(
                f"{rel} is out of sync with solutions/{name}/{name}.ipynb (run `course generate {name}`; "
                f'to keep an edit made in the text, see AUTHORING.md, "Text forms").'
            )
    return problems
