"""nbgrader's exchange as the hub's students run it: two classes their settings name (``ExchangeFactory``).

- :class:`PrivateSubmit`: nbgrader makes each submission folder in ``inbound``
  world-writable ("so the instructor can delete later"); a classmate who
  learnt its name could then change it. Here it is left 0755; collecting and
  grading run as root and need no write right of their own.
- :class:`FeedbackPageList`: the Assignments tab's "view feedback" shows the
  file browser at the submission's feedback path; nbgrader gives the folder,
  this gives the page in it, when the submission has one notebook.
"""

from __future__ import annotations

import os

from nbgrader.exchange.default.list import ExchangeList
from nbgrader.exchange.default.submit import ExchangeSubmit


class PrivateSubmit(ExchangeSubmit):
    """nbgrader's submit, then the new submission folder 0755 (owner: the student)."""

    def copy_files(self):
        super().copy_files()
        os.chmod(os.path.join(self.inbound_path, self.assignment_filename), 0o755)


class FeedbackPageList(ExchangeList):
    """nbgrader's list, each submission's feedback path naming its page rather than its folder."""

    def parse_assignments(self):
        assignments = super().parse_assignments()
        for assignment in assignments:
            for info in assignment.get("submissions", [assignment]):  # grouped when submissions are listed
                pages = [nb["local_feedback_path"] for nb in info.get("notebooks", []) if nb.get("has_local_feedback")]
                if info.get("local_feedback_path") and len(pages) == 1:
                    info["local_feedback_path"] = os.path.join(info["local_feedback_path"], os.path.basename(pages[0]))
        return assignments
