"""The bundle's ``helpers/``: the small package students install with ``pip install ./helpers``.

It holds the student package (``course/``) copied whole, the requirements a
student needs (with the course's ranges), and Jupyter settings that keep only
nbgrader's Validate button and let Validate show each message whole
(:data:`JUPYTER_CONFIG`).
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

from instructor.coursedir.nbgrader_settings import VALIDATE_WIDTH
from instructor.paths import REPO_ROOT

#: The package the notebooks import, shipped whole.
STUDENT_PACKAGE = "course"
#: Packages (by distribution name) a student needs to run the notebooks.
STUDENT_REQUIREMENTS = (
    "jupyterlab",
    "notebook",
    "numpy",
    "mygrad",
    "mynn",
    "noggin",
    "matplotlib",
    "ipywidgets",
    "nbgrader",  # the Validate button; the rest of its interface is switched off (JUPYTER_CONFIG)
    "threadpoolctl",  # course.runtime.tune_blas: one BLAS thread where NumPy was imported before course
)
HELPERS_NAME = "seqmodels-course-helpers"


def requirements(root: Path = REPO_ROOT) -> list[str]:
    """The student requirements with the ranges of the course's pyproject.toml."""
    deps = tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    by_name = {re.split(r"[<>=!~ \[;]", d, maxsplit=1)[0].lower(): d for d in deps}
    return [by_name[name] for name in STUDENT_REQUIREMENTS]


#: nbgrader's JupyterLab plugins a student does not need: the instructor's (formgrader,
#: Create Assignment), the exchange's lists, and the "Nbgrader" main menu that opens them.
#: ``@jupyter/nbgrader:validate-assignment`` (the Validate button) stays on.
LAB_PLUGINS_OFF = tuple(
    f"@jupyter/nbgrader:{plugin}"
    for plugin in ("formgrader", "create-assignment", "course-list", "assignment-list", "menu")
)
#: nbgrader's server extensions behind those plugins; ``validate_assignment`` stays on.
SERVER_EXTENSIONS_OFF = tuple(
    f"nbgrader.server_extensions.{extension}" for extension in ("formgrader", "course_list", "assignment_list")
)


def _jupyter_config() -> dict[str, dict]:
    """Jupyter settings files, by path under ``sys.prefix``, that keep only nbgrader's Validate.

    They are what ``jupyter labextension disable --level=sys_prefix`` (then
    ``lock``) and ``jupyter server extension disable --sys-prefix`` write:
    page_config.json lists the plugins off, and locked, so JupyterLab's plugin
    manager does not offer them; one file per server extension, named after
    it. Jupyter merges a ``.d`` folder's files in name order, and
    ``nbgrader.server_extensions.*.json`` sorts after the ``nbgrader.json``
    that nbgrader installs to turn them all on, so these win.
    """
    off = {plugin: True for plugin in LAB_PLUGINS_OFF}
    files: dict[str, dict] = {
        "etc/jupyter/labconfig/page_config.json": {"disabledExtensions": off, "lockedExtensions": off}
    }
    for extension in SERVER_EXTENSIONS_OFF:
        files[f"etc/jupyter/jupyter_server_config.d/{extension}.json"] = {
            "ServerApp": {"jpserver_extensions": {extension: False}}
        }
    # nbgrader reads nbgrader_config.json from every Jupyter config folder, sys.prefix's included, in
    # `nbgrader validate` and in the Validate button's server extension: whole messages in both
    files["etc/jupyter/nbgrader_config.json"] = {"Validator": {"width": VALIDATE_WIDTH}}
    return files


#: The settings above, as installed (path under ``sys.prefix`` -> JSON).
JUPYTER_CONFIG = _jupyter_config()


def _config_source(installed: str) -> str:
    """Where the helper package keeps an installed settings file: ``etc/jupyter/x`` -> ``jupyter-config/x``."""
    return "jupyter-config/" + installed.removeprefix("etc/jupyter/")


def _helpers_pyproject(deps: list[str]) -> str:
    """The helper package's pyproject.toml: the package ``course``, its requirements, the Jupyter settings."""
    by_folder: dict[str, list[str]] = {}
    for installed in JUPYTER_CONFIG:
        by_folder.setdefault(installed.rpartition("/")[0], []).append(_config_source(installed))
    dependencies = "".join(f'    "{d}",\n' for d in deps)
    data_files = "".join(f'"{folder}" = {json.dumps(sources)}\n' for folder, sources in by_folder.items())
    return (
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n\n'
        f'[project]\nname = "{HELPERS_NAME}"\nversion = "0.1.0"\nrequires-python = ">=3.11,<3.13"\n'
        f"dependencies = [\n{dependencies}]\n\n"
        '[tool.setuptools.packages.find]\ninclude = ["course", "course.*"]\n\n'
        "# Jupyter settings, installed under the environment's prefix (the venv): Validate only\n"
        f"[tool.setuptools.data-files]\n{data_files}"
    )


def write_helpers(target: Path, root: Path = REPO_ROOT) -> None:
    """The installable helper package: the student package ``course/`` as it is, its requirements, Jupyter settings."""
    shutil.copytree(
        root / STUDENT_PACKAGE, target / STUDENT_PACKAGE, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    for installed, content in JUPYTER_CONFIG.items():
        source = target / _config_source(installed)
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(json.dumps(content, indent=2) + "\n")
    (target / "pyproject.toml").write_text(_helpers_pyproject(requirements(root)))
