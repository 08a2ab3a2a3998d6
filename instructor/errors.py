"""The one exception the ``course`` command turns into a one-sentence message."""

from __future__ import annotations


class CourseError(Exception):
    """A problem the user can fix; its message is one clear sentence."""


def first_line(err: BaseException | str, limit: int = 160) -> str:
    """The first line of an error's message (its type's name if it has none), cut to ``limit``.

    Messages from nbgrader, drivers and parsers run over many lines; a table
    row, a log line or a one-sentence error keeps the first.
    """
    text = str(err).strip()
    if not text and isinstance(err, BaseException):
        text = type(err).__name__
    return (text.splitlines() or [""])[0][:limit]
