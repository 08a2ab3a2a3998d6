"""The ``course`` command: everything an instructor runs, in the order a term runs it.

::

    authoring/    solutions/ -> notebooks/: release, check, bundle, trial runs, mistakes
    coursedir/    the course directory: settings file, roster, gradebook, late rule, due dates
    grading/      one submission: intake -> prepare -> execute (sandbox) -> score -> record
    sandbox/      where student code runs (bubblewrap), and nothing else does
    scheduling/   a class: the one loop, run serially or on Dask workers
    reporting/    the grade table, the CSV export, the feedback pages
    bench/        speed and accuracy, measured
    cli/          one file per `course` verb: parse, call one function, print

The notebooks never import this package: what they import is :mod:`course`.
"""
