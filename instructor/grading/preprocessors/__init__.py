"""The course's own nbgrader preprocessors of grading, one small class per module.

The chains that use them, and their order, are in :mod:`instructor.grading.chains`:

* prepare: ``match_student_version`` (a notebook without nbgrader metadata),
  ``restore_tampered_cells`` (edited tests and locked cells),
  ``flag_test_machinery`` (student code that reaches into the tests), ``split_checks`` (each
  test cell keeps only what must run in the kernel; its checks wait outside);
* execute: ``sandboxed_execute`` (the sandbox, the only place student code runs);
* score: ``fail_tests_not_run`` (a test that never ran scores 0), ``fail_shaped_outputs`` (a test
  cell that returns a value or shows a widget scores 0), ``judge_checks`` (the autograder judges
  every check on the values the kernel sent), ``cap_output_bytes`` (text and figures,
  each within a budget; what fails a cell is never cut), ``inert_student_content``;
* record: ``keep_hand_grades`` (a regrade keeps a grader's work).

What they find goes into the :class:`~instructor.grading.submission.Submission`
in ``resources["course"]``.
"""
