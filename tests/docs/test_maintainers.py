"""Does docs/maintainers.md describe the house as the code has it: the floors in order, files that exist?"""

from __future__ import annotations

import re

from instructor.paths import REPO_ROOT
from tests.test_layout import FLOORS, RANK

PAGE = REPO_ROOT / "docs" / "maintainers.md"


def _floors_table() -> list[tuple[int, str]]:
    lines = PAGE.read_text().splitlines()
    start = lines.index("% floors of tests/test_layout.py")
    rows = []
    for line in lines[start + 1 :]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0].isdigit():
            rows.append((int(cells[0]), cells[1].strip("`")))
    return rows


def test_the_floors_are_the_layout_tests():
    """Does the page list every room of tests/test_layout.py, top floor first, on its floor?"""
    assert _floors_table() == [(RANK[unit], unit) for floor in FLOORS for unit in floor]


def test_every_path_named_exists():
    """Does every file or folder the page names in code exist (``grading/intake.py`` under instructor/)?"""
    rooms = "|".join(p.name for p in (REPO_ROOT / "instructor").iterdir() if p.is_dir())
    top = "instructor|tests|course|scripts|solutions|docs"
    named = re.findall(rf"`((?:{top}|{rooms})/[\w/.]*)`", PAGE.read_text())
    assert len(named) > 20, "the page names few paths: has the pattern broken?"
    missing = [p for p in named if not (REPO_ROOT / p).exists() and not (REPO_ROOT / "instructor" / p).exists()]
    assert missing == []


def test_the_readme_tree_names_every_room():
    """Does the README's tree name every folder of instructor/ (hub/ and term/ included)?"""
    readme = (REPO_ROOT / "README.md").read_text()
    tree = readme[readme.index("instructor/    ") : readme.index("grader/ ")]
    folders = sorted(p.name for p in (REPO_ROOT / "instructor").iterdir() if (p / "__init__.py").is_file())
    assert [f for f in folders if not re.search(rf"\b{f}\b", tree)] == []
