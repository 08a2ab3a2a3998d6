"""One class graded with `--jobs 2`: offenders of every kind beside honest students, in one run.

The honest students keep full marks, with no cell stopped at its limit and
nothing flagged, whatever sits beside them; each offender ends as its case
says; the run exits 0. How long grading takes is the benchmark's
(`course bench --only class`), not a test's.
"""

from __future__ import annotations

import json
import shutil

import nbformat
from nbformat.v4 import new_code_cell

from instructor.paths import SOLUTIONS, notebook_path
from tests.hostile.cases import FORGED_RESULT
from tests.system import require_sandbox

A = "01_rnn"
#: 40 processes spinning for 10 s of wall clock: beside the honest students for several of their runs, and
#: 20 s short of the cell's limit (30 s) for starting them under the sandbox's CPU share on a loaded machine
BUSY = (
    "import multiprocessing as mp, time\ndef spin():\n    end = time.time() + 10\n    while time.time() < end: pass\n"
    "procs = [mp.Process(target=spin) for _ in range(40)]\n[p.start() for p in procs]\n[p.join() for p in procs]"
)
FILL = (
    "try:\n    with open('/sandbox/work/fill.bin', 'wb') as f:\n        while True:\n"
    "            f.write(b'x' * 2**20); f.flush()\nexcept OSError:\n    pass"
)


def _write(folder, nb=None, raw=None):
    folder.mkdir(parents=True)
    path = folder / f"{A}.ipynb"
    path.write_text(raw) if raw is not None else nbformat.write(nb, str(path))


def _reference_with(source: str | None = None):
    nb = nbformat.read(str(notebook_path(A, SOLUTIONS)), as_version=4)
    if source:
        nb.cells.insert(3, new_code_cell(source))
    return nb


def test_offenders_beside_honest_students_with_two_jobs(tmp_path, run_course):
    """Graded together with `--jobs 2`: do the honest students keep 9/9, no cell of theirs stopped, and do
    a busy, a disk-filling, a forging, a deeply nested and a badly named submission each end as expected?"""
    require_sandbox()
    subs = tmp_path / "subs"
    for name in ("amy", "bob", "cat", "dan"):
        _write(subs / name / A, _reference_with())
    _write(subs / "busy" / A, _reference_with(BUSY))
    _write(subs / "filler" / A, _reference_with(FILL))
    _write(subs / "forger" / A, _reference_with(FORGED_RESULT.replace("{{", "{").replace("}}", "}")))
    deep = json.loads(nbformat.writes(_reference_with()))
    inner = deep["metadata"]
    for _ in range(450):
        inner["x"] = {}
        inner = inner["x"]
    _write(subs / "nester" / A, raw=json.dumps(deep))
    shutil.copytree(subs / "amy", subs / "josé")
    out, _ = run_course(["grade", subs, "--course-dir", tmp_path / "cd", "--jobs", "2"])
    found = [json.loads(p.read_text()) for p in (tmp_path / "cd" / "results").rglob("*.json")]
    by_student = {r["student"]: r for r in found}
    print(
        "\n"
        + "\n".join(
            f"{r['student']}: {r['status']} {r['score']} in {r['seconds']} s ({r['reason'][:60]})"
            for r in sorted(found, key=lambda r: r["student"])
        )
    )
    for name in ("amy", "bob", "cat", "dan"):
        honest = by_student[name]
        assert (honest["status"], honest["score"]) == ("graded", 9.0), honest
        # not slowed into a limit by what runs beside them: a cell past its limit would leave a note
        assert (honest["flags"], honest["notes"]) == ([], []), honest
    assert by_student["busy"]["score"] == 9.0  # flagged for its processes, graded
    assert (by_student["filler"]["status"], by_student["filler"]["score"]) == ("graded", 9.0)
    # its forged result file is never read (the result comes down a pipe) and its kill of the executor fails (another
    # uid): graded on its own answers, flagged for the attempt
    forger = by_student["forger"]
    assert (forger["status"], forger["score"]) == ("flagged", 9.0) and "processes or signals" in forger["reason"], (
        forger
    )
    assert by_student["nester"]["status"] == "not graded" and "levels deep" in by_student["nester"]["reason"]
    assert by_student["josé"]["status"] == "not graded" and "not a valid student id" in by_student["josé"]["reason"]
