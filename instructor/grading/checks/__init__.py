"""Checks judged outside the student's kernel.

A graded test cell is split (:mod:`.split`): the statements that call the
student's code run in the kernel, which sends back, by value, what each
check reads (:mod:`course.values`); the checks themselves run in the
grader's process (:mod:`.judge`, in a process of its own: :mod:`.worker`).
:mod:`.notebook` does both to a notebook's cells, before and after the
sandbox runs it; :mod:`.channel` reads the values out of a cell's outputs;
:mod:`.judge_report` says, per assignment, which checks are judged outside
(``course judge``, and a line per assignment in ``course grade``'s report).
"""
