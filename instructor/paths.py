"""Where things live in the course repository."""

from __future__ import annotations

from pathlib import Path

#: The four assignments, in teaching order. Each is a folder under
#: ``solutions/`` (the source of truth) and ``notebooks/`` (generated).
ASSIGNMENTS = ("01_rnn", "02_seq2seq", "03_attention", "04_transformer")

REPO_ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO_ROOT / "solutions"
NOTEBOOKS = REPO_ROOT / "notebooks"
GRADER = REPO_ROOT / "grader"


def existing_assignments(root: Path = SOLUTIONS) -> list[str]:
    """The assignments that have a folder under ``root``, in teaching order.

    Folders not named in :data:`ASSIGNMENTS` come last, sorted.
    """
    present = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    known = [a for a in ASSIGNMENTS if a in present]
    return known + [a for a in present if a not in ASSIGNMENTS]


def notebook_path(assignment: str, root: Path = SOLUTIONS) -> Path:
    """``<root>/<assignment>/<assignment>.ipynb``: one notebook per assignment."""
    return root / assignment / f"{assignment}.ipynb"


#: the nbgrader course id of every course directory (its exchange folder, its hub groups)
COURSE_ID = "seqmodels"
