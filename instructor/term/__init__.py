"""A term's commands from start to end: each one the steps of the rooms below it, in order::

grade_course.py  `course grade`: intake, the assignments into the course directory, the class, what it says

The rooms below do one job each (grading one submission, scheduling a class,
authoring the assignments); a use case here only calls them in turn.
"""
