"""course demo: the whole pipeline once, on the embedded defaults, in a scratch folder."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from course import grading, sandbox
from course.errors import CourseError
from course.execute import execute
from course.nbsource import read
from course.paths import REPO_ROOT, notebook_path
from course.release import release, resolve_assignments

NAME = "demo"
HELP = "Release, run the solutions in quick mode and autograde two sample submissions, in a scratch folder."
EXAMPLES = """\
steps (nothing is written inside the repository):
  1. release: solutions/ -> <scratch>/notebooks/ with nbgrader;
  2. execute every solution notebook in quick mode (COURSE_QUICK=1);
  3. autograde two submissions per assignment: 'reference' (the solution)
     and 'blank' (the untouched student version), in the sandbox if there is
     one; the demo grades only the course's own notebooks, so without a
     sandbox it runs them unisolated and says so;
  4. print the grade table: full marks for reference, 0 for blank.

examples:
  course demo
  course demo 01_rnn --workspace /tmp/demo --keep
"""


def add_arguments(p):
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="assignment folder names (default: all)")
    p.add_argument("--workspace", type=Path, help="scratch folder (default: a new temporary folder)")
    p.add_argument("--keep", action="store_true", help="keep the scratch folder afterwards")


def _step(text: str) -> None:
    print(f"==> {text}", flush=True)


def run(args) -> int:
    names = resolve_assignments(REPO_ROOT / "solutions", args.assignments)
    if args.workspace:
        scratch = args.workspace.resolve()
        if scratch == REPO_ROOT or REPO_ROOT in scratch.parents:
            raise CourseError("The demo workspace must lie outside the repository.")
        if scratch.exists():
            shutil.rmtree(scratch)
        scratch.mkdir(parents=True)
    else:
        scratch = Path(tempfile.mkdtemp(prefix="course-demo-"))
    try:
        return _demo(names, scratch)
    finally:
        if args.keep or args.workspace:
            print(f"scratch folder kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def _demo(names: list[str], scratch: Path) -> int:
    repo = scratch / "course"
    shutil.copytree(REPO_ROOT / "solutions", repo / "solutions", ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))

    _step(f"release {', '.join(names)} -> {repo / 'notebooks'}")
    release(repo, names)

    _step("execute the solution notebooks in quick mode")
    for name in names:
        path = notebook_path(name, repo / "solutions")
        result = execute(read(path), cwd=path.parent)
        errors = result.errors()
        status = "ok" if not errors else f"{len(errors)} cell(s) failed, first: {errors[0].error}: {errors[0].evalue}"
        print(f"  {name:16s} {result.seconds:6.1f} s  {status}", flush=True)
        if errors:
            raise CourseError(f"the solution of {name} does not run in quick mode.")

    _step("autograde two submissions per assignment: reference and blank")
    submissions = scratch / "submissions"
    for name in names:
        for student, folder in (("reference", "solutions"), ("blank", "notebooks")):
            target = submissions / student / name
            target.mkdir(parents=True)
            shutil.copy2(notebook_path(name, repo / folder), target / f"{name}.ipynb")
    workspace = scratch / "grading"
    subs = grading.find_submissions(submissions, names)
    grading.prepare_workspace(workspace, repo, names)
    isolation = sandbox.detect()
    if not isolation.safe:
        print(f"no sandbox here ({isolation.detail}); the demo grades only the course's own notebooks, "
              "so it runs them without one. `course grade` refuses student work in that case.", flush=True)
    start = time.perf_counter()
    outcomes = grading.autograde(workspace, subs, isolation=isolation, unsafe=True)
    seconds = time.perf_counter() - start
    rows = grading.grades(workspace)
    print(grading.format_table(rows, isolation.detail))
    print(f"autograded {len(subs)} submissions in {seconds:.1f} s ({seconds / len(subs):.1f} s each)")
    failures = [f"{o.student}/{o.assignment} ({o.reason})" for o in outcomes if o.status != "graded"]
    if failures:
        raise CourseError(f"these submissions were not graded cleanly: {', '.join(failures)}.")

    wrong = [r for r in rows if (r.student == "reference" and r.auto_score != r.auto_max)
             or (r.student == "blank" and r.auto_score != 0)]
    if wrong:
        raise CourseError(
            "expected full marks for 'reference' and 0 for 'blank', but got "
            + ", ".join(f"{r.student}/{r.assignment} {r.auto_score:g}/{r.auto_max:g}" for r in wrong) + "."
        )
    print("demo passed: the reference solution gets full marks and the blank notebook 0.")
    return 0
