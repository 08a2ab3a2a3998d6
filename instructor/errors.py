"""The one exception the ``course`` command turns into a one-sentence message."""


class CourseError(Exception):
    """A problem the user can fix; its message is one clear sentence."""
