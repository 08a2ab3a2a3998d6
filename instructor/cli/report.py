"""course report: (being written)."""

from __future__ import annotations

NAME = "report"
HELP = "(being written)"
EXAMPLES = ""


def add_arguments(p):
    pass


def run(args) -> int:
    return 0
