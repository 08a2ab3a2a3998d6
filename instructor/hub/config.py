"""The hub's configuration, written from the course directory.

Folders of ``hub_dir`` (default ``/srv/course-hub/<course id>``):

- ``jupyterhub_config.py``: what JupyterHub reads (no secret in it), rewritten at each start;
- ``jupyterhub_config.local.py``: the instructor's own settings (HTTPS, LTI), loaded last, never rewritten;
- ``state/`` (0700, root's): the hub's database, cookie secret, proxy pid,
  the passwords of accounts ``course hub`` made, what it made (``made.json``)
  the roster's e-mail to id map (``usernames.json``, for LTI) and the key of the
  hidden checks' inputs (``hidden-inputs.key``, made by root's first grading step);
- ``bin/course-privileged``: the staff's privileged path (:mod:`instructor.hub.privileged`);
- ``jupyter/student/`` and ``jupyter/staff/`` (0755): the Jupyter settings each
  kind of user's server reads first (``JUPYTER_CONFIG_PATH``).

Groups and roles are per course, named as nbgrader's multi-course setups name
them (``nbgrader-<course>`` for students, ``formgrade-<course>`` for graders),
so a second course adds its own pair beside these.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from instructor.hub import cgroups, lti
from instructor.hub.staff import People

#: nbgrader's JupyterLab plugins a student does not need (the Assignments tab and Validate stay)
STUDENT_DISABLED_PLUGINS = (
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:create-assignment",
    "@jupyter/nbgrader:course-list",
)
#: nbgrader's server extensions a student does not need
STUDENT_DISABLED_EXTENSIONS = ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list")
#: the course's formgrader pages, as `course formgrader` serves them (instructor/reporting/formgrader_pages.py)
STAFF_EXTENSIONS = {"instructor.reporting.formgrader_pages": True}
#: the shell of a staff terminal: not a login shell, so `course` and $COURSE_PRIVILEGED stay on its PATH
STAFF_SHELL = ["/bin/bash", "-i"]
#: JupyterLab's news pop-up asks a server on the internet
ALWAYS_DISABLED_PLUGINS = ("@jupyterlab/apputils-extension:announcements",)


@dataclass(frozen=True)
class HubSettings:
    """Everything the configuration is made from."""

    course_id: str
    course_dir: Path
    exchange: Path
    hub_dir: Path
    people: People
    ip: str = "0.0.0.0"
    port: int = 8000
    memory_mb: int = 2048
    cpus: float = 1.0
    processes: int = 256
    no_limits: bool = False  # start servers even where no memory and process limit can be set
    idle_timeout: int = 3600  # seconds before an idle server is stopped (jupyterhub-idle-culler)
    staff_group: str = ""  # the Unix group of the staff (default: the hub's group of graders, formgrade-<id>)
    lti: dict | None = None  # the platform's values from <hub_dir>/lti13.json: LTI 1.3 logs people in (hub.lti)

    @property
    def state(self) -> Path:
        return self.hub_dir / "state"

    @property
    def config_file(self) -> Path:
        return self.hub_dir / "jupyterhub_config.py"

    @property
    def local_config(self) -> Path:
        """Settings the instructor adds by hand (never rewritten)."""
        return self.hub_dir / "jupyterhub_config.local.py"

    @property
    def student_config(self) -> Path:
        return self.hub_dir / "jupyter" / "student"

    @property
    def staff_config(self) -> Path:
        return self.hub_dir / "jupyter" / "staff"

    @property
    def passwords(self) -> Path:
        return self.state / "initial-passwords.csv"

    @property
    def usernames(self) -> Path:
        """{e-mail: id} of the roster, root's alone: an authenticator naming people by e-mail maps to ids."""
        return self.state / "usernames.json"

    @property
    def hidden_key(self) -> Path:
        """The key of the hidden checks' inputs root's grading step uses, root's alone (coursedir.hidden_seed)."""
        return self.state / "hidden-inputs.key"

    @property
    def lti_key(self) -> Path:
        """The tool's LTI 1.3 private key, root's alone (made when lti13.json turns LTI on)."""
        return self.state / lti.KEY_NAME

    @property
    def privileged(self) -> Path:
        return self.hub_dir / "bin" / "course-privileged"

    @property
    def unix_group(self) -> str:
        """The staff's Unix group: shares the course directory, may use the privileged path."""
        return self.staff_group or self.grader_group

    @property
    def student_group(self) -> str:
        return f"nbgrader-{self.course_id}"

    @property
    def grader_group(self) -> str:
        return f"formgrade-{self.course_id}"


def _sorted(names) -> list[str]:
    return sorted(names)


def hub_config(s: HubSettings) -> str:
    """The text of ``jupyterhub_config.py``: literal values only, so it reads as the settings it holds."""
    python = sys.executable
    lines = [
        f'"""JupyterHub for course {s.course_id} (written by `course hub` from {s.course_dir}; '
        'rewritten at each start)."""',
        "",
        "c = get_config()  # noqa: F821",
        "",
        "# where and how it listens (the hub's API and the proxy's API next to it, on loopback)",
        f"c.JupyterHub.bind_url = {f'http://{s.ip}:{s.port}/'!r}",
        f"c.JupyterHub.hub_bind_url = {f'http://127.0.0.1:{s.port + 1}'!r}",
        f"c.ConfigurableHTTPProxy.api_url = {f'http://127.0.0.1:{s.port + 2}'!r}",
        f"c.ConfigurableHTTPProxy.pid_file = {str(s.state / 'proxy.pid')!r}",
        f"c.JupyterHub.db_url = {'sqlite:///' + str(s.state / 'jupyterhub.sqlite')!r}",
        f"c.JupyterHub.cookie_secret_file = {str(s.state / 'jupyterhub_cookie_secret')!r}",
        "c.JupyterHub.cleanup_servers = True  # stopping the hub stops every user's server",
        "",
        "# who may log in: Unix accounts (PAM) of the roster and the staff, nobody else",
        "c.JupyterHub.authenticator_class = 'pam'",
        "c.PAMAuthenticator.open_sessions = False",
        f"c.Authenticator.allowed_users = {set(_sorted(s.people.everyone))!r}",
        f"c.Authenticator.admin_users = {set(_sorted(s.people.instructors))!r}",
        "# an authenticator that names people by e-mail (LTI's default) lands on the roster's ids, the Unix names",
        f"c.Authenticator.username_map = __import__('json').loads(open({str(s.usernames)!r}).read())",
        *(lti.config_lines(s.lti, s.lti_key, s.people.instructors, s.people.graders) if s.lti else []),
        "",
        "# groups and roles of this course (another course adds its own pair)",
        "c.JupyterHub.load_groups = {",
        f"    {s.student_group!r}: {{'users': {_sorted(s.people.students)!r}}},",
        f"    {s.grader_group!r}: {{'users': {_sorted(s.people.staff)!r}}},",
        "}",
        "c.JupyterHub.load_roles = [",
        f"    {{'name': {s.grader_group!r}, 'groups': [{s.grader_group!r}],",
        f"     'scopes': ['self', 'list:users!group={s.student_group}', 'read:users!group={s.student_group}']}},",
        "    {'name': 'idle-culler', 'services': ['idle-culler'],",
        "     'scopes': ['list:users', 'read:users:activity', 'read:servers', 'delete:servers']},",
        "]",
        f"c.JupyterHub.services = [{{'name': 'idle-culler', 'command': "
        f"[{python!r}, '-m', 'jupyterhub_idle_culler', '--timeout={s.idle_timeout}']}}]",
        "",
        "# each user's server: their own Unix user, inside a cgroup budget",
        "c.JupyterHub.spawner_class = 'instructor.hub.spawner.CourseSpawner'",
        f"c.Spawner.cmd = [{python!r}, '-m', 'jupyterhub.singleuser']",
        "c.Spawner.default_url = '/lab'",
        "# a class logging in at once on two cores: JupyterLab took 100-125 s to answer (10 together, load 14-21)",
        "c.Spawner.http_timeout = 300",
        "c.Spawner.start_timeout = 300",
        f"c.CourseSpawner.staff = {set(_sorted(s.people.staff))!r}",
        f"c.CourseSpawner.course_dir = {str(s.course_dir)!r}",
        f"c.CourseSpawner.student_config = {str(s.student_config)!r}",
        f"c.CourseSpawner.staff_config = {str(s.staff_config)!r}",
        f"c.CourseSpawner.privileged = {str(s.privileged)!r}",
        f"c.CourseSpawner.memory_mb = {s.memory_mb!r}",
        f"c.CourseSpawner.cpus = {s.cpus!r}",
        f"c.CourseSpawner.processes = {s.processes!r}",
        f"c.CourseSpawner.cgroup_parent = {cgroups.hub_name(s.hub_dir)!r}",
        f"c.CourseSpawner.no_limits = {s.no_limits!r}",
        "",
        "# the instructor's own additions (HTTPS, LTI, ...) survive the rewrite: they live in a file of their own",
        f"local = {str(s.local_config)!r}",
        "if __import__('os').path.exists(local):",
        "    load_subconfig(local)  # noqa: F821",
        "",
    ]
    return "\n".join(lines)


def student_nbgrader_config(s: HubSettings) -> str:
    return "\n".join(
        [
            '"""nbgrader settings of every student server on the hub (written by `course hub`)."""',
            "c = get_config()  # noqa: F821",
            f"c.CourseDirectory.course_id = {s.course_id!r}",
            f"c.Exchange.root = {str(s.exchange)!r}",
            "# the exchange's root is root's 0755 (docs/trust.md): skip nbgrader's check that it is world-writable",
            "c.CourseDirectory.groupshared = True",
            "# a submission folder 0755, not nbgrader's 0777",
            "c.ExchangeFactory.submit = 'instructor.hub.student.PrivateSubmit'",
            "# 'view feedback' shows the feedback page (selected in its folder), not only the folder",
            "c.ExchangeFactory.list = 'instructor.hub.student.FeedbackPageList'",
            "",
        ]
    )


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, mode)


def write(s: HubSettings) -> Path:
    """Write the hub's configuration and the Jupyter settings; returns the config file."""
    s.hub_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(s.hub_dir, 0o755)
    s.state.mkdir(exist_ok=True)
    os.chmod(s.state, 0o700)
    _write(s.config_file, hub_config(s))
    for folder, plugins, extensions in (
        (
            s.student_config,
            STUDENT_DISABLED_PLUGINS + ALWAYS_DISABLED_PLUGINS,
            dict.fromkeys(STUDENT_DISABLED_EXTENSIONS, False),
        ),
        (s.staff_config, ALWAYS_DISABLED_PLUGINS, STAFF_EXTENSIONS),
    ):
        _write(
            folder / "labconfig" / "page_config.json",
            json.dumps({"disabledExtensions": {p: True for p in plugins}}, indent=1) + "\n",
        )
        server: dict = {"jpserver_extensions": extensions}
        if folder == s.staff_config:  # terminals keep the server's PATH (a login shell takes Debian's /etc/profile's)
            server["terminado_settings"] = {"shell_command": STAFF_SHELL}
        _write(folder / "jupyter_server_config.json", json.dumps({"ServerApp": server}, indent=1) + "\n")
        for sub in (folder, folder / "labconfig", folder.parent):
            os.chmod(sub, 0o755)
    _write(s.student_config / "nbgrader_config.py", student_nbgrader_config(s))
    _write(s.usernames, json.dumps(s.people.emails, indent=1, sort_keys=True) + "\n", 0o600)
    if s.lti:
        lti.make_key(s.lti_key)
    return s.config_file
