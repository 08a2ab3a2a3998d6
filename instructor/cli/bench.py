"""course bench: the checkout's benchmarks (benchmarks/, ``python -m benchmarks``), when `course` runs from one.

The benchmarks are a maintainer's tool outside the installed package. Run from a checkout, this verb reads
their options from benchmarks/command.py and runs them; installed from a wheel, it says in one line where
they are.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType

from instructor.errors import CourseError
from instructor.paths import REPO_ROOT

NAME = "bench"
HELP = "Run the checkout's benchmarks (`python -m benchmarks`): speed and accuracy, or each model against PyTorch."
EXAMPLES = ""
#: what `course bench` says when it runs from an installed package
CHECKOUT_ONLY = (
    "the benchmarks are a tool of the course repository's checkout, not of the installed package: "
    "in a checkout, run `python -m benchmarks --help`."
)


def checkout_benchmarks() -> ModuleType | None:
    """benchmarks/command.py of the checkout `course` runs from, or None when it runs from a wheel.

    Loaded by path (the checkout need not be on ``sys.path``); its package file imports nothing.
    """
    folder = REPO_ROOT / "benchmarks"
    if not ((REPO_ROOT / "pyproject.toml").is_file() and (folder / "command.py").is_file()):
        return None
    if "benchmarks" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "benchmarks", folder / "__init__.py", submodule_search_locations=[str(folder)]
        )
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules["benchmarks"] = package
        spec.loader.exec_module(package)
    return importlib.import_module("benchmarks.command")


def add_arguments(p):
    command = checkout_benchmarks()
    if command is None:
        p.description = CHECKOUT_ONLY
        return
    p.description, p.epilog = command.HELP, command.EXAMPLES
    command.add_arguments(p)


def run(args) -> int:
    command = checkout_benchmarks()
    if command is None:
        raise CourseError(CHECKOUT_ONLY)
    return command.run(args)
