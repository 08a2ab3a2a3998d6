"""The two ways to install the course install the same packages."""

from __future__ import annotations

import re
import tomllib

import yaml

from instructor.paths import REPO_ROOT


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_matches_pyproject():
    """Does environment.yml pin the same packages, with the same ranges, as pyproject.toml?"""
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    test = [
        r
        for req in extras["test"]  # the test extra names others of the project's own: their packages
        for r in (extras[req.split("[")[1].rstrip("]")] if _name(req) == project["name"] else [req])
    ]
    wanted = {_name(r): r.replace(" ", "") for r in project["dependencies"] + test}
    env = yaml.safe_load((REPO_ROOT / "environment.yml").read_text())
    listed = {}
    for dep in env["dependencies"]:
        for req in dep["pip"] if isinstance(dep, dict) else [dep]:
            if req.startswith("-e") or _name(req) in {"python", "pip"}:
                continue
            listed[_name(req)] = req.replace(" ", "")
    assert listed == wanted
    assert "python=3.11" in env["dependencies"]
    assert any(isinstance(d, dict) and "-e .[test]" in d["pip"] for d in env["dependencies"])


def test_every_package_is_listed():
    """Does pyproject.toml list every package folder of course/, instructor/ and data/, so a plain install has
    them all?"""
    tool = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    homes = {"course": REPO_ROOT / "course", "instructor": REPO_ROOT / "instructor", "course_data": REPO_ROOT / "data"}
    assert tool["package-dir"] == {"course_data": "data"}
    found = {
        ".".join([top, *init.parent.relative_to(home).parts])
        for top, home in homes.items()
        for init in home.rglob("__init__.py")
    }
    assert sorted(tool["packages"]) == sorted(found)
    # the templates of the feedback page and the formgrader's submission view travel as package data
    feedback = REPO_ROOT / "instructor/reporting/feedback"
    packaged = {p for pattern in tool["package-data"]["instructor.reporting.feedback"] for p in feedback.glob(pattern)}
    assert packaged == {p for p in (feedback / "templates").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    for pattern in tool["package-data"]["instructor.reporting.feedback"]:
        found = {p.name for p in feedback.glob(pattern)}
        assert {"conf.json", "index.html.j2"} <= found, pattern
    templates = {p.parent.name for p in (REPO_ROOT / "instructor/reporting/feedback/templates").glob("*/index.html.j2")}
    assert templates == {"feedback", "formgrade"}


def test_no_benchmark_is_packaged():
    """Is benchmarks/ (the checkout's tool, `python -m benchmarks`) left out of the wheel: no package of it listed,
    and the packages a list, not found by a search that could pick it up? (tests/test_installed.py reads the
    built wheel.)"""
    tool = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert isinstance(tool["packages"], list)
    assert not [p for p in tool["packages"] if p.split(".")[0] == "benchmarks" or "bench" in p.split(".")]
    assert not [p for p in tool.get("package-data", {}) if "bench" in p]
    assert (REPO_ROOT / "benchmarks" / "__main__.py").is_file()
