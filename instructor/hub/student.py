"""nbgrader's exchange as the hub's students run it: the class their settings name (``ExchangeFactory.submit``).

nbgrader makes each submission folder in ``inbound`` world-writable ("so the
instructor can delete later"); a classmate who learnt its name could then
change it. :class:`PrivateSubmit` leaves it 0755; collecting and grading run
as root and need no write right of their own.
"""

from __future__ import annotations

import os

from nbgrader.exchange.default.submit import ExchangeSubmit


class PrivateSubmit(ExchangeSubmit):
    """nbgrader's submit, then the new submission folder 0755 (owner: the student)."""

    def copy_files(self):
        super().copy_files()
        os.chmod(os.path.join(self.inbound_path, self.assignment_filename), 0o755)
