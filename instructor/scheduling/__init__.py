"""Grading a class::

loop.py          grade_class: where the tasks run and what is shown, handed to the class loop
                 (instructor.grading.class_run: resume, record as results arrive)
dispatch.py      where the tasks run: this process, local Dask workers, a running cluster
workers.py       a Dask worker must see the course directory and have a sandbox
progress.py      what the run tells the instructor: skipped, each not graded, counts and an ETA on stderr

`course grade` from start to end (the use case that calls this loop) is :mod:`instructor.term.grade_course`.
"""
