"""course hub: one JupyterHub for the class, configured from the course directory, in the foreground."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from instructor.cli.options import add_course_dir
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.hub import accounts, cgroups, config, elsewhere
from instructor.hub import run as hub_run
from instructor.hub.staff import STAFF_NAME, people
from instructor.settings import COURSE_ID

NAME = "hub"
HELP = (
    "Start a JupyterHub for the class from the course directory: students log in, fetch, validate and submit; "
    "staff grade."
)
EXAMPLES = f"""\
what it needs (run as root: it makes Unix accounts and starts servers as their users):
  <dir>/roster.csv          the students (`course roster import class.csv`)
  <dir>/{STAFF_NAME}           instructors and graders: `id,role` (role instructor or grader)
  an exchange outside <dir> (`course init <dir> --exchange /srv/nbgrader/exchange`)
  configurable-http-proxy   (scripts/install-system-packages.sh)

what it does:
  makes a Unix account (home 0700, a random password in <hub-dir>/state/initial-passwords.csv)
  for each person who has none; takes group and others' rights off <dir>; writes
  <hub-dir>/jupyterhub_config.py (log in with the Unix password; groups nbgrader-{COURSE_ID} and
  formgrade-{COURSE_ID}; a cgroup of --memory MB, --cpus CPUs per user's server; idle servers
  stopped after --idle-timeout s); then runs JupyterHub until Ctrl-C, which stops every server.
  Students get JupyterLab with the Assignments tab and Validate; staff get JupyterLab in <dir>
  with the formgrader at /user/<name>/formgrader (its own tab: JupyterHub >= 4.1 blocks it in a frame).
  See docs/hub.md.

examples:
  sudo course hub --course-dir /srv/seqmodels-grading --port 8000
  sudo course hub --memory 1536 --cpus 0.5 --idle-timeout 1800
  sudo course hub --write-only          # write the configuration, start nothing
"""


def add_arguments(p):
    add_course_dir(p)
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
        "--idle-timeout", type=int, default=3600, metavar="S", help="stop servers idle this long (default: %(default)s)"
    )
    p.add_argument(
        "--image",
        default="seqmodels-course:latest",
        help="the image with the course installed, for the Kubernetes and Docker files (default: %(default)s)",
    )
    p.add_argument(
        "--no-limits",
        action="store_true",
        help="start servers even where no memory and process limit can be set (no cgroup v2 or v1 here)",
    )
    p.add_argument(
        "--write-only", action="store_true", help="write the configuration and accounts, do not start the hub"
    )


def settings(args) -> config.HubSettings:
    course_dir = CourseDir.at(directory.resolve(args.course_dir))
    return config.HubSettings(
        course_id=COURSE_ID,
        course_dir=course_dir.path,
        exchange=course_dir.exchange,
        hub_dir=(args.hub_dir or Path("/srv/course-hub") / COURSE_ID).resolve(),
        people=people(course_dir.path),
        ip=args.ip,
        port=args.port,
        memory_mb=args.memory,
        cpus=args.cpus,
        idle_timeout=args.idle_timeout,
        no_limits=args.no_limits,
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
    accounts.check_exchange(s.exchange, s.course_dir)
    if accounts.private_course_dir(s.course_dir):
        print(f"  {s.course_dir}: group and others' rights removed (students must not read it)")
    made = accounts.create(sorted(s.people.everyone), s.passwords)
    if made:
        print(f"  {len(made)} Unix account(s) made; their passwords: {s.passwords}")
    accounts.check_reachable(min(s.people.students))
    print(
        f"  students: {len(s.people.students)}, instructors: {', '.join(sorted(s.people.instructors))}"
        + (f", graders: {', '.join(sorted(s.people.graders))}" if s.people.graders else "")
    )
    print(f"configuration: {config.write(s)}")
    for path in elsewhere.write(s, args.image):
        print(f"  past one machine (not used here): {path}")
    if args.write_only:
        return 0
    print(f"JupyterHub on http://{s.ip}:{s.port}/ (Ctrl-C stops it and every server)", flush=True)
    return hub_run.run(s)
