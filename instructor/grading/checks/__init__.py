"""Checks judged outside the student's kernel.

A graded test cell is split (:mod:`.split`): the statements that call the
student's code run in the kernel, which sends back, by value, what each
check reads (:mod:`course.values`); the checks themselves run in the
grader's process (:mod:`.judge`). :mod:`.cells` does both to a notebook's
cells, before and after the sandbox runs it.
"""
