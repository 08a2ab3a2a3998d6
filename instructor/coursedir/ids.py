"""The rule for a student id (and an assignment's name): what may name a folder of the course directory."""

from __future__ import annotations

import re

_STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]*$")
#: what a student id may hold, in words
STUDENT_ID_RULE = "letters, digits, _ . @ - only"


def is_student_id(name: str) -> bool:
    """A valid student id: a letter or digit, then letters, digits, ``_ . @ -``."""
    return bool(_STUDENT_ID.match(name))
