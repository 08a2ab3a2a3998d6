"""`course hub`'s configuration, loaded by JupyterHub itself (the per-user limits: tests/hub/test_cgroups.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.hub import config
from instructor.hub.staff import People, people

pytest.importorskip("jupyterhub")


def settings(tmp_path: Path) -> config.HubSettings:
    return config.HubSettings(
        course_id="seqmodels",
        course_dir=tmp_path / "course",
        exchange=tmp_path / "exchange",
        hub_dir=tmp_path / "hub",
        people=People(frozenset({"amy", "bob"}), frozenset({"teach"}), frozenset({"ta"}), {"amy@example.edu": "amy"}),
        port=18500,
        memory_mb=1536,
        cpus=0.5,
    )


def test_jupyterhub_loads_the_configuration_as_written(tmp_path):
    """Does JupyterHub's own config loader read back who may log in, the groups, roles and limits?"""
    from jupyterhub.app import JupyterHub

    s = settings(tmp_path)
    app = JupyterHub()
    app.load_config_file(str(config.write(s)))
    c = app.config
    assert c.JupyterHub.authenticator_class == "pam"
    assert c.Authenticator.allowed_users == {"amy", "bob", "teach", "ta"}
    assert not c.Authenticator.get("allow_all", False)  # nobody outside the roster and the staff
    assert c.Authenticator.admin_users == {"teach"}
    assert c.JupyterHub.load_groups == {
        "nbgrader-seqmodels": {"users": ["amy", "bob"]},
        "formgrade-seqmodels": {"users": ["ta", "teach"]},
    }
    roles = {r["name"]: r for r in c.JupyterHub.load_roles}
    assert "list:users!group=nbgrader-seqmodels" in roles["formgrade-seqmodels"]["scopes"]
    assert not any(s.startswith("admin") for s in roles["formgrade-seqmodels"]["scopes"])
    assert c.JupyterHub.bind_url == "http://0.0.0.0:18500/"
    assert c.JupyterHub.services[0]["command"][1:3] == ["-m", "jupyterhub_idle_culler"]
    assert c.JupyterHub.spawner_class == "instructor.hub.spawner.CourseSpawner"
    assert (c.CourseSpawner.memory_mb, c.CourseSpawner.cpus, c.CourseSpawner.staff) == (1536, 0.5, {"teach", "ta"})
    assert oct((s.state).stat().st_mode & 0o777) == "0o700"  # the cookie secret and the passwords live there


def test_an_lti_login_by_e_mail_lands_on_the_rosters_unix_name(tmp_path):
    """LTI 1.3 names people by e-mail by default; the roster's ids are the Unix names (issue 43.7)."""
    from jupyterhub.app import JupyterHub
    from jupyterhub.auth import Authenticator

    s = settings(tmp_path)
    app = JupyterHub()
    app.load_config_file(str(config.write(s)))
    authenticator = Authenticator(config=app.config)
    assert authenticator.normalize_username("amy@example.edu") == "amy"
    assert authenticator.normalize_username("Amy@Example.edu") == "amy"  # lower-cased first, as JupyterHub does
    assert "example.edu" not in s.config_file.read_text()  # the e-mails stay in the root-only state folder
    assert oct(s.usernames.stat().st_mode & 0o777) == "0o600"


def test_the_staff_servers_find_the_course_and_the_privileged_path(tmp_path):
    from jupyterhub.app import JupyterHub

    s = settings(tmp_path)
    app = JupyterHub()
    app.load_config_file(str(config.write(s)))
    assert app.config.CourseSpawner.privileged == str(s.hub_dir / "bin" / "course-privileged")
    assert app.config.CourseSpawner.course_dir == str(s.course_dir)
    students = (s.student_config / "nbgrader_config.py").read_text()
    assert "c.ExchangeFactory.submit = 'instructor.hub.student.PrivateSubmit'" in students
    assert "c.ExchangeFactory.list = 'instructor.hub.student.FeedbackPageList'" in students
    assert "c.CourseDirectory.groupshared = True" in students


def test_the_instructors_own_settings_are_loaded_last(tmp_path):
    """HTTPS or LTI settings in jupyterhub_config.local.py override what `course hub` writes."""
    from jupyterhub.app import JupyterHub

    s = settings(tmp_path)
    s.hub_dir.mkdir(parents=True)
    s.local_config.write_text("c.JupyterHub.ssl_cert = '/etc/ssl/hub.pem'\nc.CourseSpawner.memory_mb = 999\n")
    app = JupyterHub()
    app.load_config_file(str(config.write(s)))
    assert (app.config.JupyterHub.ssl_cert, app.config.CourseSpawner.memory_mb) == ("/etc/ssl/hub.pem", 999)


def test_students_settings_switch_off_the_instructor_tools(tmp_path):
    s = settings(tmp_path)
    config.write(s)
    page = json.loads((s.student_config / "labconfig" / "page_config.json").read_text())["disabledExtensions"]
    assert {"@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment"} <= set(page)
    assert "@jupyter/nbgrader:assignment-list" not in page and "@jupyter/nbgrader:validate-assignment" not in page
    server = json.loads((s.student_config / "jupyter_server_config.json").read_text())
    assert server["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.formgrader"] is False
    staff = json.loads((s.staff_config / "jupyter_server_config.json").read_text())
    assert staff["ServerApp"]["jpserver_extensions"] == {"instructor.reporting.formgrader_pages": True}
    nbgrader = (s.student_config / "nbgrader_config.py").read_text()
    assert f"c.Exchange.root = {str(s.exchange)!r}" in nbgrader and "course_id = 'seqmodels'" in nbgrader


@pytest.mark.parametrize(
    "staff, roster, error",
    [
        (None, "amy", "does not exist"),
        ("teach,grader\n", "amy", "names no instructor"),
        ("teach,instructor\n", "amy\nteach", "both on the roster"),
        ("teach,instructor\n", "Amy.B", "login names"),
        ("teach,boss\n", "amy", "is not one of"),
    ],
)
def test_who_is_on_the_hub_is_checked(tmp_path, staff, roster, error):
    (tmp_path / "roster.csv").write_text("id\n" + roster + "\n")
    if staff is not None:
        (tmp_path / "staff.csv").write_text("id,role\n" + staff)
    with pytest.raises(CourseError, match=error):
        people(CourseDir.places_at(tmp_path))


def test_people_from_the_course_directory(tmp_path):
    (tmp_path / "roster.csv").write_text("id,first_name\namy,Amy\nbob,Bob\n")
    (tmp_path / "staff.csv").write_text("id,role\nteach,instructor\nta,grader\n")
    found = people(CourseDir.places_at(tmp_path))
    assert found.students == {"amy", "bob"} and found.instructors == {"teach"} and found.graders == {"ta"}


def test_ctrl_c_ends_the_idle_culler_at_once():
    """JupyterHub SIGINTs its culler and waits up to 30 s for it (issue 43.7: Ctrl-C took 35 s); `course hub`
    SIGTERMs the culler first. Here a stand-in that ignores SIGINT, and a neighbour that must be left alone."""
    from instructor.hub import run

    ignore = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(120)"
    culler = subprocess.Popen([sys.executable, "-c", ignore, run.CULLER])
    neighbour = subprocess.Popen([sys.executable, "-c", ignore, "a-users-server"])
    try:
        for _ in range(100):  # until its command line is the stand-in's (after exec)
            if run.children(os.getpid(), run.CULLER):
                break
            time.sleep(0.05)
        assert run.stop_culler(os.getpid()) == 1
        assert culler.wait(timeout=60) == -15
        assert neighbour.poll() is None
    finally:
        for process in (culler, neighbour):
            process.kill()
            process.wait()
