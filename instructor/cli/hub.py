"""course hub: one JupyterHub for the class, configured from the course directory, in the foreground."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from instructor.cli.options import add_course_dir, add_old_spelling, add_root
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.hub import accounts, cgroups, config, lti, privileged
from instructor.hub import run as hub_run
from instructor.hub.pinned import pinned
from instructor.hub.staff import (
    STAFF_NAME,
    Untrusted,
    is_login,
    people,
    read_trusted,
    record_instructors,
    recorded_instructors,
)
from instructor.settings import COURSE_ID

NAME = "hub"
HELP = (
    "Start a JupyterHub for the class from the course directory: students log in, fetch, validate and submit; "
    "staff grade."
)
EXAMPLES = f"""\
what it needs (run as root: it makes Unix accounts and starts servers as their users):
  <dir>/roster.csv          the students (`course roster import class.csv`)
  <dir>/{STAFF_NAME}           instructors and graders: `id,role` (role instructor or grader); root's, or
                            an instructor's, and writable by its owner alone (docs/hub.md: how she edits it)
  an exchange outside <dir> (`course init <dir> --exchange /srv/nbgrader/exchange`)
  configurable-http-proxy   (scripts/install-system-packages.sh)
  <hub-dir>/lti13.json      optional, root's: the LMS's values; LTI 1.3 launches then log people in instead of
                            passwords (staff.csv's optional third column, email, names the staff; docs/hub.md)

what it does (and changes nothing it did not make: see <hub-dir>/state/made.json):
  refuses <dir>/nbgrader_config.py unless root's alone and staff.csv unless root's or an instructor's
  (the staff write <dir>: a grader could put his own file there);
  refuses system accounts (uid below UID_MIN of /etc/login.defs, or no login shell) as ids;
  makes a Unix account (home 0700, a random password in <hub-dir>/state/initial-passwords.csv)
  for each person who has none; an account that exists keeps its home as it is;
  makes the staff's group (--staff-group, default formgrade-{COURSE_ID}) hold exactly staff.csv's ids;
  gives <dir> to root and that group (setgid folders 2770, group-writable files, nothing for others);
  lays the exchange out as the course's (root's; students write only into inbound, 1733);
  writes <hub-dir>/bin/course-privileged and /etc/sudoers.d/course-<group>: the staff's one way
  to root (release, collect, grade, release-feedback; docs/hub.md);
  writes <hub-dir>/jupyterhub_config.py (log in with the Unix password; groups nbgrader-{COURSE_ID} and
  formgrade-{COURSE_ID}; a cgroup of --memory MB, --cpus CPUs per user's server; idle servers
  stopped after --idle-timeout s); then runs JupyterHub until Ctrl-C, which stops every server.
  Students get JupyterLab with the Assignments tab and Validate; staff get JupyterLab in <dir>
  ($COURSE_DIR set, `course` and `course-privileged` in their terminal) with the formgrader at
  /user/<name>/formgrader (its own tab: JupyterHub >= 4.1 blocks it in a frame). See docs/hub.md.

examples:
  sudo course hub --course-dir /srv/seqmodels-grading --port 8000
  sudo course hub --memory 1536 --cpus 0.5 --idle-timeout 1800
  sudo course hub --write-only          # write the configuration, start nothing
"""


def add_arguments(p):
    add_course_dir(p)
    add_root(
        p,
        "course repository whose solutions/ the staff's privileged path releases and grades (may be root's alone)",
        recorded=True,
    )
    p.add_argument("--ip", default="0.0.0.0", help="address to listen on (default: %(default)s)")
    p.add_argument(
        "--port",
        type=int,
        default=8000,
        help="port (default: %(default)s; the hub's and proxy's APIs take the next two)",
    )
    p.add_argument(
        "--hub-dir",
        type=Path,
        default=None,
        help=f"the hub's configuration and state (default: /srv/course-hub/{COURSE_ID})",
    )
    p.add_argument(
        "--memory",
        type=int,
        default=2048,
        metavar="MB",
        help="memory per user's server, kernels included (default: %(default)s)",
    )
    p.add_argument("--cpus", type=float, default=1.0, help="CPUs' time per user's server (default: %(default)s)")
    p.add_argument(
        "--idle-timeout",
        type=int,
        default=3600,
        metavar="SECONDS",
        help="stop servers idle this long (default: %(default)s)",
    )
    # the Kubernetes and Docker files it wrote, unused here, are documented examples now (docs/hub.md)
    add_old_spelling(p, "--image", new="the examples in docs/elsewhere/ (docs/hub.md, Past one machine)", dest="image")
    p.add_argument(
        "--no-limits",
        action="store_true",
        help="start servers even where no memory and process limit can be set (no cgroup v2 or v1 here)",
    )
    p.add_argument(
        "--staff-group",
        default="",
        metavar="GROUP",
        help=f"the staff's Unix group (default: formgrade-{COURSE_ID}; made by `course hub`)",
    )
    p.add_argument(
        "--write-only", action="store_true", help="write the configuration and accounts, do not start the hub"
    )


def settings(args) -> config.HubSettings:
    where = directory.resolve(args.course_dir)
    # root reads them (here, and in the privileged path), and nbgrader runs the .py: refused before they are read
    # if the staff could have written them (the course directory is theirs: a grader may replace them; issue 58)
    with pinned(where):  # the file checked is the file read (instructor.hub.pinned)
        for settings_file in (where / directory.SETTINGS_NAME, where / directory.CONFIG_NAME):
            try:
                read_trusted(settings_file, {0, os.geteuid()})
            except FileNotFoundError:
                pass  # not a course directory (or an older one): CourseDir.at says so
            except Untrusted as err:
                raise CourseError(
                    f"{settings_file} could have been written by someone other than root ({err}): root reads it for "
                    f"the staff; read it, then `chown root: {settings_file}` and `chmod 644` it."
                ) from None
        course_dir = CourseDir.at(where)
    hub_dir = (args.hub_dir or Path("/srv/course-hub") / COURSE_ID).resolve()
    return config.HubSettings(
        course_id=COURSE_ID,
        course_dir=course_dir.path,
        exchange=course_dir.exchange,
        hub_dir=hub_dir,
        people=people(course_dir, recorded_instructors(hub_dir / "state")),
        ip=args.ip,
        port=args.port,
        memory_mb=args.memory,
        cpus=args.cpus,
        idle_timeout=args.idle_timeout,
        no_limits=args.no_limits,
        staff_group=args.staff_group,
        lti=lti.read_settings(hub_dir),  # <hub_dir>/lti13.json, if there: the LMS logs people in (docs/hub.md)
    )


def run(args) -> int:
    s = settings(args)
    print(f"course directory: {s.course_dir}")
    if os.geteuid() != 0:
        raise CourseError(
            "`course hub` makes Unix accounts and starts each user's server as that user: run it as root."
        )
    if cgroups.available():
        print(f"  each user's server: {cgroups.words()}, in course-hub/{cgroups.hub_name(s.hub_dir)}/")
    elif s.no_limits:
        print(f"  servers run without memory or process limits (--no-limits): {cgroups.why()}")
    else:
        raise CourseError(
            f"No memory and process limit can be set for the users' servers here ({cgroups.why()}): run as root "
            "on a machine with cgroup v2 or v1, or pass --no-limits to run them without."
        )
    if not args.write_only and not shutil.which("configurable-http-proxy"):
        raise CourseError("configurable-http-proxy is not installed: sudo bash scripts/install-system-packages.sh")
    accounts.refuse_system(s.people.everyone)
    if not is_login(s.unix_group):
        raise CourseError(f"--staff-group {s.unix_group!r} is not a group name (lower-case letters, digits, _ or -).")
    for change in accounts.set_up_exchange(s.exchange, s.course_dir, s.course_id):
        print(f"  exchange: {change}")
    made = accounts.Made(s.state / "made.json")
    created = accounts.create(sorted(s.people.everyone), s.passwords, made)
    if created:
        print(f"  {len(created)} Unix account(s) made; their passwords: {s.passwords}")
    for home in accounts.open_homes(s.people.everyone):
        print(f"  left as it was: others can read the home of {home}; `chmod 700` it if it holds course work")
    gid = accounts.staff_group(s.unix_group, s.people.staff, made)
    record_instructors(s.state, s.people.instructors)  # who may own staff.csv at the next start
    if accounts.share_course_dir(s.course_dir, gid):
        print(f"  {s.course_dir}: root's and {s.unix_group}'s (setgid folders, group-writable files, not others')")
    accounts.require_reachable(min(s.people.students))
    print(
        f"  students: {len(s.people.students)}, instructors: {', '.join(sorted(s.people.instructors))}"
        + (f", graders: {', '.join(sorted(s.people.graders))}" if s.people.graders else "")
    )
    print(f"configuration: {config.write(s)}")
    if s.lti:
        print(f"  LTI 1.3 from {s.lti['issuer']} logs people in ({lti.SETTINGS_NAME}); the tool's key: {s.lti_key}")
        unnamed = sorted(s.people.everyone - set(s.people.emails.values()))
        if unnamed and s.lti["username_key"] == "email":
            print(f"  no e-mail on the roster or in staff.csv, so no LTI login: {', '.join(unnamed)}")
    script, rule = privileged.install(s.hub_dir, s.course_dir, s.unix_group, root=args.root, key=s.hidden_key)
    print(f"  the staff's privileged path: {script} (sudo rule {rule})")
    if args.write_only:
        return 0
    print(f"JupyterHub on http://{s.ip}:{s.port}/ (Ctrl-C stops it and every server)", flush=True)
    return hub_run.run(s)
