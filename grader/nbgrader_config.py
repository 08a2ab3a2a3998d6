"""nbgrader configuration of the course repository.

Run nbgrader from the repository root with ``--config grader/nbgrader_config.py``,
or use the ``course`` command, which applies the same settings. Source
notebooks live in ``solutions/``, student versions in ``notebooks/``.
"""

from pathlib import Path

from course.nbgrader_settings import configure

c = get_config()  # noqa: F821  (provided by traitlets when nbgrader loads this file)
configure(c, Path(__file__).resolve().parent.parent, source="solutions", release="notebooks")
