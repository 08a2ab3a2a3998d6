"""What the course notebooks import, and nothing of the grader.

* :mod:`course.runtime`: quick mode (``pick``), and whether anybody watches;
* :mod:`course.progress`: the progress line of long training loops;
* :mod:`course.tracebacks`: error messages wrapped, so Validate shows them whole;
* :mod:`course.figures`: what the notebooks draw: training plots that redraw
  while a cell runs, the attention heat map, 04's masks and encodings, and
  the ipywidgets explorers of 03 and 04;
* :mod:`course.cipher_data`: the data file of 04, its loader;
* :mod:`course.ops`: fused MyGrad operations (softmax, the loss, layer norm,
  a dense layer's forward pass, the simple cell's recurrence);
* :mod:`course.layers`: MyNN's ``dense`` with a one-operation forward pass;
* :mod:`course.recurrent`: notebook 01's ``RNN`` with its loop over time as
  one operation, the ``RNN`` of notebooks 02 and 03;
* :mod:`course.checks`: what several test cells share (04's stand-in layers,
  the small cases a later check runs an earlier task on first);
* :mod:`course.draws`: the inputs of hidden checks, drawn afresh for each
  submission the grader runs.

Importing the package tunes the process for MyGrad training
(:func:`course.runtime.tune_process`): glibc keeps freed memory for reuse
instead of returning it to the system (no page faults at every step), and
Python's garbage collector skips the imported libraries and runs less often.
``COURSE_NO_MALLOC_TUNING=1`` and ``COURSE_NO_GC_TUNING=1`` switch these off.
NumPy's BLAS gets one thread (``COURSE_BLAS_THREADS`` sets another count).

Students install this package from their bundle (``pip install ./helpers``);
the grading sandbox binds it, and only it, into their kernel. The
instructors' ``course`` command lives in :mod:`instructor`.
"""

from course.runtime import tune_process as _tune_process

_tune_process()
