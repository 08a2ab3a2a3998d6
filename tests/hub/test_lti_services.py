"""LTI 1.3 services (issue 62, the roster and the grades): ``course lms roster`` and ``course lms grades``.

The platform is ``lti1p3platform`` 0.1.8 (PyPI, the test extra), the same
maintained platform implementation the launch tests start. It implements the
token endpoint (the client-credentials grant with the tool's signed
assertion) and the handlers of NRPS and AGS with their bearer checks, and
leaves the LMS's storage abstract. So :mod:`tests.hub.lti_service_platform`
serves the library's own token endpoint and handlers on localhost over an
in-memory store shaped as the IMS specs give members, line items, scores and
results; that module's docstring says line by line which side is the
library's and which is this test's. Of the registry's other LTI packages,
``lti-provider-mock`` 0.2.3 serves launches only (no token endpoint, NRPS or
AGS) and ``lti-consumer-xblock`` runs only inside Open edX; a real Canvas or
Moodle was not run.

The tool's side is the course's own: the key ``course hub`` makes
(:func:`instructor.hub.lti.make_key`), the token request signed with it
(PyJWT), the calls of :mod:`instructor.hub.lti_services`. No hub runs here:
the services are called by ``course lms`` from the instructor's shell, and
the platform holds the tool's key set as an LMS would after registration.
"""

from __future__ import annotations

import csv
import json
import os
import shutil

import pytest

from instructor.cli import main
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.hub import lti, lti_roster
from instructor.hub.lti_services import AGS_SCOPES, LINEITEM, NRPS_SCOPE, SCORE, ServiceError, Services
from instructor.reporting import export
from instructor.settings import COURSE_ID
from tests.factories import assert_one_sentence_error, make_course

pytest.importorskip("ltiauthenticator")
pytest.importorskip("requests")
pytest.importorskip("lti1p3platform")
from tests.hub import lti_platform
from tests.hub.lti_service_platform import ServicePlatform

ROSTER = """\
id,first_name,last_name,email
amy,Amy,Adams,amy@example.edu
bob,Bob,Brown,bob@example.edu
cat,Cat,Cole,
dan,Dan,Dale,dan@example.edu
eve,Eve,Evans,eve@example.edu
"""
STAFF = "id,role,email\nteach,instructor,teach@example.edu\nta,grader,ta@example.edu\n"
DUE = "2020-01-01 12:00 UTC"
#: bob's 01_toy: two days started after the due date (10 % a day of the autograded points)
LATE = "2020-01-03 10:00:00.000000 UTC"
ON_TIME = "2019-12-31 10:00:00.000000 UTC"
EVERY_SCOPE = (NRPS_SCOPE, *AGS_SCOPES)


def member(user_id, roles, email="", name="", **more):
    return {"user_id": user_id, "roles": roles, "email": email, "name": name, "status": "Active", **more}


#: the LMS's course: cat has no e-mail there but her student number; eve is not in it; fay and a mentor are
MEMBERS = [
    member("lms-amy", [lti_platform.LEARNER], "amy@example.edu", "Amy Adams"),
    member("lms-bob", [lti_platform.LEARNER], "Bob@Example.edu", "Bob Brown"),
    member("lms-cat", [lti_platform.LEARNER], name="Cat Cole", lis_person_sourcedid="cat"),
    member("lms-dan", [lti_platform.LEARNER], "dan@example.edu", "Dan Dale"),
    member("lms-fay", [lti_platform.LEARNER], "fay@example.edu", "Fay Fox", given_name="Fay", family_name="Fox"),
    member("lms-teach", [lti_platform.INSTRUCTOR], "teach@example.edu", "Teach Er"),
    member("lms-ta", lti_platform.TEACHING_ASSISTANT, "ta@example.edu", "Tee Ay"),
    member("lms-mo", ["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"], "mo@example.edu", "Mo Mentor"),
]


def _submit(subs, student, assignment, repo, timestamp):
    folder = subs / student / assignment
    folder.mkdir(parents=True)
    shutil.copy(repo / "solutions" / assignment / f"{assignment}.ipynb", folder)
    (folder / "timestamp.txt").write_text(timestamp)


def make_graded(tmp):
    """A course directory graded once (10 % a day late), 01_toy due in 2020, 02_toy due in 2999:

    amy  01_toy on time, hand-graded -> complete 3;  02_toy handed in early -> not due
    bob  01_toy two days late, hand-graded -> complete 3 - 0.4
    dan  01_toy, its written answer not graded yet -> waiting for a grader
    cat, eve  nothing -> not submitted, 0 (eve is not in the LMS)
    """
    repo = make_course(tmp / "repo")
    cd, subs = tmp / "cd", tmp / "subs"
    (tmp / "class.csv").write_text(ROSTER)
    for args in (
        ["generate", "--root", repo],
        ["init", cd, "--late-penalty", "10", "--due", f"01_toy={DUE}", "--due", "02_toy=2999-01-01 12:00 UTC"],
        ["roster", "import", tmp / "class.csv", "--course-dir", cd],
    ):
        assert main([str(a) for a in args]) == 0
    _submit(subs, "amy", "01_toy", repo, ON_TIME)
    _submit(subs, "amy", "02_toy", repo, ON_TIME)
    _submit(subs, "bob", "01_toy", repo, LATE)
    _submit(subs, "dan", "01_toy", repo, ON_TIME)
    assert main(["grade", str(subs), "--course-dir", str(cd), "--root", str(repo), "--unsafe"]) == 0
    for student in ("amy", "bob"):  # the written answer, as a grader scores it
        assert main(["override", "01_toy", student, "why", "1", "--course-dir", str(cd)]) == 0
    (cd / "staff.csv").write_text(STAFF)
    os.chmod(cd / "staff.csv", 0o644)
    return cd


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """:func:`make_graded`, for the tests that change nothing in it."""
    return make_graded(tmp_path_factory.mktemp("lms"))


@pytest.fixture
def fresh(tmp_path):
    """:func:`make_graded`, for a test that changes the roster or a grade (a copy would share its gradebook)."""
    return make_graded(tmp_path / "course")


@pytest.fixture
def hub_dir(tmp_path):
    """The hub's folder as `course hub` leaves it: the tool's key, root's alone (lti13.json comes with the platform)."""
    hub = tmp_path / "hub"
    (hub / "state").mkdir(parents=True)
    os.chmod(hub / "state", 0o700)
    lti.make_key(hub / "state" / lti.KEY_NAME)
    return hub


@pytest.fixture
def platform(hub_dir):
    """The platform, registered with the tool's public key set; lti13.json written with its URLs."""
    p = ServicePlatform([dict(m) for m in MEMBERS], lti.public_jwks(hub_dir / "state" / lti.KEY_NAME)).start()
    (hub_dir / "lti13.json").write_text(json.dumps(p.hub_settings()))
    os.chmod(hub_dir / "lti13.json", 0o644)
    try:
        yield p
    finally:
        p.stop()


def lms(run_course, graded, hub_dir, *args, retcode=0):
    return run_course(["lms", *args, "--course-dir", graded, "--hub-dir", hub_dir], retcode=retcode)


def test_lti13_json_may_name_the_services_and_only_as_urls(hub_dir, platform):
    settings = lti.read_settings(hub_dir)
    assert settings is not None and settings["lineitems_url"] == f"{platform.base}/lineitems"
    (hub_dir / "lti13.json").write_text(json.dumps({**platform.hub_settings(), "token_url": "token.php"}))
    with pytest.raises(CourseError, match="token_url must be a URL"):
        lti.read_settings(hub_dir)
    (hub_dir / "lti13.json").write_text(json.dumps({**platform.hub_settings(), "lineitems_url": None}))
    with pytest.raises(CourseError, match="has no lineitems_url"):
        Services.from_hub(hub_dir, EVERY_SCOPE)


def test_the_roster_check_names_everyone_on_one_side_only(graded, hub_dir, platform, run_course):
    out, _ = lms(run_course, graded, hub_dir, "roster", retcode=1)
    print(out)
    assert "LMS: 8 member(s)" in out
    assert "matched: 6 of the course's people" in out  # amy, bob (e-mail in another case), cat (number), dan, staff
    lines = out.splitlines()
    at = lines.index("on the roster, not in the LMS (kept on the roster): 1")
    assert lines[at + 1] == "  eve"
    assert "Learners in the LMS, not on the roster (`--add` adds them): 1" in out
    assert "  Fay Fox <fay@example.edu> (LMS user lms-fay)" in out
    assert "with no Learner, Instructor or TeachingAssistant role (left alone): 1" in out and "Mo Mentor" in out
    assert "roles that differ" not in out  # Instructor is teach's role here, TeachingAssistant ta's
    assert (graded / "roster.csv").read_text().count("\n") == 6  # nobody added, nobody dropped
    assert platform.tokens == [200]  # one token for the run


def test_roster_add_imports_the_lms_learners_the_roster_lacks(fresh, hub_dir, platform, run_course):
    cd = fresh
    out, _ = lms(run_course, cd, hub_dir, "roster", "--add", retcode=1)  # eve and the mentor are still differences
    assert "roster: 1 student(s) added from the LMS: fay" in out
    with open(cd / "roster.csv", newline="") as f:
        fay = next(r for r in csv.DictReader(f) if r["id"] == "fay")
    assert fay == {"id": "fay", "first_name": "Fay", "last_name": "Fox", "email": "fay@example.edu"}
    assert "  eve" in out and "Learners in the LMS, not on the roster" not in out.split("added from the LMS")[1]
    assert (cd / "staff.csv").read_text() == STAFF  # staff.csv is root's: never written from the LMS


def test_roles_status_and_ids_in_the_comparison():
    rows = [{"id": "amy", "email": "amy@example.edu"}, {"id": "bob", "email": ""}]
    found = lti_roster.members(
        [
            member("1", [lti_platform.INSTRUCTOR], "amy@example.edu"),
            member("2", [lti_platform.LEARNER], lis_person_sourcedid="bob", status="Inactive"),
            member("3", lti_platform.TEACHING_ASSISTANT, "t@x.org"),
            member("4", ["Learner"], "amy.b@x.org", "Amy B"),
            member("5", ["Learner"], "bob@x.org", "Bob Again"),
            {"roles": ["Learner"]},  # no user_id: nothing names it
        ]
    )
    c = lti_roster.compare(found, rows, {"t": "grader"}, {"t@x.org": "t"})
    assert set(c.matched) == {"amy", "bob", "t"}
    assert c.roles_differ == [("amy", "student", "instructor")]
    assert [(cid, m.status) for cid, m in c.inactive] == [("bob", "Inactive")]
    assert c.user_ids() == {"amy": "1", "t": "3"}  # no grade to someone inactive in the LMS
    new, refused = lti_roster.new_rows(c.lms_students, {"amy", "bob"})
    assert [r["id"] for r in new] == [] and len(refused) == 2  # "amy.b" is no login name; "bob" is taken
    assert "add her by hand" in refused[0]


def export_rows(cd):
    export.export_csv(CourseDir.at(cd), cd / "grades.csv")
    with open(cd / "grades.csv", newline="") as f:
        return list(csv.DictReader(f))


def held_by_platform(platform) -> dict[tuple[str, str], float]:
    """(resourceId, LMS user) -> the score the platform holds."""
    by_id = {item_id: item["resourceId"] for item_id, item in platform.line_items.items()}
    return {(by_id[item], user): s["scoreGiven"] for (item, user), s in platform.scores.items()}


def test_grades_go_back_as_the_export_has_them_and_a_second_send_changes_nothing(fresh, hub_dir, platform, run_course):
    cd = fresh
    out, _ = lms(run_course, cd, hub_dir, "grades", "--dry-run")
    assert "02_toy: nothing sent (due 2999-01-01 12:00 UTC)" in out
    assert "grades: 1 assignment(s) due, 4 final score(s), 1 held back" in out
    assert "held: dan 01_toy: waiting for a grader: 1 point(s) still to grade by hand" in out
    assert platform.tokens == [] and not platform.line_items  # a dry run calls nothing

    out, _ = lms(run_course, cd, hub_dir, "grades", retcode=1)  # eve is not in the LMS: said, and exit 1
    print(out)
    assert "LMS: 1 line item(s) made, 0 updated; 3 score(s) sent, 0 unchanged" in out
    assert "not sent, not in the LMS (or not active there): 1\n  eve 01_toy" in out
    [(item_id, item)] = platform.line_items.items()
    assert (item["resourceId"], item["tag"], item["label"], item["scoreMaximum"]) == ("01_toy", COURSE_ID, "01_toy", 3)
    # what the platform received is the course's own export: score (late penalty taken) for complete, 0 for missing
    users = {"amy": "lms-amy", "bob": "lms-bob", "cat": "lms-cat", "dan": "lms-dan"}
    expected = {}
    for row in export_rows(cd):
        if row["assignment"] == "01_toy" and row["student_id"] in users:
            if row["status"] == "complete":
                expected["01_toy", users[row["student_id"]]] = float(row["score"])
            elif row["status"] == "not submitted":
                expected["01_toy", users[row["student_id"]]] = 0.0
    assert (
        held_by_platform(platform)
        == expected
        == {
            ("01_toy", "lms-amy"): 3.0,
            ("01_toy", "lms-bob"): pytest.approx(2.6),  # 3 - 10 % x 2 days x 2 autograded points
            ("01_toy", "lms-cat"): 0.0,
        }
    )
    posted = {(s["userId"], s["activityProgress"], s["gradingProgress"], code) for _, s, code in platform.received}
    assert posted == {
        ("lms-amy", "Completed", "FullyGraded", 201),
        ("lms-bob", "Completed", "FullyGraded", 201),
        ("lms-cat", "Initialized", "FullyGraded", 201),
    }
    assert all(s["scoreMaximum"] == 3 for _, s, _ in platform.received)
    assert not [s for s in platform.received if s[1]["userId"] == "lms-dan"]  # waiting for a grader: nothing

    first = len(platform.received)
    out, _ = lms(run_course, cd, hub_dir, "grades", retcode=1)
    assert "LMS: 0 line item(s) made, 0 updated; 0 score(s) sent, 3 unchanged" in out
    assert len(platform.received) == first and len(platform.line_items) == 1

    # a grader lowers amy's written answer: only her score goes again, later than the first
    assert main(["override", "01_toy", "amy", "why", "0", "--course-dir", str(cd)]) == 0
    out, _ = lms(run_course, cd, hub_dir, "grades", retcode=1)
    assert "1 score(s) sent, 2 unchanged" in out and "sent: amy 01_toy: 2 of 3" in out
    assert [(s["userId"], s["scoreGiven"], code) for _, s, code in platform.received[first:]] == [("lms-amy", 2.0, 200)]
    assert held_by_platform(platform)["01_toy", "lms-amy"] == 2.0


def test_a_token_request_signed_with_another_key_is_refused_in_one_line(
    graded, hub_dir, platform, run_course, tmp_path
):
    (hub_dir / "state" / lti.KEY_NAME).unlink()
    lti.make_key(hub_dir / "state" / lti.KEY_NAME)  # not the key set the LMS was given
    _, err = lms(run_course, graded, hub_dir, "roster", retcode=1)
    print(err)
    assert_one_sentence_error(err)
    assert f"the tool's token request was refused: POST {platform.base}/token answered 400: invalid_client" in err
    assert "Unable to find public key" in err  # the library's own words
    assert platform.tokens == [400] and not platform.received


def test_an_unknown_line_item_and_a_refused_score_are_reported(graded, hub_dir, platform, run_course):
    services = Services.from_hub(hub_dir, EVERY_SCOPE)
    with pytest.raises(ServiceError, match=r"answered 404: Not found\.$"):
        services.post(f"{platform.base}/lineitems/999/scores", SCORE, {"userId": "lms-amy"}, "a score")
    with pytest.raises(ServiceError, match=r"answered 404: Line item not found\.$"):
        services.put(f"{platform.base}/lineitems/999", LINEITEM, {"label": "x"}, "a line item")
    # the platform takes the line item but not the scores (Canvas: a concluded course): the first refusal stops it
    from lti1p3platform.score import UpdateScoreStatus

    platform.refuse = UpdateScoreStatus.NOTAPPLIED
    _, err = lms(run_course, graded, hub_dir, "grades", retcode=1)
    print(err)
    assert_one_sentence_error(err)
    assert "the score of amy in 01_toy was refused: POST " in err and "/scores answered 403: notapplied." in err


def test_a_token_without_the_scores_scope_cannot_send_one(hub_dir, platform):
    reader = Services.from_hub(hub_dir, (NRPS_SCOPE,))
    item = f"{platform.base}/lineitems"
    with pytest.raises(ServiceError, match="answered 401"):
        reader.post(item, LINEITEM, {"label": "x", "scoreMaximum": 1}, "making a line item")
    assert not platform.line_items
