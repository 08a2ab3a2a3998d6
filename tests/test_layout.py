"""Does the code keep the layout's shape: the pipeline's folders import downwards only?"""

from __future__ import annotations

import ast

from instructor.paths import REPO_ROOT

#: instructor's folders and modules, top floor first: each may import only what stands lower. The floors
#: follow the pipeline: authoring (solutions -> release) below grading below reporting; above them the
#: class's loop (scheduling) and the settings that wire the chains; the term's use cases on top
FLOORS = [
    ["__main__"],
    ["cli"],
    ["demo", "hub"],
    ["term"],
    ["scheduling", "settings"],
    ["reporting"],
    ["grading"],
    ["authoring"],
    ["coursedir", "sandbox"],
    ["cells", "errors", "kernels", "paths", "terminal"],
]
RANK = {unit: len(FLOORS) - i for i, floor in enumerate(FLOORS) for unit in floor}


def _unit(module: str) -> str:
    """``instructor.grading.intake`` -> ``grading``; ``instructor`` -> ``instructor``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _imports(path) -> set[str]:
    """Every name a file imports, at the top or inside a function (``from a import b`` gives a and a.b)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return found


def test_every_unit_has_a_floor():
    """Is every folder and module of instructor/ placed on a floor (so a new one cannot dodge the check)?"""
    units = {
        p.stem if p.is_file() else p.name
        for p in (REPO_ROOT / "instructor").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
    }
    assert units == set(RANK)


def test_imports_point_down():
    """Does every import between instructor's folders go to a lower floor (no cycle, no arrow back up)?"""
    upward = []
    for path in sorted((REPO_ROOT / "instructor").rglob("*.py")):
        here = _unit(".".join(path.relative_to(REPO_ROOT).with_suffix("").parts))
        if here == "instructor":  # instructor/__init__.py imports nothing
            continue
        for name in _imports(path):
            there = _unit(name) if name.startswith("instructor.") else here
            if there != here and RANK[there] >= RANK[here]:
                upward.append(f"{path.relative_to(REPO_ROOT)} imports {name}")
    assert upward == []


def test_the_benchmark_does_not_import_the_tests():
    """Is the benchmark handed its mistake catalogue by path rather than importing tests/ (and the package too)?"""
    offenders = [
        str(p.relative_to(REPO_ROOT))
        for folder in ("instructor", "benchmarks")
        for p in sorted((REPO_ROOT / folder).rglob("*.py"))
        if any(n == "tests" or n.startswith("tests.") for n in _imports(p))
    ]
    assert offenders == []


def test_the_package_does_not_import_the_benchmarks():
    """Does nothing in instructor/ import benchmarks/ (a checkout's folder, not in the wheel)? `course bench`
    loads it by path, from a checkout only."""
    offenders = [
        f"{p.relative_to(REPO_ROOT)} imports {n}"
        for p in sorted((REPO_ROOT / "instructor").rglob("*.py"))
        for n in _imports(p)
        if n == "benchmarks" or n.startswith("benchmarks.")
    ]
    assert offenders == []


def test_the_floors_follow_the_pipeline():
    """Do the floors keep the pipeline's order: authoring below grading below reporting below the class's loop
    below the term's use cases, the settings that name no chain below authoring and those that wire the
    chains above reporting?"""
    assert RANK["authoring"] < RANK["grading"] < RANK["reporting"] < RANK["scheduling"] < RANK["term"]
    assert RANK["coursedir"] < RANK["authoring"]  # coursedir.nbgrader_settings: the settings that name no chain
    assert RANK["settings"] > RANK["reporting"]
