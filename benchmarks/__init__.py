"""The course's benchmarks: every promise of speed and accuracy, measured by one command.

A maintainer's tool of the checkout, outside the installed package (the wheel
holds none of it)::

    python -m benchmarks --help                 from the repository's top folder
    course bench ...                            the same, when `course` runs from this checkout

Parts::

    rnn, seq2seq, attention, transformer   models.py: ms per step, steps to the notebook's promise
    notebooks                              notebooks.py: each solution notebook in quick (and full) mode
    autograde                              autograde.py: seconds per submission, sandbox overhead, --jobs
    class                                  classroom.py: a synthetic class, serial / --jobs / --scheduler
    class-tools                            class_tools.py: report, similarity, extend, export on a graded class
    --against torch                        against_torch.py: each model's step against its PyTorch twin
                                           (twins/, pairs.py), interleaved, one thread; the torch extra:
                                           pip install -e ".[torch]"

command.py holds the options and parses them; parts.py runs the parts; machine.py says what it ran on;
report.py prints the table. ``python -m benchmarks.ops`` times each fused operation of course.ops alone.

This file imports nothing, so that ``course`` can read the options (command.py) without loading a model.
"""
