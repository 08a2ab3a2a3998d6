"""course similarity: (being written)."""

from __future__ import annotations

NAME = "similarity"
HELP = "(being written)"
EXAMPLES = ""


def add_arguments(p):
    pass


def run(args) -> int:
    return 0
