"""What the course notebooks import, and nothing of the grader.

* :mod:`course.runtime`: quick mode (``pick``), and whether anybody watches;
* :mod:`course.plotting`: training plots that redraw while a cell runs;
* :mod:`course.explorers`: the ipywidgets explorers of 03 and 04;
* :mod:`course.cipher_data`: the data file of 04, its loader.

Students install this package from their bundle (``pip install ./helpers``);
the grading sandbox binds it, and only it, into their kernel. The
instructors' ``course`` command lives in :mod:`instructor`.
"""
