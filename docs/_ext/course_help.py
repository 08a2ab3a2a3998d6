"""The ``course-help`` directive: every ``course`` verb's ``--help``, as the terminal prints it.

The verbs' help texts are written for a terminal (aligned columns, numbered
steps), so the page shows them as literal text rather than parsing them as
reStructuredText: the page and ``course <verb> --help`` cannot differ.
"""

from __future__ import annotations

import argparse
import os

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def _verbs(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices.items())
    return []


class CourseHelp(SphinxDirective):
    """One section per verb: a title and the verb's help text."""

    def run(self) -> list[nodes.Node]:
        from instructor.cli import build_parser

        os.environ["COLUMNS"] = "100"  # argparse wraps at the terminal's width: fix it
        parser = build_parser()
        found: list[nodes.Node] = [nodes.literal_block(text=parser.format_help())]
        for name, sub in _verbs(parser):
            section = nodes.section(ids=[f"course-{name}"])
            section += nodes.title(text=f"course {name}")
            section += nodes.literal_block(text=sub.format_help())
            found.append(section)
        return found


def setup(app):
    app.add_directive("course-help", CourseHelp)
    return {"parallel_read_safe": True}
