"""The course directory: where a term's settings, class list and grades live.

::

    directory.py   where it is, `course init`, its settings (data: nbgrader_config.json)
    course_dir.py  CourseDir: the directory opened once, and every place in it by name (the one module
                   that spells its folder and file names; every store below takes a CourseDir)
    roster.py      the class list and the student-id rule
    gradebook.py   the gradebook's URL (SQLite or a server) and what the course reads from it
    releases.py    every student version issued, to check a submission against its own
    store.py       the side files below, typed (pydantic), each update locked, re-read and merged
    reviews.py     flags a person cleared, and why
    overrides.py   the grades changed by hand: overrides of checks, hand grades taken back
    recorded.py    a graded submission's files: results file cleared, then (after the gradebook) written in order
    arrivals.py    when each exchange folder's bytes arrived (a hash with each time); sealed once read
    owner.py       what root wrote goes back to the instructor who owns the folder
    due.py         due dates: in the settings, copied into the gradebook
    extensions.py  per-student extensions (`course extend`): a later due date, who granted it and why
    late.py        the late rule, an nbgrader plugin
    atomic.py      files written whole (old or new, never half), with the staff's owner, group and mode
"""
