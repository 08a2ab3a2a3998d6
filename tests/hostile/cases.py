"""The hostile corpus: bad or hostile submissions of 01_rnn, each with its expected outcome.

Every case is built from the released student notebook (``blank``) or the
reference solution (``reference``) plus a small patch, written as
``<root>/<case>/01_rnn/...``. ``expect`` is one of

    ("graded", score)            graded, not flagged, exactly this score
    ("flagged", text)            graded but flagged for review; a flag contains text
    ("not graded", text)         not graded; the reason contains text
    ("zero or flagged", "")      flagged, or graded with score 0

``class_`` names the attack class of the issue the case covers.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from instructor.paths import NOTEBOOKS, SOLUTIONS, notebook_path
from instructor.reporting.failures import checks

A = "01_rnn"
FULL = 9.0
SECRET_ENV = "COURSE_HOSTILE_SECRET"
#: the grader's secret, in its environment (:data:`SECRET_ENV`) while it grades: no kernel may see it
SECRET = "hostile-corpus-secret-7f3a"


@dataclass
class Case:
    name: str
    class_: str
    expect: tuple
    build: Callable[[Path, dict], None]  # (folder, context) -> writes the submission


def reference():
    return nbformat.read(str(notebook_path(A, SOLUTIONS)), as_version=4)


def blank():
    return nbformat.read(str(notebook_path(A, NOTEBOOKS)), as_version=4)


def _write(folder: Path, nb) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(folder / f"{A}.ipynb"))


def _cell(nb, grade_id):
    return next(c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id)


def _after(nb, grade_id, source):
    """Insert a plain student code cell after the cell ``grade_id``."""
    index = nb.cells.index(_cell(nb, grade_id))
    nb.cells.insert(index + 1, new_code_cell(source))
    return nb


def patched(base, *cells, after="generate_batch"):
    """A notebook builder: ``base`` plus student cells after ``after``."""

    def build(folder, ctx):
        nb = base()
        for source in reversed(cells):
            _after(nb, after, source.format(**ctx))
        _write(folder, nb)

    return build


def raw(data: bytes):
    def build(folder, ctx):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{A}.ipynb").write_bytes(data)

    return build


def edit(base, fn):
    def build(folder, ctx):
        nb = base()
        fn(nb, ctx)
        _write(folder, nb)

    return build


# --------------------------------------------------------------------------- patches


def _no_file(folder, ctx):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "answers.txt").write_text("I did it all in my head.\n")


def _symlinked_notebook(folder, ctx):
    folder.mkdir(parents=True, exist_ok=True)
    os.symlink(notebook_path(A, SOLUTIONS), folder / f"{A}.ipynb")


def _hard_linked_notebook(folder, ctx):
    """The reference with a second name outside the submission: a hard link whose owner is not the student."""
    _write(folder.parent, reference())
    folder.mkdir(parents=True, exist_ok=True)
    os.link(folder.parent / f"{A}.ipynb", folder / f"{A}.ipynb")


def _fifo_notebook(folder, ctx):
    folder.mkdir(parents=True, exist_ok=True)
    os.mkfifo(folder / f"{A}.ipynb")


def _symlinks_beside(folder, ctx):
    _write(folder, reference())
    os.symlink("/etc/passwd", folder / "passwd.txt")
    os.symlink(ctx["course_dir"], folder / "course_dir")


def _two_notebooks(folder, ctx):
    _write(folder, reference())
    (folder / f"{A}.ipynb").rename(folder / "mine.ipynb")
    nbformat.write(blank(), str(folder / "copy.ipynb"))


def _sleeps_past_budget(folder, ctx):
    """The reference, then ``ctx["sleeps"]`` cells of ``ctx["sleep"]`` seconds each: each within its cell's limit,
    together past the notebook's budget."""
    patched(reference, *["import time\ntime.sleep({sleep})"] * ctx["sleeps"])(folder, ctx)


def _fresh_honest(folder, ctx):
    """The reference answers pasted into a new notebook: no nbgrader metadata at all."""
    ref = reference()
    cells = [
        new_code_cell(c.source)
        for c in ref.cells
        if c.cell_type == "code" and not c.metadata.get("nbgrader", {}).get("grade")
    ]
    _write(folder, new_notebook(cells=cells, metadata=ref.metadata))


def _fresh_unrelated(folder, ctx):
    _write(folder, new_notebook(cells=[new_code_cell("print('hello')")], metadata=blank().metadata))


def _edit_test(nb, ctx):
    _cell(nb, "rnn__matches_numpy").source = "pass"


def _delete_tests(nb, ctx):
    nb.cells = [
        c
        for c in nb.cells
        if not c.get("metadata", {}).get("nbgrader", {}).get("grade_id", "").startswith("generate_batch__")
    ]


def _edit_points(nb, ctx):
    _cell(nb, "rnn__matches_numpy").metadata.nbgrader.points = 100


def _fake_grade_cell(nb, ctx):
    cell = new_code_cell(
        "pass",
        metadata={
            "nbgrader": {
                "grade": True,
                "grade_id": "bonus_points",
                "locked": True,
                "points": 50,
                "solution": False,
                "schema_version": 3,
            }
        },
    )
    nb.cells.append(cell)


def _test_to_markdown(nb, ctx):
    cell = _cell(nb, "loss_and_accuracy__loss_matches_numpy")
    index = nb.cells.index(cell)
    md = new_markdown_cell(cell.source, metadata=copy.deepcopy(cell.metadata))
    md.id = cell.id
    nb.cells[index] = md


def _unlock_test(nb, ctx):
    cell = _cell(nb, "generate_batch__shapes_and_types")
    cell.metadata.nbgrader.locked = False
    cell.source = "pass"


#: what a hidden check's message says when it tells a value: "expected accuracy 5/8", "must be 0.0", "expected 0.75"
_TOLD_VALUE = re.compile(r"(?:expected(?: accuracy)?|must be)\s+(\d+(?:\.\d+)?)(?:/(\d+))?")


def values_told(source: str) -> list[float]:
    """The values the hidden checks of a test cell's ``source`` tell on a feedback page, in their order.

    An answer that never computes a value can learn these: each round of
    feedback shows the next failed check's message (issue 42).
    """
    found = []
    for check in sorted((c for c in checks(source) if c.hidden and c.literal), key=lambda c: c.first):
        for number, below in _TOLD_VALUE.findall(check.words):
            found.append(float(number) / float(below) if below else float(number))
    return found


def _call_order_table(nb, ctx):
    """loss_and_accuracy computes the loss, but its accuracy is a table: the visible check's two values, then, for
    the hidden check's batch, whatever the feedback's messages told (a student's second and third hand-in)."""
    told = values_told(_cell(reference(), "loss_and_accuracy__whole_sequence_accuracy").source)
    _cell(nb, "loss_and_accuracy").source = (
        "_calls = {{}}\n"
        "_SEEN = np.array([[1, 2, 3, 4], [0, 0, 1, 1], [4, 3, 2, 1]])  # the visible check's target\n"
        f"_TABLE = {{{{'seen': [1.0, 0.5], (5, 8): {told!r}}}}}"
        "  # by target, then by shape; in the order of the calls\n"
        "\n\n"
        "def loss_and_accuracy(scores, target):\n"
        "    K = scores.shape[-1]\n"
        "    loss = softmax_crossentropy(scores.reshape(-1, K), target.reshape(-1))\n"
        "    key = 'seen' if np.array_equal(target, _SEEN) else tuple(np.shape(target))\n"
        "    seen = _calls[key] = _calls.get(key, -1) + 1\n"
        "    table = _TABLE.get(key, [])\n"
        "    return loss, float(table[seen] if seen < len(table) else 0.5)\n"
    ).format()


FORGED_RESULT = """import json, os, signal
cell = {{"cell_type": "code", "id": "forged", "execution_count": 1, "outputs": [], "source": "pass",
        "metadata": {{"nbgrader": {{"grade": True, "solution": False, "locked": True, "points": 800,
                                   "grade_id": "made_up", "schema_version": 3}}}}}}
nb = {{"nbformat": 4, "nbformat_minor": 5, "metadata": {{}}, "cells": [cell]}}
with open('/sandbox/out/result.json', 'w') as f:
    json.dump({{"status": "ok", "detail": "", "stopped_at": None, "timed_out": [], "output_cut": [],
               "seconds": 1, "notebook": nb}}, f)
os.kill(os.getppid(), signal.SIGKILL)
"""


def _deep_metadata(nb, ctx):
    """Metadata nested 450 levels deep: anything that recurses into it would fail."""
    deep: dict = {}
    inner = deep
    for _ in range(450):
        inner["x"] = {}
        inner = inner["x"]
    nb.metadata["deep"] = deep


def _rnn_from_course(nb, ctx):
    """01's RNN task answered with the course package's fused RNN (the one 02 and 03 import)."""
    _cell(nb, "rnn").source = "from course.recurrent import RNN  # the course's own, not mine"


def _wrong_answers_with_cheat(nb, ctx):
    """Wrong answers everywhere, then numpy's comparisons patched to always agree."""
    _cell(nb, "generate_batch").source = (
        "START_TOKEN, END_TOKEN = 10, 11\n"
        "def generate_batch(seq_len_min=1, seq_len_max=20, batch_size=10):\n"
        "    x = np.zeros((3, batch_size, 12), dtype=np.float32)\n"
        "    return x, np.zeros((3, batch_size), dtype=np.int64), np.ones(batch_size, dtype=np.int64)\n"
    )


CASES = [
    # ---- broken files and folders
    Case("empty_file", "broken file", ("not graded", "is empty"), raw(b"")),
    Case("invalid_json", "broken file", ("not graded", "not a valid notebook"), raw(b"{ this is not json")),
    Case(
        "not_a_notebook", "broken file", ("not graded", "not a valid notebook"), raw(json.dumps({"cells": 5}).encode())
    ),
    Case("no_notebook", "broken file", ("not graded", "holds no notebook"), _no_file),
    Case("two_notebooks", "broken file", ("not graded", "none is named"), _two_notebooks),
    Case("notebook_is_symlink", "symlinks", ("not graded", "symbolic link"), _symlinked_notebook),
    Case("notebook_is_hard_link", "symlinks", ("not graded", "hard link"), _hard_linked_notebook),
    Case("notebook_is_fifo", "broken file", ("not graded", "a FIFO"), _fifo_notebook),
    Case("symlinks_beside", "symlinks", ("graded", FULL), _symlinks_beside),
    Case("fresh_notebook_honest", "tampered metadata", ("graded", FULL), _fresh_honest),
    Case("fresh_notebook_unrelated", "tampered metadata", ("not graded", "no nbgrader metadata"), _fresh_unrelated),
    # ---- tampered metadata and cells
    Case("edited_test_cell", "tampered cells", ("flagged", "was edited (restored)"), edit(blank, _edit_test)),
    Case("deleted_test_cells", "tampered cells", ("flagged", "was deleted (restored)"), edit(reference, _delete_tests)),
    Case(
        "edited_points",
        "tampered metadata",
        ("flagged", "grading metadata of cell 'rnn__matches_numpy'"),
        edit(blank, _edit_points),
    ),
    Case(
        "fake_grade_cell", "tampered metadata", ("flagged", "made-up grading metadata"), edit(blank, _fake_grade_cell)
    ),
    Case("test_cell_to_markdown", "tampered metadata", ("flagged", "grading metadata"), edit(blank, _test_to_markdown)),
    Case("unlocked_test_cell", "tampered cells", ("flagged", "grading metadata"), edit(blank, _unlock_test)),
    # ---- runaway time, memory, output, processes
    Case("sleeps_in_one_cell", "runaway time", ("graded", FULL), patched(reference, "import time\ntime.sleep(10**6)")),
    Case("sleeps_past_budget", "runaway time", ("not graded", "budget"), _sleeps_past_budget),
    Case(
        "ignores_interrupt",
        "runaway time",
        ("not graded", "did not stop"),
        patched(reference, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"),
    ),
    Case(
        "memory_hog",
        "runaway memory",
        ("not graded", "memory limit"),
        patched(reference, "hog = np.ones(({memory_mb} + 512) * 2**20 // 8)"),
    ),
    Case("output_flood", "runaway output", ("graded", FULL), patched(reference, "print('x' * 50_000_000)")),
    Case(
        "many_processes",
        "runaway processes",
        ("flagged", "processes"),
        patched(
            reference,
            "import subprocess\nkids = []\ntry:\n    for _ in range(200):\n"
            "        kids.append(subprocess.Popen(['sleep', '1000']))\nexcept OSError:\n    pass",
        ),
    ),
    Case(
        "detached_child",
        "runaway processes",
        ("flagged", "processes"),
        patched(reference, "import subprocess\nsubprocess.Popen(['sh', '-c', 'sleep 1000'], start_new_session=True)"),
    ),
    # ---- exits and crashes
    Case("os_exit", "exits and crashes", ("not graded", "kernel died"), patched(reference, "import os\nos._exit(1)")),
    Case(
        "segfault",
        "exits and crashes",
        ("not graded", "kernel died"),
        patched(reference, "import ctypes\nctypes.string_at(0)"),
    ),
    Case("sys_exit", "exits and crashes", ("graded", FULL), patched(reference, "import sys\nsys.exit(3)")),
    # the kernel runs under another uid than the executor: neither signal reaches it, the run goes on
    Case(
        "kills_its_parent",
        "attack on the grader",
        ("flagged", "processes or signals"),
        patched(reference, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)"),
    ),
    Case(
        "kills_everything",
        "attack on the grader",
        ("flagged", "processes or signals"),
        patched(reference, "import os, signal\nos.kill(-1, signal.SIGKILL)"),
    ),
    # the kernel writes the executor's result itself (a made-up graded cell worth 800 points), then kills it
    # (the result comes down a pipe the kernel cannot reach, its uid may neither write the executor's folder
    # nor signal it): the blank notebook's 0, flagged for the attempt
    Case("forged_result", "attack on the grader", ("flagged", "processes or signals"), patched(blank, FORGED_RESULT)),
    Case("deep_metadata", "broken file", ("not graded", "levels deep"), edit(reference, _deep_metadata)),
    # ---- cheats inside the kernel
    Case(
        "input_transformer",
        "cheat in the kernel",
        ("flagged", "IPython's machinery"),
        patched(
            blank,
            "def _skip(lines):\n    return ['pass\\n'] if any('Check that' in l for l in lines) else lines\n"
            "get_ipython().input_transformers_cleanup.append(_skip)",
            after="generate_batch",
        ),
    ),
    Case(
        "pre_run_hook",
        "cheat in the kernel",
        ("flagged", "IPython's machinery"),
        patched(blank, "get_ipython().events.register('pre_run_cell', lambda info: None)"),
    ),
    Case(
        "patched_numpy",
        "cheat in the kernel",
        ("flagged", "monkeypatching"),
        edit(
            lambda: _after(
                blank(),
                "generate_batch",
                "np.testing.assert_allclose = lambda *a, **k: None\nnp.allclose = lambda *a, **k: True",
            ),
            _wrong_answers_with_cheat,
        ),
    ),
    # right values, so every check passes: flagged for a human, score kept
    Case(
        "rnn_from_course_package",
        "borrowed answer",
        ("flagged", "the course's own answer"),
        edit(reference, _rnn_from_course),
    ),
    # no accuracy computed: a table of the values the visible check and the feedback's messages showed (issue 42)
    Case("accuracy_from_call_order", "learned from feedback", ("graded", FULL - 1), edit(reference, _call_order_table)),
    Case(
        "patched_builtins",
        "cheat in the kernel",
        ("flagged", "builtins"),
        patched(blank, "import builtins\nbuiltins.abs = lambda x: 0"),
    ),
    Case(
        "sys_modules",
        "cheat in the kernel",
        ("flagged", "import system"),
        patched(blank, "import sys, types\nsys.modules['numpy.testing'] = types.ModuleType('numpy.testing')"),
    ),
    Case(
        "hidden_run_cell",
        "cheat in the kernel",
        ("flagged", "IPython's machinery"),
        patched(blank, "get_ipython().run_cell('x = 1')"),
    ),
    Case(
        "loads_reference_library",
        "attack on files",
        ("flagged", "grader's own code"),
        patched(
            blank,
            "from instructor.authoring.library import load_library\ntry:\n    lib = load_library('01_rnn')\n"
            "    generate_batch = lib.generate_batch\nexcept Exception as err:\n    print(type(err).__name__)",
        ),
    ),
    Case(
        "reads_source_relative",
        "attack on files",
        ("graded", 0.0),
        patched(
            blank,
            "for p in ['../source/01_rnn/01_rnn.ipynb', '../../source/01_rnn/01_rnn.ipynb']:\n"
            "    try:\n        print(open(p).read()[:100])\n"
            "    except OSError as err:\n        print(type(err).__name__)",
        ),
    ),
    # ---- the gradebook, other students, the grader's environment, the network
    Case(
        "writes_gradebook",
        "attack on the gradebook",
        ("flagged", "files outside"),
        patched(
            reference,
            "try:\n    open('{course_dir}/gradebook.db', 'wb').write(b'gone')\n"
            "except OSError as err:\n    print(type(err).__name__)",
        ),
    ),
    Case(
        "overwrites_other_student",
        "attack on other students",
        ("flagged", "files outside"),
        patched(
            reference,
            "try:\n    open('{other}', 'w').write('{{}}')\nexcept OSError as err:\n    print(type(err).__name__)",
        ),
    ),
    Case(
        "reads_environment",
        "attack on the grader",
        ("flagged", "environment"),
        patched(reference, "import os\nprint(dict(os.environ))"),
    ),
    Case(
        "network",
        "attack on the grader",
        ("flagged", "environment"),
        patched(
            reference,
            "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 80), timeout=2)\n"
            "except OSError as err:\n    print(type(err).__name__)",
        ),
    ),
    # ---- leaks through outputs
    Case(
        "prints_history",
        "leak through outputs",
        ("flagged", "input history"),
        patched(reference, "print(In)", after="accuracy_by_length__whole_sequences"),
    ),
    Case(
        "prints_caller_source",
        "leak through outputs",
        ("flagged", "interpreter's hooks"),
        patched(
            reference,
            "import inspect\n_orig = loss_and_accuracy\n"
            "def loss_and_accuracy(scores, target):\n    print(inspect.stack()[1].code_context)\n"
            "    return _orig(scores, target)",
            after="loss_and_accuracy",
        ),
    ),
    Case(
        "reads_own_notebook_file",
        "leak through outputs",
        ("graded", FULL),
        patched(
            reference,
            "import glob\nfor p in glob.glob('*.ipynb'):\n    print(open(p).read())\nprint(sorted(glob.glob('*')))",
        ),
    ),
    # ---- HTML injection
    Case(
        "markdown_script",
        "HTML injection",
        ("graded", FULL),
        edit(
            reference,
            lambda nb, ctx: nb.cells.insert(
                1,
                new_markdown_cell("<script>alert('owned')</script><div style='color:green'>Score: 9 / 9 PASSED</div>"),
            ),
        ),
    ),
    Case(
        "html_output",
        "HTML injection",
        ("graded", FULL),
        patched(
            reference,
            "from IPython.display import HTML, Javascript, display\n"
            "display(HTML(\"<script>alert('owned')</script><b>Score: 9 / 9</b>\"))\n"
            "display(Javascript(\"alert('owned')\"))",
        ),
    ),
]

#: graded in the same run: must keep full marks (reference) and 0 (blank), flagged by nothing
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def _pasted_screenshot(nb, ctx):
    """A written answer with a screenshot pasted in (a markdown attachment)."""
    cell = _cell(nb, "why_rnn_fails")
    cell.source = "My plot shows it: ![plot](attachment:plot.png)"
    cell["attachments"] = {"plot.png": {"image/png": PNG}}


def _old_format(folder, ctx):
    """The reference as nbformat 4.0 writes it: no cell ids."""
    data = json.loads(nbformat.writes(reference()))
    data["nbformat_minor"] = 0
    for cell in data["cells"]:
        cell.pop("id", None)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{A}.ipynb").write_text(json.dumps(data))


def _marker_in_a_comment(nb, ctx):
    _cell(nb, "generate_batch").source += "\n# ### BEGIN HIDDEN TESTS   <- a line copied from nbgrader's docs\n"


CONTROLS = [
    Case("reference", "control", ("graded", FULL), edit(reference, lambda nb, ctx: None)),
    Case("blank", "control", ("graded", 0.0), edit(blank, lambda nb, ctx: None)),
    # honest students whose notebooks are unusual: each is graded and gets a feedback page
    Case("pasted_screenshot", "control", ("graded", FULL), edit(reference, _pasted_screenshot)),
    Case("nbformat_4_0", "control", ("graded", FULL), _old_format),
    Case("marker_in_a_comment", "control", ("graded", FULL), edit(reference, _marker_in_a_comment)),
]


def build_corpus(root: Path, ctx: dict) -> list[Case]:
    """Write every case as ``root/<case>/01_rnn/``, plus two oddly named folders."""
    for case in CONTROLS + CASES:
        case.build(root / case.name / A, ctx)
    (root / "bad name!" / A).mkdir(parents=True)
    nbformat.write(reference(), str(root / "bad name!" / A / f"{A}.ipynb"))
    (root / "unknown_assignment" / "99_nope").mkdir(parents=True)
    nbformat.write(reference(), str(root / "unknown_assignment" / "99_nope" / "99_nope.ipynb"))
    extra = [
        Case("bad name!", "broken file", ("not graded", "not a valid student id"), None),
        Case("unknown_assignment", "broken file", ("not graded", "not a known assignment"), None),
    ]
    return CONTROLS + CASES + extra
