"""``course demo``: the whole pipeline once, on the embedded defaults, in a scratch folder.

::

    <scratch>/course/solutions/    a copy of solutions/ (nothing is written inside the repository)
    <scratch>/course/notebooks/    1. generated with nbgrader
                                   2. each solution notebook run in quick mode (a trial run)
    <scratch>/submissions/         reference (the solution) and blank (the student version) of each
    <scratch>/course-dir/          3. a course directory; both graded with the loop of `course grade`
                                   4. the grade table: full marks for reference, 0 for blank
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from instructor import sandbox
from instructor.authoring.generate import generate
from instructor.authoring.to_course_dir import into_course_dir
from instructor.authoring.trial import run_trial
from instructor.cells import read
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.grading.checks.judge_report import judged_lines
from instructor.grading.intake import find_submissions
from instructor.grading.submission import Status
from instructor.paths import REPO_ROOT, notebook_path
from instructor.reporting.table import format_table, grades
from instructor.sandbox import cgroup
from instructor.scheduling.loop import grade_class

#: what a demo writes into its scratch folder (an earlier demo's are replaced)
SCRATCH_FOLDERS = ("course", "submissions", "course-dir")
#: the two sample students, and the folder of the scratch course their notebook comes from
SAMPLES = (("reference", "solutions"), ("blank", "notebooks"))


def _step(text: str) -> None:
    print(f"==> {text}", flush=True)


def run_demo(names: list[str], scratch: Path | None = None, keep: bool = False) -> None:
    """The demo in ``scratch`` (emptied first, kept afterwards), else in a new temporary folder.

    A temporary folder is removed afterwards unless ``keep``.
    """
    if scratch is not None:
        scratch = scratch.resolve()
        if scratch == REPO_ROOT or REPO_ROOT in scratch.parents:
            raise CourseError("The demo's scratch folder must lie outside the repository.")
        if scratch.exists():
            others = sorted(p.name for p in scratch.iterdir() if p.name not in SCRATCH_FOLDERS)
            if others:  # never empty a folder that holds anything but an earlier demo
                raise CourseError(
                    f"The demo's scratch folder {scratch} holds other files ({', '.join(others[:3])}); "
                    "name an empty or new folder."
                )
            shutil.rmtree(scratch)
        scratch.mkdir(parents=True)
        keep = True
    else:
        scratch = Path(tempfile.mkdtemp(prefix="course-demo-"))
    try:
        demo(names, scratch)
    finally:
        if keep:
            print(f"scratch folder kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def demo(names: list[str], scratch: Path) -> None:
    """Run the demo in the empty folder ``scratch``; a failed step raises CourseError."""
    repo = scratch / "course"
    shutil.copytree(
        REPO_ROOT / "solutions", repo / "solutions", ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    )

    _step(f"generate {', '.join(names)} -> {repo / 'notebooks'}")
    generate(repo, names)

    _step("execute the solution notebooks in quick mode")
    for name in names:
        path = notebook_path(name, repo / "solutions")
        result = run_trial(read(path), cwd=path.parent)
        errors = result.errors()
        status = "ok" if not errors else f"{len(errors)} cell(s) failed, first: {errors[0].error}: {errors[0].evalue}"
        print(f"  {name:16s} {result.seconds:6.1f} s  {status}", flush=True)
        if errors:
            raise CourseError(f"the solution of {name} does not run in quick mode.")

    _step("autograde two submissions per assignment: reference and blank")
    submissions = scratch / "submissions"
    for name in names:
        for student, folder in SAMPLES:
            target = submissions / student / name
            target.mkdir(parents=True)
            shutil.copy2(notebook_path(name, repo / folder), target / f"{name}.ipynb")
    directory.init(scratch / "course-dir")
    course_dir = CourseDir.at(scratch / "course-dir")
    subs = find_submissions(submissions, names)
    into_course_dir(course_dir, repo, names)
    isolation = sandbox.detect()
    if not isolation.safe:
        print(
            f"no sandbox here ({isolation.detail}); the demo grades only the course's own notebooks, "
            "so it runs them without one. `course grade` refuses student work in that case.",
            flush=True,
        )
    if not isolation.limited:
        print(
            f"no memory and process limits here ({cgroup.layout().why}); the demo's notebooks are the course's own, "
            "so it runs them without. `course grade` refuses student work in that case, unless given --no-limits.",
            flush=True,
        )
    # the course's own notebooks: limits where the machine has them, never a refusal where it has none
    limits = sandbox.Limits(required=False)
    start = time.perf_counter()
    run = grade_class(course_dir, subs, limits=limits, unsafe=True, progress=False, isolation=isolation)
    seconds = time.perf_counter() - start
    rows = grades(course_dir)
    print(format_table(rows, isolation.detail))
    print("\n".join(judged_lines(course_dir, names)))
    print(f"autograded {len(subs)} submissions in {seconds:.1f} s ({seconds / len(subs):.1f} s each)")
    failures = [f"{r.student}/{r.assignment} ({r.reason})" for r in run.results if r.status is not Status.GRADED]
    if failures:
        raise CourseError(f"these submissions were not graded cleanly: {', '.join(failures)}.")

    wrong = [
        r
        for r in rows
        if (r.student == "reference" and r.auto_score != r.auto_max) or (r.student == "blank" and r.auto_score != 0)
    ]
    if wrong:
        raise CourseError(
            "expected full marks for 'reference' and 0 for 'blank', but got "
            + ", ".join(f"{r.student}/{r.assignment} {r.auto_score:g}/{r.auto_max:g}" for r in wrong)
            + "."
        )
    print("demo passed: the reference solution gets full marks and the blank notebook 0.")
