"""What the ``course`` command prints is text, never terminal control.

Student-chosen names (exchange folders, notebook names) reach the grade
table, the progress lines and error messages. An escape sequence in one
could recolour, hide or rewrite what the instructor reads, or set the
window title; :func:`inert` shows each control character as its ``\\x..``
code instead (newline, tab and carriage return, which progress bars use,
stay), and so do the Unicode marks that reverse the direction of text.
"""

from __future__ import annotations

import re
import sys
from contextlib import contextmanager

#: the marks that set the direction of text: Arabic letter mark, left-to-right and right-to-left marks,
#: embeddings and overrides, isolates. In a name or an answer they make "evil" read "live".
BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_BIDI = re.compile(f"[{BIDI}]")
#: C0 controls but tab, newline and carriage return; DEL; C1 controls; the direction marks
_CONTROL = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{BIDI}]")


def bidi_marks(text: str) -> list[str]:
    """The direction marks ``text`` holds, each as ``U+202E``, in order, once each."""
    return list(dict.fromkeys(f"U+{ord(c):04X}" for c in _BIDI.findall(text)))


def visible_bidi(text: str, html: bool = False) -> str:
    """``text`` with each direction mark shown as a visible ``<U+202E>`` (``&lt;U+202E&gt;`` in ``html``)."""
    left, right = ("&lt;", "&gt;") if html else ("<", ">")
    return _BIDI.sub(lambda m: f"{left}U+{ord(m.group()):04X}{right}", text)


def inert(text: str) -> str:
    """``text`` with every control character written as its escape code (``\\x1b``, ``\\u202e``)."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class InertStream:
    """A text stream that passes everything written through :func:`inert`."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(inert(text))
        return len(text)

    def __getattr__(self, name):  # flush, isatty, fileno, encoding ...
        return getattr(self._stream, name)


@contextmanager
def inert_output():
    """Within the block, ``sys.stdout`` and ``sys.stderr`` print no control sequences."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = InertStream(saved[0]), InertStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
