"""The hub's student-side exchange classes, run as nbgrader runs them (no hub, no account): a few seconds."""

from __future__ import annotations

from traitlets.config import Config

from instructor.hub.student import FeedbackPageList

STAMP = "2026-11-27 13:48:40.101452 UTC"


def test_view_feedback_names_the_page_not_its_folder(tmp_path):
    """The Assignments tab lists submissions from the student's cache (``ExchangeList.cached``); "view feedback"
    takes the submission's ``local_feedback_path``: nbgrader's is the folder (issue 43.7), this one the page."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    cache, home, root = tmp_path / "cache", tmp_path / "home", tmp_path / "exchange"
    submitted = cache / "seqmodels" / f"amy+01_rnn+{STAMP}"
    submitted.mkdir(parents=True)
    (submitted / "01_rnn.ipynb").write_text("{}")
    (submitted / "timestamp.txt").write_text(STAMP)
    (submitted / "submission_secret.txt").write_text("secret")
    page = home / "01_rnn" / "feedback" / STAMP / "01_rnn.html"
    page.parent.mkdir(parents=True)
    page.write_text("<html></html>")
    (root / "seqmodels" / "feedback").mkdir(parents=True)
    c = Config()
    c.CourseDirectory.course_id = "seqmodels"
    c.CourseDirectory.groupshared = True
    c.Exchange.root, c.Exchange.cache, c.Exchange.assignment_dir = str(root), str(cache), str(home)
    c.ExchangeList.cached = True
    lister = FeedbackPageList(coursedir=CourseDirectory(config=c), authenticator=Authenticator(config=c), config=c)
    (assignment,) = lister.start()
    (submission,) = assignment["submissions"]
    assert submission["local_feedback_path"] == str(page)
