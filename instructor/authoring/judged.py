"""Moved to :mod:`instructor.authoring.judge_report` (the command is ``course judge``); this name stays only until
the callers that import it from here are committed with the new name."""

from instructor.authoring.judge_report import summary

__all__ = ["summary"]
