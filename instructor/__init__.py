"""The ``course`` command: everything an instructor runs, in the order a term runs it.

::

    authoring/    solutions/ -> notebooks/: generate, verify, bundle, trial runs, mistakes
    coursedir/    the course directory: settings file, roster, gradebook, late rule, due dates
    grading/      one submission: intake -> prepare -> execute (sandbox) -> score -> record
    sandbox/      where student code runs (bubblewrap), and nothing else does
    scheduling/   a class: the one loop, run serially or on Dask workers
    reporting/    the grade table, the CSV export, the feedback pages
    term/         the use cases of a term that span the rooms (`course grade`)
    hub/          `course hub`: one JupyterHub for the class
    cli/          one file per `course` verb: parse, call one function, print

The notebooks never import this package: what they import is :mod:`course`.
"""

import sys
from types import ModuleType
from typing import cast

# jsonschema (under nbformat and nbgrader) imports rfc3987_syntax when it is installed (jupyter-events pulls it in),
# and that module builds some 35 Lark parsers as it is imported: 1.1 s of every `course` command's start on the
# 2-core machine, for the IRI formats, which no schema this program validates uses (python-jsonschema/jsonschema
# issue 1428). None in sys.modules makes the import fail (the import system's documented rule); jsonschema then
# leaves those two formats unchecked. The sandbox's executor does the same for itself.
cast("dict[str, ModuleType | None]", sys.modules).setdefault("rfc3987_syntax", None)
