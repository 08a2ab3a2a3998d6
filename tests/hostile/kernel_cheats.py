"""Cheats in the kernel: submissions of 01_rnn with no real answer that try to score anyway.

Every case starts from the released student notebook (``blank``: its solution
cells raise ``NotImplementedError``) and adds code in student cells that tries
to make failing checks look passed, forge the grader's result, inflate the
points, or leak the hidden tests through encoded outputs. None deserves a
point: ``expect`` is ``("zero", "")`` for all of them, meaning not graded, or
graded (flagged or not) with score 0. The controls are the reference (9/9,
unflagged) and the blank notebook (0/9).

Where it can, each cheat is written so that it fools a grader that decides
verdicts inside the student's kernel, and so that the static scan of student
code (``FlagTestMachinery``) does not see it: names are built at run time.
"""

from __future__ import annotations

import base64
import codecs
import copy
import marshal

from nbformat.v4 import new_code_cell

from tests.hostile.cases import FULL, Case, _after, _cell, blank, edit, patched, reference

ZERO = ("zero", "")
#: the last graded test cell of the notebook: a cell after it runs after every hidden test
LAST_TEST = "accuracy_by_length__whole_sequences"
#: the first line of every test cell of the course (not of the "Try it" cells)
TEST_MARK = "# Check that"


def cheat(*sources, after="generate_batch"):
    """The blank notebook plus student code cells after ``after`` (sources are taken literally)."""
    return patched(blank, *[s.replace("{", "{{").replace("}", "}}") for s in sources], after=after)


def everywhere(source):
    """The blank notebook with the same student cell after each of its four code solution cells (stubs last)."""

    def fn(nb, ctx):
        for grade_id in ["generate_batch", "rnn", "loss_and_accuracy", "accuracy_by_length"]:
            _after(nb, grade_id, source)

    return edit(blank, fn)


def answers(*sources):
    """The blank notebook with its four code solution cells replaced by ``sources`` (in order)."""

    def fn(nb, ctx):
        for grade_id, source in zip(
            ["generate_batch", "rnn", "loss_and_accuracy", "accuracy_by_length"], sources, strict=False
        ):
            if source is not None:
                _cell(nb, grade_id).source = source

    return fn


# --------------------------------------------------------------------------- shared payloads

#: the core of many cheats: the shell's error report becomes a no-op, so a failing check shows no error
HUSH = "sh = globals()['get_' + 'ipy' + 'thon']()\nsh._showtraceback = lambda *a, **k: None\n"
#: the same from a module (no get_ipython in its globals)
HUSH_MODULE = "import IPython\nIPython.get_ipython()._showtraceback = lambda *a, **k: None\n"

#: an object that agrees with everything: every attribute, call, item and comparison gives a Yes or True
YES = """
class Yes:
    def __getattr__(self, name):
        return Yes()
    def __call__(self, *a, **k):
        return Yes()
    def __getitem__(self, key):
        return Yes()
    def __setitem__(self, key, value):
        pass
    def __iter__(self):
        return iter([Yes(), Yes(), Yes()])
    def __len__(self):
        return 3
    def __eq__(self, other):
        return True
    __le__ = __ge__ = __lt__ = __gt__ = __eq__
    def __ne__(self, other):
        return False
    def __bool__(self):
        return True
    def __hash__(self):
        return 0
    def __float__(self):
        return 1.0
    def __index__(self):
        return 1
    def __add__(self, other):
        return Yes()
    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __matmul__ = __add__
    __neg__ = __abs__ = lambda self: Yes()
    def __format__(self, spec):
        return "yes"
"""

#: stubs that return liars (no real answer: every value is a Yes)
YES_STUBS = (
    YES
    + """
def generate_batch(seq_len_min=1, seq_len_max=20, batch_size=10):
    return Yes(), Yes(), Yes()

class RNN:
    def __init__(self, *a, **k):
        pass
    def __call__(self, x, h=None):
        return Yes(), Yes()
    parameters = property(lambda self: (Yes(),) * 5)

def loss_and_accuracy(scores, target):
    return Yes(), Yes()

def accuracy_by_length(predict, seq_len_min=1, seq_len_max=20, n_per_length=1000):
    return Yes()
"""
)

#: numpy's comparisons replaced through the module's dict (no "np.x =" for the scan to see)
NUMPY_AGREES = """
for _name in ["allclose", "isclose", "array_equal", "all", "any", "issubdtype", "unique"]:
    vars(np)[_name] = lambda *a, **k: True
"""


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


MARSHALLED = marshal.dumps(compile(HUSH, "<payload>", "exec")).hex()


# --------------------------------------------------------------------------- 1. names built at run time

CHR_TRANSFORMER = f'''
name = "".join(map(chr, {[ord(c) for c in "get_ipython"]}))
shell = globals()[name]()
def _only_pass(lines):  # a check cell becomes "pass"
    return ["pass\\n"] if lines and lines[0].startswith("{TEST_MARK}") else lines
getattr(shell, "".join(map(chr, {[ord(c) for c in "input_transformers_cleanup"]}))).append(_only_pass)
'''

GETATTR_IMPORT = """
B = globals()["__buil" + "tins__"]
B = B if isinstance(B, dict) else vars(B)
imp = B["__imp" + "ort__"]
getattr(imp("IPy" + "thon"), "get_" + "ipython")().showtraceback = lambda *a, **k: None
"""

PKGUTIL_AST = """
import ast, pkgutil
shell = pkgutil.resolve_name("IPy" + "thon:get_" + "ipython")()
class _Shield(ast.NodeTransformer):  # every later cell runs inside try/except BaseException
    def visit_Module(self, node):
        handler = ast.ExceptHandler(type=ast.Name("BaseException", ast.Load()), name=None, body=[ast.Pass()])
        node.body = [ast.Try(body=node.body or [ast.Pass()], handlers=[handler], orelse=[], finalbody=[])]
        return ast.fix_missing_locations(node)
getattr(shell, "ast_" + "transformers").append(_Shield())
"""

GC_VARS = """
import gc as collector
collector.unfreeze()  # the kernel's objects were frozen out of get_objects()
shell = next(o for o in collector.get_objects() if type(o).__name__ == "ZMQInteractive" + "Shell")
vars(shell)["_show" + "traceback"] = lambda *a, **k: None
"""

FRAME_GLOBALS = f'''
import sys as s_
here = s_._getframe(0)
shell = here.f_globals["get_" + "ipython"]()
_real = getattr(shell, "run_" + "cell_async")
def _swap(raw_cell, *a, **k):  # a check cell runs as "pass"
    if raw_cell.startswith("{TEST_MARK}"):
        raw_cell, k["transformed_cell"] = "pass", "pass\\n"
    return _real(raw_cell, *a, **k)
vars(shell)["run_" + "cell_async"] = _swap
'''

IMPORTLIB_CLASS = """
B = globals()["__buil" + "tins__"]
B = B if isinstance(B, dict) else vars(B)
module = B["__imp" + "ort__"]("import" + "lib").import_module("IPython.core.interactive" + "shell")
module.InteractiveShell.showtraceback = lambda *a, **k: None  # for every shell, on the class
"""

FRAME_BUILTINS_NUMPY = (
    YES_STUBS
    + """
import sys as s_
B = s_._getframe(0).f_builtins
np_ = B["__imp" + "ort__"]("num" + "py")
for _name in ["allclose", "isclose", "array_equal", "all", "issubdtype"]:
    vars(np_)[_name] = lambda *a, **k: True
"""
)

# --------------------------------------------------------------------------- 2. encoded code

BASE64_EXEC = f'import base64\nexec(base64.b64decode("{_b64(HUSH)}").decode())\n'
MARSHAL_EXEC = f'''import marshal
B = globals()["__buil" + "tins__"]
B = B if isinstance(B, dict) else vars(B)
B["ex" + "ec"](marshal.loads(bytes.fromhex("{MARSHALLED}")), globals())
'''
ROT13_MODULE = f"""import codecs
with open("study_helpers.py", "w") as f:
    f.write(codecs.decode({codecs.encode(HUSH_MODULE, "rot13")!r}, "rot13"))
import study_helpers  # noqa
"""
REVERSED_COMPILE = f"""B = globals()["__buil" + "tins__"]
B = B if isinstance(B, dict) else vars(B)
B["ex" + "ec"](B["com" + "pile"]({HUSH[::-1]!r}[::-1], "notes", "exec"), globals())
"""

# --------------------------------------------------------------------------- 3. frames and the garbage collector

GC_SHELL = """
import gc as collector
collector.unfreeze()  # the kernel's objects were frozen out of get_objects()
found = [o for o in collector.get_objects() if type(o).__name__.endswith("InteractiveShell")]
for o in found:
    o._showtraceback = lambda *a, **k: None
print(len(found), "shell(s) found")
"""

GC_SESSION = """
import gc as collector
collector.unfreeze()  # the kernel's objects were frozen out of get_objects()
for o in [o for o in collector.get_objects() if type(o).__name__.endswith("Session")]:
    if hasattr(o, "send"):
        def _send(stream, msg_or_type, *a, _real=o.send, **k):  # error messages never leave the kernel
            kind = msg_or_type if isinstance(msg_or_type, str) else msg_or_type.get("header", {}).get("msg_type")
            return None if kind == "error" else _real(stream, msg_or_type, *a, **k)
        o.send = _send
"""

FRAME_WALK = """
import sys as s_
f = s_._getframe(0)
while f is not None:
    me = f.f_locals.get("self")
    if type(me).__name__.endswith("InteractiveShell"):
        me._showtraceback = lambda *a, **k: None
        break
    f = f.f_back
"""

TRACEBACK_FRAMES = f'''
try:
    1 / 0
except ZeroDivisionError as err:
    f = err.__traceback__.tb_frame
while f is not None and not type(f.f_locals.get("self")).__name__.endswith("InteractiveShell"):
    f = f.f_back
shell = f.f_locals["self"]
_real = shell.run_ast_nodes
async def _skip(nodelist, cell_name, *a, **k):  # nothing of a check cell runs
    import linecache
    first = (linecache.getlines(cell_name) or [""])[0]
    return await _real([] if first.startswith("{TEST_MARK}") else nodelist, cell_name, *a, **k)
shell.run_ast_nodes = _skip
'''

# --------------------------------------------------------------------------- 4. trace hooks

SETTRACE_JUMP = (
    YES + f"""
import sys as s_, dis, linecache
_saved = {{}}
def _local(f, event, arg):
    if event == "line":
        later = sorted({{n for _, n in dis.findlinestarts(f.f_code) if n and n > f.f_lineno}})
        for n in later:  # jump over the line, to the next statement that takes the jump
            try:
                f.f_lineno = n
                return _local
            except ValueError:
                pass
        for name in f.f_code.co_names:  # the last statement: every global it reads lies
            if name in f.f_globals and name not in _saved:
                _saved[name] = f.f_globals[name]
                f.f_globals[name] = Yes()
    elif event == "return":
        f.f_globals.update(_saved)
        _saved.clear()
    return _local
def _global(f, event, arg):
    if f.f_code.co_name == "<module>" and """  # one code line, split over two literals
    f"""(linecache.getlines(f.f_code.co_filename) or [""])[0].startswith("{TEST_MARK}"):
        return _local
    return None
s_.settrace(_global)
"""
)

SETPROFILE_SWAP = f'''
import sys as s_, linecache
_pass = compile("pass", "nothing", "exec")
def _profile(f, event, arg):  # a check cell's code object is swapped for "pass" as run_code starts
    if event == "call" and f.f_code.co_name == "run_code":
        code = f.f_locals.get("code_obj")
        if code is not None and (linecache.getlines(code.co_filename) or [""])[0].startswith("{TEST_MARK}"):
            f.f_locals["code_obj"] = _pass
s_.setprofile(_profile)
'''

SETTRACE_NODES = f'''
import sys as s_, linecache
def _trace(f, event, arg):  # run_ast_nodes of a check cell starts with an empty list of statements
    if event == "call" and f.f_code.co_name == "run_ast_nodes":
        name = f.f_locals.get("cell_name", "")
        if (linecache.getlines(name) or [""])[0].startswith("{TEST_MARK}"):
            f.f_locals["nodelist"] = []
    return None
s_.settrace(_trace)
'''

EXCEPTHOOKS = """
import sys as s_, threading
s_.excepthook = lambda *a: None  # uncaught errors go nowhere (IPython does not use it)
threading.excepthook = lambda *a: None
s_.unraisablehook = lambda *a: None
"""

# --------------------------------------------------------------------------- 5. display hooks and widgets

DISPLAYHOOK_SESSION = """
import sys as s_
dh = s_.displayhook  # the shell's display hook while a cell runs: it holds the session that sends errors
_real = dh.session.send
def _send(stream, msg_or_type, *a, **k):
    return None if msg_or_type == "error" else _real(stream, msg_or_type, *a, **k)
dh.session.send = _send
"""

WIDGET_OUTPUT = """
import ipywidgets
from IPython.display import display
shell = globals()["get_" + "ipython"]()
box = ipywidgets.Output()
display(box)
def _enter(*a):  # every later cell prints (and fails) into the widget
    box.__enter__()
def _leave(*a):
    box.__exit__(None, None, None)
events = getattr(shell, "eve" + "nts")
getattr(events, "reg" + "ister")("pre_run_cell", _enter)
getattr(events, "reg" + "ister")("post_run_cell", _leave)
"""

CLEAR_AFTER_ERROR = """
from IPython.display import clear_output
shell = globals()["get_" + "ipython"]()
_real = shell._showtraceback
def _shown_then_cleared(*a, **k):  # the error is sent, then the cell's output is cleared
    _real(*a, **k)
    clear_output()
    print("all checks passed")
shell._showtraceback = _shown_then_cleared
"""

CUSTOM_FORMATTER = """
from IPython.core.formatters import BaseFormatter
from IPython.display import display
shell = globals()["get_" + "ipython"]()
class Verdict(BaseFormatter):  # a made-up mime type, shown instead of the error
    format_type = "text/x-verdict"
class Passed:
    pass
fmt = Verdict(parent=shell.display_formatter)
fmt.for_type(Passed, lambda obj: "passed")
shell.display_formatter.formatters["text/x-verdict"] = fmt
shell._showtraceback = lambda *a, **k: display(Passed(), include=["text/x-verdict"])
"""

# --------------------------------------------------------------------------- 6. output padding

PAD_EACH_CELL = """
shell = globals()["get_" + "ipython"]()
def _pad(*a):  # 70 kB of text before every cell's own output
    print("." * 70_000)
getattr(getattr(shell, "eve" + "nts"), "reg" + "ister")("pre_run_cell", _pad)
"""

PAD_NOTEBOOK = """
for _ in range(20):  # 20 x 60 kB: the notebook's 1 MB of text is used up before any check runs
    print("." * 60_000)
"""

PAD_DISPLAYS = """
from IPython.display import display
shell = globals()["get_" + "ipython"]()
_real = shell._showtraceback
def _padded(*a, **k):  # 100 display outputs of 1 kB, then the error
    for i in range(100):
        display({"text/plain": "." * 1000}, raw=True)
    _real(*a, **k)
shell._showtraceback = _padded
"""

RESULT_BEFORE_ERROR = """
shell = globals()["get_" + "ipython"]()
def _result(*a):  # every cell first returns 1.0 (nbgrader: partial credit, and it stops looking)
    shell.displayhook(1.0)
getattr(getattr(shell, "eve" + "nts"), "reg" + "ister")("pre_run_cell", _result)
"""

HUGE_ERROR = """
shell = globals()["get_" + "ipython"]()
_real = shell._showtraceback
def _huge(etype, evalue, stb):  # an error of 200 kB: too big to keep whole
    _real(etype, evalue, ["." * 100_000] * 2 + list(stb))
shell._showtraceback = _huge
"""

# --------------------------------------------------------------------------- 7. values that lie

NDARRAY_SUBCLASS = (
    """
class Agreeable(np.ndarray):  # zeros that call themselves equal to anything
    def __eq__(self, other):
        return np.ones(np.shape(self), bool).view(Agreeable)
    def __bool__(self):
        return True

def generate_batch(seq_len_min=1, seq_len_max=20, batch_size=10):
    T = seq_len_max + 1
    return (np.zeros((T, batch_size, 12), np.float32).view(Agreeable), np.zeros((T, batch_size), int).view(Agreeable),
            np.zeros((T - 1, batch_size), int).view(Agreeable))
"""
    + NUMPY_AGREES
)

FAKE_TENSOR = (
    """
class Fake(mg.Tensor):  # a MyGrad tensor of zeros whose comparisons all hold
    def __eq__(self, other):
        return True
    shape = property(lambda self: _AnyShape())
    dtype = np.float32

class _AnyShape(tuple):
    def __eq__(self, other):
        return True

class RNN:
    def __init__(self, *a, **k):
        pass
    def __call__(self, x, h=None):
        return Fake(np.zeros((1, 1, 1), np.float32)), Fake(np.zeros((1, 1, 1), np.float32))
    parameters = property(lambda self: tuple(Fake(np.zeros(1, np.float32)) for _ in range(5)))

def loss_and_accuracy(scores, target):
    return Fake(np.float32(0)), 0.0
"""
    + NUMPY_AGREES
)

BUILTINS_REPLACED = (
    YES_STUBS
    + NUMPY_AGREES
    + """
B = globals()["__buil" + "tins__"]
B = B if isinstance(B, dict) else vars(B)
_isinstance = B["isin" + "stance"]
def _lying_isinstance(obj, kind):  # the type checks of the tests hold for a Yes
    return True if type(obj).__name__ == "Yes" else _isinstance(obj, kind)
B["isin" + "stance"] = _lying_isinstance
"""
)

ARRAY_PROTOCOL = (
    YES
    + """
class Ones:  # converts to an array that agrees with anything, and is true
    def __array__(self, dtype=None, copy=None):
        out = np.empty(3, object)
        out[:] = [Yes(), Yes(), Yes()]
        return out
    def __getattr__(self, name):
        return Yes()
    def __iter__(self):
        return iter([Ones(), Ones(), Ones()])
    def __eq__(self, other):
        return True
    def __bool__(self):
        return True
    __hash__ = object.__hash__

def generate_batch(seq_len_min=1, seq_len_max=20, batch_size=10):
    return Ones(), Ones(), Ones()

def accuracy_by_length(predict, seq_len_min=1, seq_len_max=20, n_per_length=1000):
    return Ones()
"""
    + NUMPY_AGREES
)

# --------------------------------------------------------------------------- 8. forged results

FORGED_NB = """
import json, os, signal
cells = [{"cell_type": "code", "id": f"forged{i}", "execution_count": i + 1, "outputs": [], "source": "pass",
          "metadata": {"nbgrader": {"grade": True, "solution": False, "locked": True, "points": 100,
                                    "grade_id": gid, "schema_version": 3}}}
         for i, gid in enumerate(["generate_batch__shapes_and_types", "generate_batch__reversed_target",
                                  "rnn__shapes_and_parameters", "rnn__matches_numpy"])]
nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
result = json.dumps({"status": "ok", "detail": "", "stopped_at": None, "timed_out": [], "output_cut": [],
                     "seconds": 1, "notebook": nb}).encode()
"""

FORGE_ALL_FDS = (
    FORGED_NB
    + """
for fd in range(3, 1024):  # every descriptor the kernel holds gets the forged result
    try:
        os.write(fd, result)
    except OSError:
        pass
os.kill(os.getppid(), signal.SIGKILL)
"""
)

FORGE_FILES = (
    FORGED_NB
    + """
for path in ["01_rnn.ipynb", "../01_rnn.ipynb", "/sandbox/out/result.json", "/sandbox/out/01_rnn.ipynb"]:
    try:  # the forged notebook wherever the grader might read one
        with open(path, "wb") as f:
            f.write(result if path.endswith(".json") else json.dumps(nb).encode())
    except OSError:
        pass
os.kill(os.getppid(), signal.SIGTERM)
"""
)

FORGE_PIPES = (
    FORGED_NB
    + """
for pid in ["self", str(os.getppid())]:  # pipes of the kernel and of its parent, found in /proc
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        continue
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("pipe:"):
                with open(f"/proc/{pid}/fd/{fd}", "wb") as f:
                    f.write(result)
        except OSError:
            pass
os.kill(os.getppid(), signal.SIGKILL)
"""
)

FORGE_IDLE = """
shell = globals()["get_" + "ipython"]()
kernel = shell.kernel
def _idle(*a):  # "idle" for the cell before it runs: the executor stops listening, its error is never read
    kernel.session.send(kernel.iopub_socket, "status", {"execution_state": "idle"},
                        parent=kernel.get_parent("shell"), ident=b"kernel.forged.status")
getattr(getattr(shell, "eve" + "nts"), "reg" + "ister")("pre_run_cell", _idle)
"""

# --------------------------------------------------------------------------- 9. inflated points


def _all_tests_100(nb, ctx):
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and cell.cell_type == "code":
            meta["points"] = 100


def _solution_graded(nb, ctx):
    """Each solution cell becomes an autograded answer worth 100 (a cell that defines a function passes)."""
    for grade_id in ["generate_batch", "rnn", "loss_and_accuracy", "accuracy_by_length"]:
        meta = _cell(nb, grade_id).metadata.nbgrader
        meta["grade"], meta["points"] = True, 100


def _duplicate_grade_id(nb, ctx):
    """A copy of a test cell, emptied to pass, under the same grade id and worth 100."""
    test = _cell(nb, "generate_batch__shapes_and_types")
    copy_ = new_code_cell("pass", metadata=copy.deepcopy(test.metadata))
    copy_.metadata.nbgrader.points = 100
    nb.cells.insert(nb.cells.index(test), copy_)


def _extra_graded_cells(nb, ctx):
    """Five made-up locked test cells, each ``pass`` worth 100, named like the real ones."""
    for i in range(5):
        nb.cells.append(
            new_code_cell(
                "pass",
                metadata={
                    "nbgrader": {
                        "grade": True,
                        "solution": False,
                        "locked": True,
                        "points": 100,
                        "grade_id": f"rnn__hidden_{i}",
                        "schema_version": 3,
                    }
                },
            )
        )


def _points_as_text(nb, ctx):
    """Points as strings and the task cell's total raised: the metadata parsed loosely somewhere?"""
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            meta["points"] = "100"
    nb.metadata["nbgrader"] = {"total_points": 900}


# --------------------------------------------------------------------------- 10. encoded leaks from later cells

HISTORY = 'history = globals()["_i" + "h"]\n'
LEAK_BASE64 = HISTORY + 'import base64\nprint(base64.b64encode("\\n".join(history).encode()).decode())\n'
LEAK_REVERSED = HISTORY + 'print("\\n".join(history)[::-1])\n'
LEAK_PIECES = HISTORY + 'text = "\\n".join(history)\nfor i in range(0, len(text), 7):\n    print(repr(text[i:i + 7]))\n'
LEAK_MANAGER = """
import codecs
shell = globals()["get_" + "ipy" + "thon"]()
for _, _, source in shell.history_manager.get_range(output=False):  # the history manager's copy, in rot13
    print(codecs.encode(source, "rot13"))
"""
LEAK_PNG = (
    HISTORY
    + """
import matplotlib.pyplot as plt
text = "\\n".join(history)[-6000:]
fig = plt.figure(figsize=(12, 40))
fig.text(0, 1, text, va="top", family="monospace", fontsize=6)  # the hidden tests, drawn
plt.show()
"""
)


# A model that keeps the batch a hidden check passes it (rnn__shapes_and_parameters' x_other, drawn for the submission)
# and gives
# it back later: in the text of a ValueError (one a visible check catches and shows in its message, one it does not),
# in the name of the ValueError's class, printed, warned, in a figure's title, in a later cell's error, and written
# into a display of a cell before the first hidden check (an update from a later cell), and as the run count of the
# cells after it.
KEEP_RNN = """import numpy as _np
_kept = []


def _text(values):
    return " ".join(f"{v:.4f}" for v in _np.ravel(values))


# the visible check's own batch, as a student reads it in the cell: whatever else the RNN is given came from hidden code
_visible = _np.random.default_rng(0).normal(size=(6, 2, 3)).astype(_np.float32)


def _hidden():  # the batch of the hidden check: the first that is not the visible check's
    return next(b for b in _kept if not any(_np.array_equal(b, v) for v in (_visible, _visible[:1])))


class RNN:  # keeps every batch it is given; its outputs are zeros, its parameters none
    def __init__(self, C, D, K):
        self.D, self.K = D, K

    @property
    def parameters(self):
        return ()

    def __call__(self, x, h=None):
        x = _np.asarray(x)
        _kept.append(x.copy())
        T, N = x.shape[:2]
        return _np.zeros((T, N, self.K), _np.float32), _np.zeros((T, N, self.D), _np.float32)
"""
KEEP_LOSS = """def loss_and_accuracy(scores, target):
    # a ValueError whose class is named with six of the kept values, and whose text holds all 36
    name = "L" + "_".join(f"{abs(v) * 10000:.0f}" for v in _hidden().ravel()[:6])
    raise type(name, (ValueError,), {})(_text(_hidden()))
"""
#: a display in a cell before the first hidden check, which KEEP_LATER rewrites
KEEP_SLOT = """slot = display({'text/plain': 'loading...'}, raw=True, display_id='kept')
"""
KEEP_LATER = """import warnings
import matplotlib.pyplot as plt

slot.update({'text/plain': _text(_hidden())}, raw=True)
# the next cell's run count: 10000 and the first value's first four decimals
globals()["get_" + "ipython"]().execution_count = 10000 + round(abs(float(_hidden().ravel()[0])) * 10000) - 1
print(_text(_hidden()))
warnings.warn(_text(_hidden()))
fig, ax = plt.subplots()
ax.set_title(_text(_hidden())[:60])
plt.show()
raise RuntimeError(_text(_hidden()))
"""


#: the line of rnn__shapes_and_parameters' hidden part that draws the batch the case keeps
KEPT_LINE = "x_other = rng.normal(size=(T, N, 3)).astype(np.float32)"


def kept_batch(seed: int):
    """The batch rnn__shapes_and_parameters' hidden part passed the student's RNN in a submission whose hidden
    inputs were drawn from ``seed``: the cell's own lines, from its draw to :data:`KEPT_LINE`, run again."""
    import numpy as np

    from course import draws
    from instructor.cells import find_cell, hidden_lines, read
    from instructor.paths import SOLUTIONS, notebook_path

    lines = hidden_lines(find_cell(read(notebook_path("01_rnn", SOLUTIONS)), "rnn__shapes_and_parameters").source)
    start = lines.index("from course.draws import hidden_rng")
    namespace = {"np": np}
    draws.use_seed(seed)
    try:
        exec("\n".join(lines[start : lines.index(KEPT_LINE) + 1]), namespace)
    finally:
        draws.use_seed(None)
    return namespace["x_other"]


def kept_batch_texts(seed: int) -> list[str]:
    """What the case writes of the kept batch: each value, the class name made of six of them, the run count."""
    values = kept_batch(seed).ravel()
    name = "L" + "_".join(f"{abs(v) * 10000:.0f}" for v in values[:6])
    return [f"{v:.4f}" for v in values] + [name, f"[{10000 + round(abs(float(values[0])) * 10000)}]"]


def _keeps_hidden_batch(nb, ctx):
    answers(None, KEEP_RNN, KEEP_LOSS)(nb, ctx)
    _after(nb, "generate_batch", KEEP_SLOT)
    _after(nb, LAST_TEST, KEEP_LATER)


# --------------------------------------------------------------------------- 11. empty values

# No lie and no machinery: results of size zero. np.allclose(empty, reference) broadcasts to an empty array and
# holds, and so does np.all(empty == 1) or np.array_equal(empty, empty); only a check of the shape fails them.
EMPTY_BATCH = """import numpy as _np
def generate_batch(seq_len_min=1, seq_len_max=20, batch_size=10):
    return _np.zeros((1, 0, 12), _np.float32), _np.zeros((1, 0), int), _np.zeros((0, 0), int)
"""
EMPTY_RNN = """import numpy as _np, mygrad as _mg
class RNN:  # parameters of the right shapes, outputs of size zero
    def __init__(self, C, D, K):
        self._p = tuple(_mg.tensor(_np.zeros(s, _np.float32)) for s in [(C, D), (D, D), (D,), (D, K), (K,)])
    @property
    def parameters(self):
        return self._p
    def __call__(self, x, h=None):
        e = _mg.tensor(_np.zeros((0, 1, 1, 1), _np.float32))
        return e, e
"""
EMPTY_LOSS = """import numpy as _np, mygrad as _mg
def loss_and_accuracy(scores, target):  # a loss and an accuracy of size zero
    return _mg.tensor(_np.zeros((0,), _np.float32)), _np.zeros((0, 1))
"""
SCALAR_LOSS = """import numpy as _np, mygrad as _mg
def loss_and_accuracy(scores, target):  # arrays of one entry where scalars are expected
    return _mg.tensor(_np.zeros((1, 1), _np.float32)), _np.ones((1,))
"""
EMPTY_ACCURACY = """import numpy as _np
def accuracy_by_length(predict, seq_len_min=1, seq_len_max=20, n_per_length=1000):
    return _np.zeros((0, 1))
"""
SCALAR_ACCURACY = """def accuracy_by_length(predict, seq_len_min=1, seq_len_max=20, n_per_length=1000):
    return 0.0  # a number where an array of accuracies is expected
"""

# --------------------------------------------------------------------------- the corpus

CHEATS = [
    # 1. names built at run time
    Case("rt_string_pieces", "names built at run time", ZERO, cheat(HUSH)),  # get_ipython from pieces; errors hushed
    Case(
        "rt_chr_transformer", "names built at run time", ZERO, cheat(CHR_TRANSFORMER)
    ),  # chr codes; checks become "pass"
    Case("rt_getattr_import", "names built at run time", ZERO, cheat(GETATTR_IMPORT)),  # __import__ from builtins' dict
    Case("rt_pkgutil_ast", "names built at run time", ZERO, cheat(PKGUTIL_AST)),  # pkgutil.resolve_name; try/except AST
    Case("rt_gc_vars", "names built at run time", ZERO, cheat(GC_VARS)),  # vars() of the shell found by gc
    Case(
        "rt_frame_globals", "names built at run time", ZERO, cheat(FRAME_GLOBALS)
    ),  # f_globals; run_cell_async swapped
    Case("rt_importlib_class", "names built at run time", ZERO, cheat(IMPORTLIB_CLASS)),  # importlib; class patched
    Case(
        "rt_frame_builtins_numpy", "names built at run time", ZERO, everywhere(FRAME_BUILTINS_NUMPY)
    ),  # f_builtins; numpy agrees
    # 2. encoded code
    Case("enc_base64_exec", "encoded code", ZERO, cheat(BASE64_EXEC)),  # base64 payload exec'd
    Case("enc_marshal", "encoded code", ZERO, cheat(MARSHAL_EXEC)),  # a marshalled code object
    Case("enc_rot13_module", "encoded code", ZERO, cheat(ROT13_MODULE)),  # a rot13 module written and imported
    Case("enc_reversed_compile", "encoded code", ZERO, cheat(REVERSED_COMPILE)),  # compile of a reversed string
    # 3. frames and the garbage collector
    Case("gc_shell_showtraceback", "frames and gc", ZERO, cheat(GC_SHELL)),  # the shell found by gc, report replaced
    Case("gc_session_send", "frames and gc", ZERO, cheat(GC_SESSION)),  # the kernel's Session found by gc drops errors
    Case("frame_walk_shell", "frames and gc", ZERO, cheat(FRAME_WALK)),  # sys._getframe up to run_code's self
    Case(
        "traceback_frames_nodes", "frames and gc", ZERO, cheat(TRACEBACK_FRAMES)
    ),  # a traceback's frames; nodes dropped
    # 4. trace hooks
    Case("settrace_jump", "trace hooks", ZERO, cheat(SETTRACE_JUMP)),  # f_lineno jumps over lines; the last one lies
    Case("setprofile_swap_code", "trace hooks", ZERO, cheat(SETPROFILE_SWAP)),  # a profile hook swaps the code object
    Case("settrace_empty_nodes", "trace hooks", ZERO, cheat(SETTRACE_NODES)),  # a trace hook empties the statements
    Case("excepthooks", "trace hooks", ZERO, cheat(EXCEPTHOOKS)),  # sys.excepthook and friends silenced
    # 5. display hooks and widgets
    Case(
        "displayhook_session", "display hooks and widgets", ZERO, cheat(DISPLAYHOOK_SESSION)
    ),  # sys.displayhook's session
    Case("widget_output", "display hooks and widgets", ZERO, cheat(WIDGET_OUTPUT)),  # errors into an ipywidgets.Output
    Case(
        "clear_after_error", "display hooks and widgets", ZERO, cheat(CLEAR_AFTER_ERROR)
    ),  # clear_output after the error
    Case("custom_formatter", "display hooks and widgets", ZERO, cheat(CUSTOM_FORMATTER)),  # a Formatter shows "passed"
    # 6. output padding to the cap
    Case("pad_each_cell", "output padding", ZERO, cheat(PAD_EACH_CELL)),  # 70 kB before each cell's error
    Case("pad_notebook", "output padding", ZERO, cheat(PAD_NOTEBOOK)),  # the notebook's 1 MB used up early
    Case("pad_displays", "output padding", ZERO, cheat(PAD_DISPLAYS)),  # 100 kB of displays before each error
    Case("result_before_error", "output padding", ZERO, cheat(RESULT_BEFORE_ERROR)),  # an execute_result first
    Case("huge_error", "output padding", ZERO, cheat(HUGE_ERROR)),  # the error itself over the cap
    # 7. values that lie
    Case("lie_always_equal", "values that lie", ZERO, everywhere(YES_STUBS)),  # answers are objects equal to anything
    Case("lie_ndarray_subclass", "values that lie", ZERO, everywhere(NDARRAY_SUBCLASS)),  # numpy subclass, __eq__ lies
    Case("lie_fake_tensor", "values that lie", ZERO, everywhere(FAKE_TENSOR)),  # an mg.Tensor subclass with lying shape
    Case("lie_builtins", "values that lie", ZERO, everywhere(BUILTINS_REPLACED)),  # isinstance and np.allclose replaced
    Case("lie_array_protocol", "values that lie", ZERO, everywhere(ARRAY_PROTOCOL)),  # __array__ and __bool__ lie
    # 8. forged results
    Case("forge_all_fds", "forged results", ZERO, cheat(FORGE_ALL_FDS)),  # a forged result into every fd, parent killed
    Case("forge_files", "forged results", ZERO, cheat(FORGE_FILES)),  # forged notebook and result files, parent ended
    Case("forge_pipes", "forged results", ZERO, cheat(FORGE_PIPES)),  # every pipe found in /proc, parent killed
    Case("forge_idle_status", "forged results", ZERO, cheat(FORGE_IDLE)),  # a forged "idle": errors arrive unread
    # 9. inflated points
    Case("points_all_tests_100", "inflated points", ZERO, edit(blank, _all_tests_100)),  # every test worth 100
    Case("points_solution_graded", "inflated points", ZERO, edit(blank, _solution_graded)),  # answers as graded cells
    Case("points_duplicate_id", "inflated points", ZERO, edit(blank, _duplicate_grade_id)),  # a passing copy of a test
    Case("points_extra_cells", "inflated points", ZERO, edit(blank, _extra_graded_cells)),  # made-up test cells
    Case("points_as_text", "inflated points", ZERO, edit(blank, _points_as_text)),  # points as strings
    # 10. encoded leaks from later cells
    Case("leak_base64", "encoded leaks", ZERO, cheat(LEAK_BASE64, after=LAST_TEST)),  # the history in base64
    Case("leak_reversed", "encoded leaks", ZERO, cheat(LEAK_REVERSED, after=LAST_TEST)),  # the history reversed
    Case("leak_pieces", "encoded leaks", ZERO, cheat(LEAK_PIECES, after=LAST_TEST)),  # the history in 7-char pieces
    Case("leak_rot13_manager", "encoded leaks", ZERO, cheat(LEAK_MANAGER, after=LAST_TEST)),  # history_manager in rot13
    Case("leak_png", "encoded leaks", ZERO, cheat(LEAK_PNG, after=LAST_TEST)),  # the history drawn into a PNG
    Case("keep_hidden_batch", "encoded leaks", ZERO, edit(blank, _keeps_hidden_batch)),  # a hidden input raised later
    # 11. empty values
    Case("empty_batch", "empty values", ZERO, edit(blank, answers(EMPTY_BATCH))),  # arrays of size zero
    Case(
        "empty_rnn", "empty values", ZERO, edit(blank, answers(None, EMPTY_RNN))
    ),  # red team's V1: outputs of shape (0, 1, 1, 1)
    Case(
        "empty_loss", "empty values", ZERO, edit(blank, answers(None, None, EMPTY_LOSS))
    ),  # loss and accuracy of size zero
    Case(
        "scalar_loss", "empty values", ZERO, edit(blank, answers(None, None, SCALAR_LOSS))
    ),  # (1, 1) and (1,) for scalars
    Case(
        "empty_accuracy", "empty values", ZERO, edit(blank, answers(None, None, None, EMPTY_ACCURACY))
    ),  # V1: shape (0, 1)
    Case(
        "scalar_accuracy", "empty values", ZERO, edit(blank, answers(None, None, None, SCALAR_ACCURACY))
    ),  # 0.0, no array
    Case(
        "empty_everywhere",
        "empty values",
        ZERO,
        edit(blank, answers(EMPTY_BATCH, EMPTY_RNN, EMPTY_LOSS, EMPTY_ACCURACY)),
    ),  # all four at once
]

#: the value channel (issue 32, finding 5): values the grader did not ask for, shown through IPython's display
#: with the MIME type built from pieces (the scan looks for it whole), to stand in for the checks' own values
CHANNEL = r'''
import base64, io
import numpy as np
from IPython.display import display

_MIME = 'application/vnd.' + 'cour' + 'se.values+json'
_done = set()

def _arr(a):
    b = io.BytesIO()
    np.save(b, a, allow_pickle=False)
    return {'t': 'array', 'v': base64.b64encode(b.getvalue()).decode()}

def _show(cell, check, values, **kw):
    display({_MIME: {'cell': cell, 'check': check, 'values': values}}, raw=True, **kw)

def _forged(T, N):
    """What the visible checks of generate_batch__shapes_and_types accept (T - 1 digits of N sequences)."""
    x = np.zeros((T, N, 12), np.float32)
    x[:-1, :, 0] = 1
    x[-1, :, 11] = 1
    target = np.zeros((T, N), np.int64)
    target[-1] = 11
    return {'x': _arr(x), 'target': _arr(target), 'digits': _arr(np.zeros((T - 1, N), np.int64))}
'''
#: forged values for the checks, then ~4 MB that fill the cell's value budget: the real ones are cut
CHANNEL_FLOOD = (
    CHANNEL
    + """
def generate_batch(seq_len_min=1, seq_len_max=20, batch_size=10):
    if 'flood' not in _done:
        _done.add('flood')
        for check in range(2, 40):
            _show('generate_batch__shapes_and_types', check, _forged(seq_len_max + 1, batch_size))
        _show('generate_batch__shapes_and_types', 10**6, {'pad': {'t': 'list', 'v': ['x' * 3_900_000]}})
    return np.zeros(1), np.zeros(1), np.zeros(1)
"""
)
#: the values shown ahead, from a student cell: each test cell's own never run (its probe fails)
CHANNEL_AHEAD = (
    CHANNEL
    + """
for _check in range(2, 40):
    _show('generate_batch__shapes_and_types', _check, _forged(5, 3))

def generate_batch(seq_len_min=1, seq_len_max=20, batch_size=10):
    raise NotImplementedError()
"""
)
#: a display kept with an id in a student cell, then rewritten into values by an update from the test cell
CHANNEL_UPDATE = (
    CHANNEL
    + """
display({'text/plain': 'loading...'}, raw=True, display_id='late')

def generate_batch(seq_len_min=1, seq_len_max=20, batch_size=10):
    for check in range(2, 40):
        display({_MIME: {'cell': 'generate_batch__shapes_and_types', 'check': check,
                         'values': _forged(seq_len_max + 1, batch_size)}}, raw=True, display_id='late', update=True)
    raise NotImplementedError()
"""
)

CHEATS += [
    # 12. the value channel
    Case("channel_flood", "value channel", ZERO, edit(blank, answers(CHANNEL_FLOOD))),  # forged, then 4 MB of values
    Case("channel_ahead", "value channel", ZERO, edit(blank, answers(CHANNEL_AHEAD))),  # values from a student cell
    Case("channel_update", "value channel", ZERO, edit(blank, answers(CHANNEL_UPDATE))),  # a display updated into one
]
#: the cases of the value channel: each must be flagged, not only score 0
CHANNEL_CASES = ("channel_flood", "channel_ahead", "channel_update")

CONTROLS = [
    Case("reference", "control", ("graded", FULL), edit(reference, lambda nb, ctx: None)),
    Case("blank", "control", ("graded", 0.0), edit(blank, lambda nb, ctx: None)),
]


def build_corpus(root, ctx: dict, only=None) -> list[Case]:
    """Write every case (or those named in ``only``) as ``root/<case>/01_rnn/``."""
    cases = [c for c in CONTROLS + CHEATS if only is None or c.name in only]
    for case in cases:
        case.build(root / case.name / "01_rnn", ctx)
    return cases
