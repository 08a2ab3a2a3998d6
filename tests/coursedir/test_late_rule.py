"""One late rule, whatever the order of grading, regrading, hand grading and extensions (issue 35, finding 4).

README: the penalty is ``--late-penalty`` % of the notebook's autograded points
per day started after the student's due date; hand points never change it.
Every order of the term's events must end (and pass through) the penalty
that rule gives for the points and due date of that moment.
"""

from __future__ import annotations

import itertools
import shutil

import nbformat
import pytest
from nbgrader.api import Gradebook

from instructor.coursedir import extensions
from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.late import PercentPerDay, penalty
from instructor.grading.class_state import ClassState
from instructor.grading.extension import apply_extension
from instructor.grading.record import record
from instructor.grading.submission import Status, Submission

DUE = "2026-01-01 12:00 UTC"
LATE = "2026-01-03 10:00:00.000000 UTC"  # two days started
LATE_SECONDS = 46 * 3600


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A course directory (10 % a day) where amy's late 01_toy is graded: 2 autograded points, 1 written pending."""
    from instructor.cli import main
    from tests.factories import make_course

    tmp = tmp_path_factory.mktemp("late")
    repo = make_course(tmp / "repo")
    folder = tmp / "subs" / "amy" / "01_toy"
    folder.mkdir(parents=True)
    assert main(["generate", "--root", str(repo)]) == 0
    shutil.copy(repo / "solutions/01_toy/01_toy.ipynb", folder)
    (folder / "timestamp.txt").write_text(LATE)
    cd = tmp / "cd"
    assert main(["init", str(cd), "--late-penalty", "10", "--due", f"01_toy={DUE}"]) == 0
    assert main(["grade", str(tmp / "subs"), "--course-dir", str(cd), "--root", str(repo), "--unsafe"]) == 0
    return cd, folder


def _regrade_with_a_test_fix(cd, folder) -> None:
    """`course grade` after a test fix that fails amy's add__values: the record stage with the new scored notebook."""
    nb = nbformat.read(str(cd / "autograded/amy/01_toy/01_toy.ipynb"), as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "add__values")
    cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue="fixed test", traceback=[])]
    sub = Submission("amy", "01_toy", folder, Status.GRADED, timestamp=LATE, notebook=nb, score=0.0, max_score=2.0)
    record(CourseDir.at(cd), sub, ClassState.read(CourseDir.at(cd)))


def _hand_grade(cd, folder) -> None:
    """The formgrader's score box: a written answer graded by hand (no penalty is computed there)."""
    with Gradebook(f"sqlite:///{cd / 'gradebook.db'}") as gb:
        grade = gb.find_grade("why", "01_toy", "01_toy", "amy")
        grade.manual_score, grade.needs_manual_grade = 1.0, False
        gb.db.commit()


def _extend(cd, folder) -> None:
    extensions.grant(CourseDir.at(cd), "amy", "01_toy", days=3, because="ill", by="ana")
    apply_extension(CourseDir.at(cd), "amy", "01_toy")


def _take_back(cd, folder) -> None:
    extensions.remove(CourseDir.places_at(cd), "amy", "01_toy")
    apply_extension(CourseDir.at(cd), "amy", "01_toy")


EVENTS = {
    "hand grade": _hand_grade,
    "test fix": _regrade_with_a_test_fix,
    "extension": _extend,
    "extension taken back": _take_back,
}


def _state(cd) -> tuple[float, float, float]:
    """(penalty, autograded points, seconds late) of amy's 01_toy in the gradebook."""
    with Gradebook(f"sqlite:///{cd / 'gradebook.db'}") as gb:
        sub = gb.find_submission("01_toy", "amy")
        auto = sum(g.auto_score or 0.0 for g in sub.notebooks[0].grades if g.auto_score is not None)
        return sub.late_submission_penalty or 0.0, auto, sub.total_seconds_late


ORDERS = [
    order for order in itertools.permutations(EVENTS) if order.index("extension") < order.index("extension taken back")
]


@pytest.mark.parametrize("order", ORDERS, ids=" > ".join)
def test_the_penalty_follows_one_rule_in_every_order(graded, tmp_path, order):
    """After each event, in any order, is the penalty 10 % per day started of the autograded points alone?"""
    source, folder = graded
    cd = tmp_path / "cd"
    shutil.copytree(source, cd)
    # the copy's settings name its own gradebook
    settings = "nbgrader_config.json"
    (cd / settings).write_text((source / settings).read_text().replace(str(source), str(cd)))
    assert _state(cd) == (pytest.approx(0.4), 2.0, LATE_SECONDS)  # the first grade: 2 days of 10 % of 2 points
    for event in order:
        EVENTS[event](cd, folder)
        got, auto, late = _state(cd)
        assert got == pytest.approx(penalty(auto, late, 10.0)), f"after {event} in {order}"
    assert _state(cd) == (0.0, 0.0, LATE_SECONDS)  # the test fix took add__values' 2 points: nothing to take


def test_the_rule_ignores_hand_points_and_caps_at_the_autograded_points():
    """Is the rule a function of the autograded points and the days started only?"""
    assert penalty(2.0, 1, 10) == pytest.approx(0.2)
    assert penalty(2.0, 86400, 10) == pytest.approx(0.2) and penalty(2.0, 86401, 10) == pytest.approx(0.4)
    assert penalty(2.0, 0, 10) == 0 and penalty(2.0, 30 * 86400, 10) == 2.0
    assert PercentPerDay(percent_per_day=10).late_submission_penalty("amy", 3.0, 1) == pytest.approx(0.3)
