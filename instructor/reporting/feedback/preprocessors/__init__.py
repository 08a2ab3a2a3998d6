"""The feedback chain's own preprocessors, one small class per module (order: ``feedback/chain.py``).

* ``mark_pending``: written answers nobody has graded yet read "waiting for a grader", not 0;
* ``name_cells``: every graded cell gets a readable title from its ``grade_id``;
* ``hide_hidden_test_outputs``: nothing printed while hidden tests ran is shown;
* ``clear_rubrics``: the graders' mark scheme is removed;
* ``shorten_tracebacks``: a failed test shows its last line, not the code it passed through;
* ``escape_student_html``: student markup and scripts are shown as text;
* ``inline_figures``: the course's figures are carried in the page as ``data:`` images;
* ``withhold_leaks``: an output quoting a hidden test or a reference line is replaced.
"""
