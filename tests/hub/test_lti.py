"""LTI 1.3 from a real platform into `course hub` (issue 62, the launch): in, under the roster's id; bad launches out.

The platform is ``lti1p3platform`` (PyPI), served on localhost by
:mod:`tests.hub.lti_platform`; the hub is ``course hub`` started as the other
hub tests start it, with ``lti13.json`` in its folder naming that platform.
Each launch is the LMS's: the platform's OIDC login initiation, the hub's
authentication request back to the platform, the platform's signed id_token
POSTed by the browser to ``/hub/lti13/oauth_callback``. A launch the hub
refuses logs nobody in and leaves one line, ``LTI 1.3 launch refused: ...``,
in the hub's log.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import stat
import time
from dataclasses import dataclass

import pytest

from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.hub import config, lti
from instructor.hub.staff import people
from tests.browser.test_jupyterlab import OPEN_TIMEOUT_MS, SCREENSHOTS, chromium  # noqa: F401  (fixture)
from tests.hub.harness import GRADER, INSTRUCTOR, STUDENTS, processes_of, running_hub
from tests.system import require_root, require_tools

requests = pytest.importorskip("requests")
pytest.importorskip("ltiauthenticator")
lti_platform = pytest.importorskip("tests.hub.lti_platform")  # lti1p3platform, the test extra

AMY, BOB = STUDENTS
REFUSED = "LTI 1.3 launch refused: "
#: a user's server starting on a shared two-core machine (JupyterHub's own start_timeout is 300 s)
SERVER_TIMEOUT = 300


def course_dir(tmp_path, staff="id,role,email\nteach,instructor,Teach@Example.edu\nta,grader,\n"):
    (tmp_path / "roster.csv").write_text("id,first_name,email\namy,Amy,amy@example.edu\nbob,Bob,\n")
    (tmp_path / "staff.csv").write_text(staff)
    return tmp_path


def test_staff_csv_may_give_e_mails_and_usernames_json_holds_the_rosters_and_the_staffs(tmp_path):
    assert people(CourseDir.places_at(course_dir(tmp_path))).emails == {
        "amy@example.edu": "amy",
        "teach@example.edu": "teach",
    }
    with pytest.raises(CourseError, match="amy@example.edu is the e-mail of a student on the roster and of staff"):
        people(CourseDir.places_at(course_dir(tmp_path, "id,role,email\nteach,instructor,amy@example.edu\n")))


def test_lti13_json_turns_lti_on_in_the_configuration_jupyterhub_loads(tmp_path):
    from jupyterhub.app import JupyterHub

    hub_dir = tmp_path / "hub"
    hub_dir.mkdir()
    settings = {
        "issuer": "https://canvas.instructure.com",
        "client_id": "10000000000042",
        "deployment_id": ["17:abc"],
        "authorize_url": "https://sso.canvaslms.com/api/lti/authorize_redirect",
        "jwks_endpoint": "https://sso.canvaslms.com/api/lti/security/jwks",
    }
    (hub_dir / "lti13.json").write_text(json.dumps(settings))
    os.chmod(hub_dir / "lti13.json", 0o644)
    read = lti.read_settings(hub_dir)
    assert read is not None and read["client_id"] == ["10000000000042"] and read["username_key"] == "email"
    s = config.HubSettings(
        "seqmodels", tmp_path, tmp_path / "x", hub_dir, people(CourseDir.places_at(course_dir(tmp_path))), lti=read
    )
    app = JupyterHub()
    app.load_config_file(str(config.write(s)))
    c = app.config
    assert c.JupyterHub.authenticator_class == "instructor.hub.lti_auth.CourseLTI13Authenticator"
    assert c.LTI13Authenticator.client_id == {"10000000000042"}
    assert c.CourseLTI13Authenticator.deployment_ids == {"17:abc"}
    assert (c.CourseLTI13Authenticator.instructors, c.CourseLTI13Authenticator.graders) == ({"teach"}, {"ta"})
    assert stat.S_IMODE(s.lti_key.stat().st_mode) == 0o600
    assert "example.edu" not in s.config_file.read_text()  # the e-mails stay in the root-only state folder
    assert lti.public_jwks(s.lti_key)["keys"][0]["kty"] == "RSA"

    os.chmod(hub_dir / "lti13.json", 0o664)  # the platform whose keys log people in: root's alone
    with pytest.raises(CourseError, match="could have been written by someone other than root"):
        lti.read_settings(hub_dir)
    os.chmod(hub_dir / "lti13.json", 0o644)
    (hub_dir / "lti13.json").write_text(json.dumps({**settings, "deployment_id": "", "client": "x"}))
    with pytest.raises(CourseError, match="missing deployment_id; unknown client"):
        lti.read_settings(hub_dir)
    (hub_dir / "lti13.json").unlink()
    assert lti.read_settings(hub_dir) is None


@pytest.mark.parametrize(
    ("roles", "rank"),
    [
        (["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"], "student"),
        (["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"], "instructor"),
        (["Instructor"], "instructor"),
        (
            [
                "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
                "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant",
            ],
            "grader",
        ),
        (["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator"], "student"),
        ("not a list", "student"),
    ],
)
def test_the_platforms_roles_as_the_courses(roles, rank):
    assert lti.RANKS[lti.lms_rank(roles)] == rank


def test_spent_nonces_outlive_a_restart_of_the_hub(tmp_path):
    """A launch captured and replayed after the hub restarted is refused as a replay; stale nonces are dropped."""
    from instructor.hub.lti_auth import CourseLTI13Authenticator, Refused

    kept = tmp_path / lti.SPENT_NONCES
    now = time.time()
    before = CourseLTI13Authenticator(spent_nonces_file=str(kept))
    before.spend_nonce({"nonce": "fresh", "iat": now, "exp": now + 300})
    before._spent["stale"] = now - 1  # a nonce whose token could no longer be taken
    before._keep_spent()
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    after = CourseLTI13Authenticator(spent_nonces_file=str(kept))  # the hub restarted
    with pytest.raises(Refused, match="replayed nonce"):
        after.spend_nonce({"nonce": "fresh", "iat": now, "exp": now + 300})
    assert set(after._spent) == {"fresh"}
    kept.write_text("{not json")
    assert CourseLTI13Authenticator(spent_nonces_file=str(kept))._spent == {}  # said in the log, none kept


@pytest.fixture(scope="module")
def platform():
    people = {
        **{s: lti_platform.Person(f"lms-{s}", f"{s}@example.edu", [lti_platform.LEARNER], s.title()) for s in STUDENTS},
        INSTRUCTOR: lti_platform.Person("lms-teach", f"{INSTRUCTOR}@example.edu", [lti_platform.INSTRUCTOR]),
        GRADER: lti_platform.Person("lms-ta", f"{GRADER}@example.edu", lti_platform.TEACHING_ASSISTANT),
        # amy, as the LMS would say if she were made instructor there but not in staff.csv
        "amy-as-instructor": lti_platform.Person(f"lms-{AMY}", f"{AMY}@example.edu", [lti_platform.INSTRUCTOR]),
        "stranger": lti_platform.Person("lms-x", "stranger@example.edu", [lti_platform.LEARNER]),
    }
    p = lti_platform.Platform(people).start()
    try:
        yield p
    finally:
        p.stop()


@pytest.fixture(scope="module")
def hub(platform):
    require_root("course hub makes Unix accounts and starts servers as their users")
    require_tools("configurable-http-proxy", "unshare", "nsenter", "useradd")
    with running_hub(hub_files={"lti13.json": json.dumps(platform.hub_settings())}) as h:
        platform.tool = h.base
        yield h


@dataclass
class Launch:
    """The platform's auto-submitting form, and the cookies the hub set before it (what the browser holds)."""

    action: str
    id_token: str
    state: str
    cookies: object


def start_launch(session, platform, user: str, fault: str = "") -> Launch:
    """Click the assignment in the LMS: the redirects up to the platform's form that POSTs the id_token."""
    reply = session.get(f"{platform.base}/launch", params={"user": user, "fault": fault}, timeout=60)
    assert reply.status_code == 200, reply.text[-2000:]
    action = re.search(r'action="([^"]+)"', reply.text).group(1)
    fields = dict(re.findall(r'name="(id_token|state)" value="([^"]+)"', reply.text))
    return Launch(action.replace("&amp;", "&"), fields["id_token"], fields["state"], session.cookies.copy())


def post(session, launch: Launch):
    return session.post(
        launch.action, data={"id_token": launch.id_token, "state": launch.state}, allow_redirects=False, timeout=60
    )


def logged_in(session, hub) -> bool:
    """Does the hub know this browser? (/hub/home sends a stranger to the login page.)"""
    reply = session.get(f"{hub.base}/hub/home", allow_redirects=False, timeout=30)
    return reply.status_code == 200


def log_since(hub, mark: int) -> str:
    with open(hub.log, "rb") as f:
        f.seek(mark)
        return f.read().decode(errors="replace")


def refused_lines(hub, mark: int) -> list[str]:
    return [line for line in log_since(hub, mark).splitlines() if REFUSED in line]


def test_a_student_launched_from_the_lms_lands_on_her_own_server_under_her_roster_id(hub, platform):
    session = requests.Session()
    mark = hub.log.stat().st_size
    launch = start_launch(session, platform, AMY)
    assert launch.action == f"{hub.base}/hub/lti13/oauth_callback"
    reply = post(session, launch)
    assert reply.status_code == 302, reply.text[-2000:]
    assert logged_in(session, hub)
    deadline = time.monotonic() + SERVER_TIMEOUT
    while True:  # /hub/ spawns her server; /user/<id>/lab answers once it runs (the OAuth dance included)
        lab = session.get(f"{hub.base}/hub/", timeout=60)
        if lab.url == f"{hub.base}/user/{AMY}/lab" and lab.status_code == 200:
            break
        assert time.monotonic() < deadline, f"{lab.status_code} {lab.url}\n{log_since(hub, mark)[-3000:]}"
        time.sleep(3)
    assert "JupyterLab" in lab.text
    assert any("jupyterhub.singleuser" in p or "jupyterhub-singleuser" in p for p in processes_of([AMY]))
    log = log_since(hub, mark)
    assert f"LTI 1.3 launch: {AMY} logs in (student in this course)" in log
    assert f"User logged in: {AMY}" in log
    assert "User logged in: amy" + "@" not in log  # her e-mail never became a hub user
    assert not refused_lines(hub, mark)


@pytest.mark.parametrize(
    ("who", "role"),
    [(INSTRUCTOR, "instructor"), (GRADER, "grader")],
    ids=["Instructor is the course's instructor", "TeachingAssistant is the course's grader"],
)
def test_the_platforms_staff_roles_land_as_the_courses_staff(hub, platform, who, role):
    session = requests.Session()
    mark = hub.log.stat().st_size
    reply = post(session, start_launch(session, platform, who))
    assert reply.status_code == 302, reply.text[-2000:]
    assert logged_in(session, hub)
    assert f"LTI 1.3 launch: {who} logs in ({role} in this course)" in log_since(hub, mark)


def test_the_tools_key_is_the_courses_root_only_and_its_public_half_is_served(hub, platform):
    assert f"LTI 1.3 from {platform.base} logs people in (lti13.json)" in hub.log.read_text()  # course hub says so
    assert "no LTI login" not in hub.log.read_text()  # everyone has an e-mail
    key = hub.hub_dir / "state" / "lti13-tool-key.pem"
    info = key.stat()
    assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (0, 0o600)
    assert stat.S_IMODE((hub.hub_dir / "state").stat().st_mode) == 0o700
    keys = requests.get(f"{hub.base}/hub/lti13/jwks", timeout=30).json()["keys"]
    assert [(k["kty"], k["alg"], k["use"]) for k in keys] == [("RSA", "RS256", "sig")]
    assert "d" not in keys[0] and keys[0]["kid"]  # the public half only
    tool = requests.get(f"{hub.base}/hub/lti13/config", timeout=30).json()  # Canvas's "Enter URL"
    assert tool["oidc_initiation_url"] == f"{hub.base}/hub/lti13/oauth_login"
    assert tool["public_jwk_url"] == f"{hub.base}/hub/lti13/jwks"


def test_the_hubs_own_login_page_takes_no_password(hub):
    """Is the password form gone, and does its button, pressed outside a launch, log nobody in?"""
    page = requests.get(f"{hub.base}/hub/login", timeout=30)
    assert page.status_code == 200 and "Sign in with LTI 1.3" in page.text
    assert 'name="password"' not in page.text
    session = requests.Session()
    assert session.get(f"{hub.base}/hub/lti13/oauth_login", timeout=30).status_code == 400
    assert not logged_in(session, hub)


def test_over_https_the_state_cookies_cross_sites(hub, platform):
    """The LMS POSTs the id_token from its own site: a browser sends the state and nonce cookies only if they are
    SameSite=None (and so Secure); behind an HTTPS proxy they are."""
    reply = requests.get(
        f"{hub.base}/hub/lti13/oauth_login",
        params={"iss": platform.base, "login_hint": "lms-x", "target_link_uri": f"{hub.base}/hub/"},
        headers={"X-Forwarded-Proto": "https"},
        allow_redirects=False,
        timeout=30,
    )
    assert reply.status_code == 302
    cookies = [c for c in reply.raw.headers.getlist("Set-Cookie") if c.startswith("lti13authenticator-")]
    assert len(cookies) == 2
    assert all("SameSite=None" in c and "Secure" in c for c in cookies), cookies


def tampered(id_token: str, **claims) -> str:
    """The id_token with ``claims`` changed and the platform's signature kept (what a student could forge)."""
    header, body, signature = id_token.split(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    payload.update(claims)
    new = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=").decode()
    return f"{header}.{new}.{signature}"


BAD_LAUNCHES = [
    ("wrong signature", "Signature verification failed"),
    ("expired token", "Signature has expired"),
    ("wrong audience", "Audience doesn't match"),
    ("wrong issuer", "Invalid issuer"),
    ("replayed nonce", "replayed nonce"),
    ("unknown deployment id", "unknown deployment id '9:another-deployment'"),
    ("platform role above staff.csv's", f"the platform says instructor for {AMY}, who is student"),
    ("nobody of the course", "'stranger@example.edu' is neither on the roster nor in staff.csv"),
]


# ids without the run's names: each xdist worker imports this module with names of its own
@pytest.mark.parametrize(("case", "why"), BAD_LAUNCHES, ids=[case for case, _ in BAD_LAUNCHES])
def test_a_bad_launch_is_refused_with_one_line_in_the_log(hub, platform, case, why):
    session = requests.Session()
    user = {"platform role above staff.csv's": "amy-as-instructor", "nobody of the course": "stranger"}.get(case, AMY)
    fault = {
        "expired token": "expired",
        "wrong audience": "audience",
        "wrong issuer": "issuer",
        "unknown deployment id": "deployment",
    }
    launch = start_launch(session, platform, user, fault.get(case, ""))
    if case == "wrong signature":  # amy's token, her e-mail made bob's
        launch.id_token = tampered(launch.id_token, email=f"{BOB}@example.edu")
    if case == "replayed nonce":  # her launch went through; the same POST, with the cookies it carried, again
        first = requests.Session()
        first.cookies.update(launch.cookies)
        assert post(first, launch).status_code == 302
        session = requests.Session()
        session.cookies.update(launch.cookies)
    mark = hub.log.stat().st_size
    reply = post(session, launch)
    assert 400 <= reply.status_code < 500, (reply.status_code, reply.text[-1000:])
    assert "jupyterhub-hub-login" not in session.cookies
    assert not logged_in(session, hub)
    lines = refused_lines(hub, mark)
    assert len(lines) == 1 and why in lines[0], log_since(hub, mark)[-3000:]
    print(lines[0])
    assert why in html.unescape(reply.text)  # the page says why too


@pytest.mark.browser
def test_a_student_launched_in_chromium_gets_jupyterlab(hub, platform, chromium):  # noqa: F811
    context = chromium.new_context(viewport={"width": 1400, "height": 800})
    try:
        page = context.new_page()
        page.goto(f"{platform.base}/launch?user={BOB}")  # the LMS's link: login, the form that POSTs itself
        page.locator(".jp-LauncherCard").first.wait_for(timeout=OPEN_TIMEOUT_MS)
        assert page.url.startswith(f"{hub.base}/user/{BOB}/lab")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "hub-lti-launch.png"))
    finally:
        context.close()
