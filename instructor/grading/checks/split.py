"""Split a test cell into what runs in the student's kernel and what the autograder judges outside.

A test cell of the course is plain Python: statements that call the
student's code, statements that build inputs and expected values, and
``assert`` statements. Read top to bottom, each top-level statement is one of

``probe``
    it reads the kernel's state: a name the cell did not bind itself (the
    student's functions and classes, anything earlier cells left) or a name
    a probe bound or touched. It runs in the kernel only; what it binds is a
    *kernel value*, and so is every name it reads (the student's code may
    have changed it);
``given``
    it reads nothing of the kernel: inputs, expected values, helper
    functions. It runs outside, and in the kernel too when a probe needs
    what it binds (or it binds nothing: ``np.random.seed(0)``);
``judged``
    it holds an ``assert`` and reads nothing of the kernel but kernel values.
    It never runs in the kernel: there, a call that sends the kernel values
    it reads takes its place, and the autograder runs the statement itself, in its
    own process, on those values (:mod:`instructor.grading.checks.judge`);
``kernel assert``
    it holds an ``assert`` and calls the student's code itself: it runs in
    the kernel, and only the error it raises there can fail the cell (what
    the report calls a check the autograder cannot judge outside).

The kernel values a judged statement reads travel by value only
(:mod:`course.values`): arrays, numbers, strings and containers of them.
A statement that reads the legacy global random state (``np.random.rand``)
reads the kernel's state once a probe has run: the student's code draws from it.
"""

from __future__ import annotations

import ast
import builtins
import functools
import threading
from dataclasses import dataclass, field

from instructor.grading.checks.private import SEND_NAME, imports_line, private_name, rewrite
from instructor.grading.syntax import parse

PROBE, GIVEN, JUDGED, KERNEL_ASSERT = "probe", "given", "judged", "kernel assert"

#: the pseudo-name of numpy's global random state (read by np.random.<function>, except the seeded generators)
GLOBAL_RANDOM = "<np.random>"
_OWN_GENERATORS = {"default_rng", "Generator", "PCG64", "SeedSequence", "RandomState"}
_BUILTINS = set(dir(builtins))
_BLOCKS = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try)


@dataclass
class Statement:
    """One top-level statement of a test cell and how it is run."""

    source: str
    kind: str
    reads: set[str]
    binds: set[str]
    kernel_values: list[str] = field(default_factory=list)  # for a judged statement: what the kernel sends
    in_kernel: bool = False
    line: int = 0  # where it starts in the cell (1-based)


@dataclass
class Plan:
    """How one test cell is run: its statements, in order, and the code the kernel gets."""

    cell: str
    statements: list[Statement]
    source: str = ""  # the cell's code as the student version has it

    def kernel_code(
        self, setup: tuple[str, ...] = (), seed: int | None = None, variant: int | None = None
    ) -> tuple[str, list[int]]:
        """The code that runs in the kernel in the cell's place (probes, the givens they need, the sends),
        and for each of its lines the cell's line it stands for (a traceback in the kernel is read back with it).

        Its first line binds the send function and the trusted imports of
        ``setup`` (the student version's set-up cells) under private names, which the
        probes read in place of the notebook's globals (:mod:`.private`).
        """
        header, private = imports_line(setup)
        # the seeds of this submission's hidden inputs and of its student's own parameters, set where the kernel's
        # hidden_rng and variant read them (course.draws)
        draws = private_name("draws")
        header += f"; import course.draws as {draws}; {draws}.use_seed({seed!r}); {draws}.use_variant({variant!r})"
        own = set().union(*(st.binds for st in self.statements))  # a name the cell binds itself stays its own
        private = {name: p for name, p in private.items() if name not in own}
        parts, origin = [header], [1]
        for index, st in enumerate(self.statements):
            if st.kind == JUDGED:
                names = ", ".join(f"{n}={n}" for n in st.kernel_values)
                parts.append(f"{SEND_NAME}({self.cell!r}, {index}{', ' if names else ''}{names})")
                origin.append(st.line)
            elif st.in_kernel:
                lines = rewrite(st.source, private).splitlines() or [""]
                parts += lines
                origin += range(st.line, st.line + len(lines))
        return "\n".join(parts) + "\n", origin

    def count(self, kind: str) -> int:
        return sum(st.kind == kind for st in self.statements)


def _names(node: ast.AST) -> tuple[set[str], set[str]]:
    """(names read, names bound) anywhere in ``node``: a generous count, which only makes more values the kernel's."""
    reads: set[str] = set()
    binds: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            (binds if isinstance(sub.ctx, (ast.Store, ast.Del)) else reads).add(sub.id)
            if isinstance(sub.ctx, ast.Del):
                reads.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            binds.add(sub.name)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            binds.update((a.asname or a.name).split(".")[0] for a in sub.names)
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
            reads.add(sub.target.id)
        elif isinstance(sub, ast.Attribute) and _is_global_random(sub):
            reads.add(GLOBAL_RANDOM)
    local = _local_names(node)
    return reads - local, binds - local


def _local_names(node: ast.AST) -> set[str]:
    """Names that live only inside a comprehension or a lambda of ``node`` (not the cell's)."""
    local = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.comprehension):
            local |= {n.id for n in ast.walk(sub.target) if isinstance(n, ast.Name)}
        elif isinstance(sub, ast.Lambda):
            args = sub.args
            local |= {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a}
    return local


def _is_global_random(node: ast.Attribute) -> bool:
    """``np.random.<f>`` or ``numpy.random.<f>`` for a function that draws from the global state."""
    inner = node.value
    return (
        isinstance(inner, ast.Attribute)
        and inner.attr == "random"
        and isinstance(inner.value, ast.Name)
        and inner.value.id in ("np", "numpy")
        and node.attr not in _OWN_GENERATORS
    )


#: calls that hand the student's code a copy of a value, so the autograder's own stays what the cell made
_COPIES = {("np", "array"), ("np", "copy"), ("mg", "tensor"), ("mg", "Tensor")}


def _copied_only(node: ast.AST) -> set[str]:
    """Names that ``node`` reads only to copy them (``x.copy()``, ``x.astype(..)``, ``np.array(x)``,
    ``mg.tensor(x)``)."""
    copied, other = set(), set()
    inside = set()
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call):
            continue
        func = sub.func
        if isinstance(func, ast.Attribute) and func.attr in ("copy", "astype") and isinstance(func.value, ast.Name):
            inside.add(id(func.value))
            copied.add(func.value.id)
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and (func.value.id, func.attr) in _COPIES
            and sub.args
            and isinstance(sub.args[0], ast.Name)
            and not any(k.arg == "copy" for k in sub.keywords)
        ):
            inside.add(id(sub.args[0]))
            copied.add(sub.args[0].id)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and id(sub) not in inside:
            other.add(sub.id)
    return copied - other


def _holds_assert(node: ast.AST) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
        return False  # a definition asserts only when called, wherever that is
    return any(isinstance(sub, ast.Assert) for sub in ast.walk(node))


def _free_names(node: ast.AST) -> set[str]:
    """The names a function or class definition reads that it does not bind itself."""
    reads, binds = _names(node)
    args = {
        a.arg
        for sub in ast.walk(node)
        if isinstance(sub, ast.arguments)
        for a in (*sub.posonlyargs, *sub.args, *sub.kwonlyargs, sub.vararg, sub.kwarg)
        if a is not None
    }
    return reads - binds - args


def statement_names(node: ast.stmt) -> tuple[set[str], set[str]]:
    """(names read, names bound) by one top-level statement of a cell, as a plan counts them.

    A definition reads only its free names and binds its own name (its locals
    are its own); a loop's or a block's own variables are not read from outside.
    """
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return _free_names(node), {node.name}
    reads, binds = _names(node)
    if isinstance(node, _BLOCKS):
        reads = reads - binds  # a name it reads before binding would fail the reference
    return reads, binds


def plan(cell: str, source: str, imported: set[str]) -> Plan:
    """The :class:`Plan` of the test cell ``cell`` whose (trusted, student version) source is ``source``.

    ``imported`` are the names the notebook binds by importing a trusted
    module (:data:`.private.TRUSTED_MODULES`); the autograder binds them outside itself.
    Raises SyntaxError if the source does not parse. Every submission of a
    release has the same test cells: a plan is made once per process, by one
    thread (the grading tasks of a process ask for it from several).
    """
    with _PLANNING:
        return _plan(cell, source, frozenset(imported))


#: held while a plan is looked up or made, so two threads asking for the same new plan do not both make it
_PLANNING = threading.Lock()


@functools.lru_cache(maxsize=1024)
def _plan(cell: str, source: str, imported: frozenset[str]) -> Plan:
    tree = parse(source)
    lines = source.splitlines()
    cell_bound: set[str] = set()  # bound by a given statement of this cell: the autograder has its own value
    kernel: set[str] = set()  # kernel values: bound or touched by a probe
    definitions: dict[str, set[str]] = {}  # a function defined in the cell -> the cell's names it reads
    kernel_functions: set[str] = set()  # functions the cell defines from the kernel's state: they run there
    probe_ran = False
    statements = []
    for node in tree.body:
        text = _segment(lines, node)
        reads, binds = statement_names(node)
        # calling a function of the cell reads what it reads
        reads |= {n for name in reads & definitions.keys() for n in definitions[name]}
        outside = {n for n in reads if n not in cell_bound and n not in imported and n not in _BUILTINS}
        if GLOBAL_RANDOM in reads:
            outside.discard(GLOBAL_RANDOM)
            if probe_ran:
                outside.add(GLOBAL_RANDOM)
        touches_kernel = bool(outside) or bool(reads & kernel)
        if _holds_assert(node):
            kind = KERNEL_ASSERT if outside - kernel or reads & kernel_functions else JUDGED
        else:
            kind = PROBE if touches_kernel else GIVEN
        st = Statement(text, kind, reads, binds, line=node.lineno)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            definitions[node.name] = reads & (cell_bound | kernel)
            if kind == PROBE:
                kernel_functions.add(node.name)
        if kind in (PROBE, KERNEL_ASSERT):
            probe_ran = True
            # what a probe binds is the kernel's; a value it reads, the student's code may have changed (not a
            # function of the cell: the autograder keeps its own, though what it reads becomes the kernel's)
            kernel |= binds | (reads & cell_bound - definitions.keys() - _copied_only(node))
            st.in_kernel = True
        elif kind == GIVEN:
            cell_bound |= binds
            kernel -= binds  # bound again by the cell itself: the autograder's value from here on
        else:  # judged: runs outside only; what it binds is the autograder's
            st.kernel_values = sorted(n for n in reads & kernel if n != GLOBAL_RANDOM)
            cell_bound |= binds
            kernel -= binds
        statements.append(st)
    _slice_givens(statements)
    return Plan(cell, statements, source)


def _segment(lines: list[str], node: ast.stmt) -> str:
    """The source of top-level statement ``node`` (what ``ast.get_source_segment`` gives, without
    splitting the cell's source again for every statement)."""
    if node.end_lineno is None:
        raise ValueError(f"statement at line {node.lineno} has no end position (it was not parsed from source)")
    first, last = node.lineno - 1, node.end_lineno - 1
    head, tail = lines[first].encode(), lines[last].encode()  # the offsets count UTF-8 bytes
    if first == last:
        return head[node.col_offset : node.end_col_offset].decode()
    return "\n".join([head[node.col_offset :].decode(), *lines[first + 1 : last], tail[: node.end_col_offset].decode()])


def _slice_givens(statements: list[Statement]) -> None:
    """Mark the given statements the kernel needs: those binding what a later kernel statement reads.

    A given that binds nothing (``np.random.seed(0)``) runs in the kernel too;
    one whose values only judged statements use (an expected value) stays out.
    """
    needed: set[str] = set()
    for st in reversed(statements):
        if st.kind in (PROBE, KERNEL_ASSERT):
            needed |= st.reads
        elif st.kind == GIVEN and (st.binds & needed or not st.binds):
            st.in_kernel = True
            needed |= st.reads
        elif st.kind == JUDGED:
            needed |= set(st.kernel_values)  # they must exist in the kernel
