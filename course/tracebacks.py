"""Error messages wrapped to a readable width, wherever a notebook's error is read.

A check's message says what went wrong and, at its end, what to change
("... no .data, np.asarray or astype on the way"). On one long line that end
is lost: nbgrader's ``validate`` command cuts each line of its report at 90
characters, and the Validate button's dialog shows the traceback in a box
that neither wraps nor widens. So the kernel writes the last line of a
traceback, the exception and its message, wrapped at :data:`WIDTH` columns
(words kept whole). The exception itself, its ``evalue`` and the frames
above stay as IPython makes them.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["WIDTH", "wrap_error_messages", "wrapped"]

#: Columns of a wrapped message line: with Validate's indent of 4, below nbgrader's default cut at 87.
WIDTH = 80
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def wrapped(entry: str, width: int = WIDTH) -> str:
    """``entry`` (a traceback's last entry, colours and all) with each longer line wrapped at ``width``.

    A wrapped line's colour codes are dropped (only the exception's name carries one).
    """
    lines = []
    for line in entry.split("\n"):
        plain = _ANSI.sub("", line)
        if len(plain) <= width:
            lines.append(line)
        else:
            lines.extend(
                textwrap.wrap(plain, width, break_long_words=False, break_on_hyphens=False, subsequent_indent="  ")
            )
    return "\n".join(lines)


def wrap_error_messages(shell, width: int = WIDTH) -> None:
    """Make IPython ``shell`` write every exception's message wrapped (its other traceback lines as they are)."""

    def show(self, etype, value, tb, tb_offset=None):
        stb = self.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
        if stb:
            stb = [*stb[:-1], wrapped(stb[-1], width)]
        self._showtraceback(etype, value, stb)
        return stb

    shell.set_custom_exc((Exception,), show)
