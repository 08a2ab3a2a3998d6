"""The grading stages, called one by one without the command line, on the toy course."""

from __future__ import annotations

import json

import pytest

from instructor import sandbox
from instructor.authoring.to_course_dir import into_course_dir
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.grading import resume
from instructor.grading.class_state import ClassState
from instructor.grading.intake import find_submissions
from instructor.grading.pipeline import grade
from instructor.grading.record import read_results, record
from instructor.grading.submission import Result, Status, Submission, carried, results_at
from tests.factories import released_toy_class

NAMES = ["01_toy", "02_toy"]
#: the toy notebooks are the course's own: no sandbox needed to run them
BARE = sandbox.unsafe("the toy course's own notebooks")
LIMITS = sandbox.Limits(cell_timeout=20, notebook_budget=60)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """A course directory with the toy assignments, and the intake of ref and blank submissions."""
    tmp, root = released_toy_class(tmp_path_factory.mktemp("stages"))
    course_dir = tmp / "course-dir"
    directory.init(course_dir)
    into_course_dir(CourseDir.at(course_dir), root, NAMES)
    return course_dir, find_submissions(tmp / "subs", NAMES)


def _graded(toy, student: str, assignment: str = "01_toy") -> Submission:
    course_dir, subs = toy
    [sub] = [s for s in subs if s.key == (student, assignment)]
    return grade(CourseDir.at(course_dir), sub, LIMITS, BARE, unsafe=True)


def test_intake_finds_each_submission_waiting(toy):
    """Does intake find a reference and a blank submission of each assignment, all waiting to be graded?"""
    _, subs = toy
    assert sorted(s.key for s in subs) == sorted((s, a) for s in ("blank", "ref") for a in NAMES)
    assert {s.status for s in subs} == {Status.QUEUED}


def test_one_submission_through_prepare_execute_score(toy):
    """Do stages 2-4 give the reference full marks and the blank 0, leaving intake's copy untouched?"""
    ref, blank = _graded(toy, "ref"), _graded(toy, "blank")
    assert ref.status is Status.GRADED and ref.score == ref.max_score > 0
    assert blank.status is Status.GRADED and blank.score == 0 and blank.max_score == ref.max_score
    assert ref.execution is not None and ref.execution.status == "ok"
    assert ref.student_version.name == "01_toy.ipynb" and ref.notebook is not None
    assert {s.status for s in toy[1]} == {Status.QUEUED}  # grade() works on a copy


def test_record_then_resume_skips_what_is_unchanged(toy):
    """Is a recorded result found again by its fingerprint, and graded anew once the release changes?"""
    course_dir, subs = toy
    [sub] = [s for s in subs if s.key == ("ref", "02_toy")]
    print_ = resume.fingerprint(CourseDir.at(course_dir), sub)
    graded = grade(CourseDir.at(course_dir), sub, LIMITS, BARE, unsafe=True)
    graded.fingerprint = print_
    result = record(CourseDir.at(course_dir), graded, ClassState.read(CourseDir.at(course_dir)))
    assert read_results(CourseDir.at(course_dir))[sub.key] == result
    assert resume.recorded(ClassState.read(CourseDir.at(course_dir)), sub, print_) == result
    changed = {**print_, "release_sha256": "0" * 64}
    assert resume.recorded(ClassState.read(CourseDir.at(course_dir)), sub, changed) is None


@pytest.mark.parametrize(
    "status, reason, retried",
    [
        (Status.GRADER_FAILED, "the Dask task failed", True),
        (Status.NOT_GRADED, "the grader failed on this submission, says the student's own folder name", False),
        (Status.GRADED, "", False),
    ],
)
def test_a_rerun_retries_by_status_not_by_wording(toy, status, reason, retried):
    """Is a recorded result graded again exactly when its status says the grader failed, whatever its reason says?"""
    course_dir, subs = toy
    [sub] = [s for s in subs if s.key == ("blank", "02_toy")]
    print_ = resume.fingerprint(CourseDir.at(course_dir), sub)
    path = CourseDir.at(course_dir).result(*sub.key)
    path.parent.mkdir(parents=True, exist_ok=True)
    results_at(path).write(Result(*sub.key, status, reason, fingerprint=print_))
    assert (resume.recorded(ClassState.read(CourseDir.at(course_dir)), sub, print_) is None) is retried


def test_a_bad_results_file_is_graded_again(toy):
    """Is a results file with an unknown status treated as missing (graded again), not as a crash?"""
    course_dir, subs = toy
    [sub] = [s for s in subs if s.key == ("blank", "01_toy")]
    print_ = resume.fingerprint(CourseDir.at(course_dir), sub)
    path = CourseDir.at(course_dir).result(*sub.key)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = json.loads(results_at(path).dump(Result(*sub.key, Status.GRADED, fingerprint=print_)))
    path.write_text(json.dumps({**written, "status": "great"}))
    assert resume.recorded(ClassState.read(CourseDir.at(course_dir)), sub, print_) is None


def test_preprocessors_refuse_a_loose_dict():
    """Do the stages' preprocessors refuse resources["course"] that is not a Submission (the old loose dict)?"""
    with pytest.raises(TypeError, match="not a Submission"):
        carried({"course": {"release": "x.ipynb", "flags": []}})
    made = carried({"nbgrader": {"student": "amy", "assignment": "01_toy"}})  # nbgrader's own autograde
    assert made.key == ("amy", "01_toy") and made.status is Status.QUEUED


def test_only_outputs_come_back_from_the_sandbox():
    """Are the cells, code and points of the graded notebook the ones sent into the sandbox, whatever the
    returned notebook says: a changed count, code or point value refused, outputs taken?"""
    import copy

    import pytest
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    from instructor.grading.preprocessors.sandboxed_execute import outputs_into
    from instructor.grading.submission import NotGraded

    sent = new_notebook(
        cells=[
            new_code_cell(
                "assert True",
                metadata={
                    "nbgrader": {
                        "grade": True,
                        "solution": False,
                        "locked": True,
                        "points": 2,
                        "grade_id": "t",
                        "schema_version": 3,
                    }
                },
            )
        ]
    )
    back = copy.deepcopy(sent)
    back.cells[0].outputs = [new_output("stream", name="stdout", text="ran")]
    made = outputs_into(sent, back)
    assert made.cells[0].outputs[0]["text"] == "ran" and made.cells[0].metadata.nbgrader.points == 2
    inflated = copy.deepcopy(back)
    inflated.cells[0].metadata.nbgrader.points = 800
    for bad in (inflated, new_notebook(cells=[]), new_notebook(cells=[new_code_cell("pass"), new_code_cell("pass")])):
        with pytest.raises(NotGraded):
            outputs_into(sent, bad)


def test_a_notebook_swapped_after_intake_is_not_graded(tmp_path, toy):
    """Are the bytes checked at intake the bytes graded: a blank notebook replaced, after intake, by a
    link to the reference solution (or by other bytes) is refused, never graded and never followed?"""
    import shutil

    course_dir, subs = toy
    [blank] = [s for s in subs if s.key == ("blank", "01_toy")]
    folder = tmp_path / "blank" / "01_toy"
    shutil.copytree(blank.folder, folder)
    [sub] = find_submissions(tmp_path, NAMES)
    notebook = folder / "01_toy.ipynb"
    reference = [s for s in subs if s.key == ("ref", "01_toy")][0].folder / "01_toy.ipynb"
    notebook.unlink()
    notebook.symlink_to(reference)
    swapped = grade(CourseDir.at(course_dir), sub, LIMITS, BARE, unsafe=True)
    assert swapped.status is Status.NOT_GRADED and "could not be read again" in swapped.reason, swapped.reason
    notebook.unlink()
    shutil.copy(reference, notebook)  # other bytes, a regular file
    changed = grade(CourseDir.at(course_dir), sub, LIMITS, BARE, unsafe=True)
    assert changed.status is Status.NOT_GRADED and "changed after it was checked at intake" in changed.reason


def test_a_crash_while_recording_is_that_submissions_outcome(tmp_path, toy, monkeypatch):
    """If recording one submission raises, is it `not graded` with the reason (and retried by the next run),
    while the submissions after it are graded and the run ends normally?"""
    import instructor.grading.record as record_module
    from instructor.scheduling.loop import grade_class

    course_dir, subs = toy
    chosen = [s for s in subs if s.assignment == "01_toy"]
    real = record_module._into_gradebook

    def fails_for_blank(course_dir, sub, *decided):
        if sub.student == "blank":
            raise RecursionError("maximum recursion depth exceeded")
        return real(course_dir, sub, *decided)

    monkeypatch.setattr(record_module, "_into_gradebook", fails_for_blank)
    run = grade_class(
        CourseDir.at(course_dir),
        chosen,
        limits=LIMITS,
        unsafe=True,
        force=True,
        log=lambda *_: None,
        progress=False,
        isolation=BARE,
    )
    outcome = {r.student: r for r in run.results}
    assert outcome["ref"].status is Status.GRADED
    assert outcome["blank"].status is Status.GRADER_FAILED and outcome["blank"].status.shown == "not graded"
    assert "could not record this submission (maximum recursion depth exceeded)" in outcome["blank"].reason
    assert outcome["blank"].status.retried
