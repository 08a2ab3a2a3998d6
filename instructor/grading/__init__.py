"""Grading one submission, in stages, one job each::

    submission.py  the Submission every stage carries, its Status, the recorded Result
    intake.py      1. find every submission; one that cannot be read ends `not graded`
    prepare.py     2. match to the student version, undo tampering, restore locked cells, flag reaching into tests
    execute.py     3. run it in the sandbox (the only stage that runs student code)
    score.py       4. outside the sandbox: did every test run? points, flags
    record.py      5. what a graded submission changes, decided without I/O; then gradebook, notebook, log, results
    class_state.py what a run needs of the class (roster, due dates, extensions, reviews, results), read once;
                   which clearing covers a submission, how late its student's due date falls
    class_run.py   a class: what is up to date kept, the rest graded by the tasks handed in, each recorded
    pipeline.py    stages 2-4 for one submission: the task a worker runs
    review.py      a person clears a flag (`course unflag`); a regrade of the same bytes stays cleared
    extension.py   an extension given after grading (`course extend`): the gradebook's late penalty again
    resume.py      which recorded results are still up to date
    chains.py      the nbgrader preprocessor chains of stages 2-5, defined once
    config.py      the nbgrader configuration of a course directory, with the sandbox's limits
    preprocessors/ the course's own preprocessors in those chains

Where a class's tasks run and what the instructor sees of it are :mod:`instructor.scheduling`'s.
"""
