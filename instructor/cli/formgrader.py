"""course formgrader: nbgrader's formgrader on the course directory, in one command."""

from __future__ import annotations

import os
import subprocess
import sys

from instructor.cli.options import add_course_dir
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError

NAME = "formgrader"
HELP = "Start JupyterLab in the course directory with nbgrader's formgrader: hand grading on `course grade`'s grades."
EXAMPLES = """\
what it does:
  runs `jupyter lab` with <dir> as its folder, so nbgrader's formgrader reads
  <dir>/nbgrader_config.py and .json: the same gradebook, exchange and feedback
  settings as `course` (Generate Feedback leaves the hidden tests out). Open the
  address with `?token=` that Jupyter prints (it logs you in), then
  http://<ip>:<port>/formgrader in the same browser, or Nbgrader > Formgrader
  in JupyterLab. Stop with Ctrl-C.
  The course's pages are loaded with it (instructor.reporting.formgrader_pages):
  names never markup, no one-click full credit on an autograded test, the
  diff of a flagged cell, "Flagged?" from `course grade`, and no Autograde
  button (grading is `course grade`'s, in the sandbox; the API refuses too).
  Under JupyterHub >= 4.1 open the formgrader in its own tab (nbgrader #1870).
  Run it as yourself, not root: only `course grade` needs root (for the
  sandbox), and it gives what it writes back to the owner of <dir>. As root
  it is refused unless you add `-- --allow-root`.

examples:
  course formgrader
  course formgrader --port 8890
  course formgrader -- --allow-root     # anything after -- goes to jupyter lab
"""


def add_arguments(p):
    add_course_dir(p)
    p.add_argument("--ip", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    p.add_argument("--port", type=int, default=8888, help="port (default: %(default)s)")
    p.add_argument("extra", nargs="*", metavar="-- JUPYTER-ARGS", help="more options for jupyter lab")


#: the server extension of the course's formgrader pages, added to those Jupyter finds installed (nbgrader's)
COURSE_PAGES = "--ServerApp.jpserver_extensions=instructor.reporting.formgrader_pages=True"


def command(course_dir: CourseDir, ip: str, port: int, extra: list[str]) -> list[str]:
    """The ``jupyter lab`` command line; it must run in ``course_dir`` (nbgrader reads the config there)."""
    return [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--ip={ip}",
        f"--port={port}",
        "--port-retries=0",
        f"--ServerApp.root_dir={course_dir.path}",
        COURSE_PAGES,
        *extra,
    ]


def run(args) -> int:
    course_path = directory.resolve(args.course_dir)
    print(f"course directory: {course_path}")
    course_dir = CourseDir.at(course_path)  # its settings read (the formgrader reads the same file)
    if os.geteuid() == 0 and "--allow-root" not in args.extra:
        raise CourseError(
            "the formgrader shows student work in your browser with the rights of the user running it: "
            f"run it as the instructor who owns {course_path}, without sudo (only `course grade` needs root), "
            "or add `-- --allow-root` if this machine has no other user."
        )
    print(
        f"open the address with ?token= printed below (it logs you in), then "
        f"http://{args.ip}:{args.port}/formgrader in the same browser",
        flush=True,
    )
    try:
        return subprocess.call(command(course_dir, args.ip, args.port, args.extra), cwd=course_path)
    except KeyboardInterrupt:
        return 0
