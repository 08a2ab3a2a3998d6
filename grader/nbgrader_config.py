"""nbgrader configuration of the course repository.

nbgrader reads this file when it runs in this folder (``cd grader && nbgrader
generate_assignment 01_rnn --no-db --force``); the ``course`` command applies
the same settings from anywhere. Source notebooks live in ``solutions/``,
student versions in ``notebooks/`` (paths are relative to the repository root).
"""

from pathlib import Path

from instructor.settings import configure

c = get_config()  # noqa: F821  (provided by traitlets when nbgrader loads this file)
configure(c, Path(__file__).resolve().parent.parent, source="solutions", release="notebooks")
