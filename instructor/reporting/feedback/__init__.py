"""Feedback pages for students::

pages.py          `course feedback`: a page per autograded submission
chain.py          the nbgrader chain that makes a page (also nbgrader's own generate_feedback)
template.py       the page's template (templates/feedback/)
preprocessors/    the course's own steps of that chain: nothing hidden, nothing live
"""
