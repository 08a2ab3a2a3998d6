"""What a class's grading says, to instructors and students::

table.py       the grade table `course grade` prints
export.py      `course export`: the CSV (an nbgrader export plugin)
feedback/      `course feedback`: the students' pages, and the formgrader's view of a submission
rendering.py   filters of those pages: math as MathML, a script policy by hash
failures.py    which check of a failed test cell failed, in its author's words
item_analysis.py  one assignment across the class: scores, checks failed, mistakes counted
class_report.py   `course report`: that as a page with figures, and as CSV
"""
