"""Grading a class::

loop.py          grade_class: the one loop (resume, progress, record as results arrive)
dispatch.py      where the tasks run: this process, local Dask workers, a running cluster
workers.py       a Dask worker must see the course directory and have a sandbox
progress.py      counts and an ETA on stderr

`course grade` from start to end (the use case that calls this loop) is :mod:`instructor.term.grade_course`.
"""
