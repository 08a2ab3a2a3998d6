"""Authoring: from the solution notebooks (``solutions/``) to what students and graders get.

::

    given.py            given cells: earlier answers, generated from their origin
    library.py          a solution notebook's library cells as a module (bench, tests)
    generate.py         solutions/ -> notebooks/ with nbgrader (the student versions)
    verify.py           `course verify`: drift, outputs, leaks, misplaced markers
    leaks.py            the secret lines of a solution notebook
    bundle.py           what students receive
    to_course_dir.py    the assignments of a course directory: generated, recorded, due dates
    trial.py            run a notebook in a fresh kernel, cell by cell (demo, bench, tests)
    mistakes.py         deliberately wrong answers, each of which must lose points
"""
