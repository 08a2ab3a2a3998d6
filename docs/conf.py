"""Sphinx configuration of the course's documentation site (built by tests/docs/test_site.py).

Sphinx rather than MkDocs: the student package's API comes from its numpydoc
docstrings (autodoc + napoleon, as MyGrad documents itself), the command
reference from the `course` parser itself (each verb's own --help), so neither can
drift from the code; pages are Markdown through MyST, like the README.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "Sequence models, from RNN to Transformer"
author = "the course's authors"
copyright = "the course's authors, MIT licence"

extensions = [
    "myst_parser",  # Markdown pages
    "sphinx.ext.autodoc",  # the student package's API, from its docstrings
    "sphinx.ext.napoleon",  # numpydoc sections (Parameters, Returns, Notes)
    "course_help",  # `course` commands, from instructor.cli.build_parser (docs/_ext/course_help.py)
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# A link to a missing page or heading is a warning, so an error under -W (tests/docs/test_site.py).
# Not nitpicky: numpydoc types such as "shape=(T, N)" are prose, not references.
myst_heading_anchors = 3  # links to a heading of another page: [the term](instructors.md#a-term-step-by-step)
myst_enable_extensions = ["colon_fence"]

napoleon_numpy_docstring = True
napoleon_google_docstring = False
autodoc_typehints = "description"
autodoc_member_order = "bysource"

html_theme = "alabaster"  # ships with Sphinx: nothing fetched at build or read time
html_title = project
html_static_path: list[str] = []
