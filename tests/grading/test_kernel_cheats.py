"""Do cheats in the kernel (tests/hostile/kernel_cheats.py) all score 0, with the reference untouched?

Every cheat is the blank notebook (no real answer) plus code in student
cells; each must end not graded, or graded (flagged or not) with 0 points.
The corpus is graded once, two submissions at a time, in one course
directory, with the hostile corpus and its limits (tests/grading/conftest.py),
then feedback is written for every graded submission and searched for the
hidden tests, also in encoded forms (base64, reversed, rot13, split into pieces).
Set COURSE_KERNEL_CHEATS_TABLE=FILE to keep the table of outcomes.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import hashlib
import html
import os
import re
from pathlib import Path

import nbformat
import pytest

from instructor.cells import hidden_lines
from instructor.coursedir import hidden_seed
from instructor.coursedir.course_dir import CourseDir
from instructor.paths import (
    NOTEBOOKS,
    SOLUTIONS,
    notebook_path,
)
from tests.hostile import kernel_cheats
from tests.hostile.cases import FULL, A
from tests.hostile.grading import part, scores_over_the_release

pytestmark = pytest.mark.notebook  # executes notebooks; runs by default (CI=true fails without the sandbox)

TABLE_ENV = "COURSE_KERNEL_CHEATS_TABLE"


@pytest.fixture(scope="module")
def corpus(graded_corpus):
    """The cheats' cases and results (tests/grading/conftest.py grades them with the hostile corpus)."""
    mine = part(graded_corpus, graded_corpus["cheats"])
    table = _table(mine["cases"], mine["outcomes"])
    print("\n" + table)
    if os.environ.get(TABLE_ENV):
        Path(os.environ[TABLE_ENV]).write_text(table + "\n")
    return mine


def _zero(o) -> bool:
    """Not graded, or graded (flagged or not) with no point."""
    return o.status.shown == "not graded" or o.score == 0


def _table(cases, outcomes) -> str:
    lines = ["| case | class | status | score | flags / reason | seconds |", "|---|---|---|---|---|---|"]
    for case in cases:
        o = outcomes[case.name]
        score = "-" if o.score is None else f"{o.score:g}/{o.max_score:g}"
        reason = (o.reason or "-").replace("|", "/")
        if len(reason) > 160:
            reason = reason[:157] + "..."
        lines.append(f"| {case.name} | {case.class_} | {o.status.shown} | {score} | {reason} | {o.seconds:.1f} |")
    cheats = [c for c in cases if c.class_ != "control"]
    by_class: dict[str, list[int]] = {}
    for c in cheats:
        counts = by_class.setdefault(c.class_, [0, 0])
        counts[0] += 1
        counts[1] += not _zero(outcomes[c.name])
    lines += ["", "| class | cases | scored above 0 |", "|---|---|---|"]
    lines += [f"| {k} | {n} | {paid} |" for k, (n, paid) in by_class.items()]
    lines.append(f"| all | {len(cheats)} | {sum(p for _, p in by_class.values())} |")
    return "\n".join(lines)


def test_corpus_covers_every_class(corpus):
    """Does the corpus hold 40 or more cheats, several in each of the ten classes of the issue?"""
    cheats = [c for c in corpus["cases"] if c.class_ != "control"]
    assert len(cheats) >= 40
    classes: dict[str, int] = {}
    for c in cheats:
        classes[c.class_] = classes.get(c.class_, 0) + 1
    assert len(classes) >= 11 and min(classes.values()) >= 3, classes


def test_no_cheat_scores(corpus):
    """Does every cheat end not graded, or graded (flagged or not) with 0 of 9 points?"""
    paid = [
        f"{c.name} ({c.class_}): {corpus['outcomes'][c.name].status.shown} {corpus['outcomes'][c.name].score}"
        for c in corpus["cases"]
        if c.expect == ("zero", "") and not _zero(corpus["outcomes"][c.name])
    ]
    assert not paid, "cheats that scored:\n" + "\n".join(paid)


def test_no_recorded_score_exceeds_the_release(corpus):
    """Does no cell's recorded points exceed what the release gives it, nor any total the assignment's maximum?"""
    assert scores_over_the_release(corpus["course_dir"]) == []
    assert {n: o.score for n, o in corpus["outcomes"].items() if (o.score or 0) > FULL} == {}


def test_controls(corpus):
    """Is the reference, graded among the cheats, at 9/9 and flagged by nothing, and the blank notebook at 0/9?"""
    ref, blank = corpus["outcomes"]["reference"], corpus["outcomes"]["blank"]
    assert ref.status.shown == "graded" and ref.score == ref.max_score == FULL and not ref.flags, (
        ref.status,
        ref.reason,
    )
    assert blank.status.shown == "graded" and blank.score == 0 and blank.max_score == FULL


def _secret_lines() -> set[str]:
    """The hidden test lines of 16 characters or more that the released notebook does not show anyway."""
    source = nbformat.read(str(notebook_path(A, SOLUTIONS)), as_version=4)
    released = "\n".join(c.source for c in nbformat.read(str(notebook_path(A, NOTEBOOKS)), as_version=4).cells)
    lines = {line.strip() for c in source.cells for line in hidden_lines(c.source)}
    lines = {line for line in lines if len(line) >= 16 and line not in released}
    assert lines
    return lines


def _is_message(line: str) -> bool:
    """A line that is only a string (an assert's message, continued): the feedback explains a failure with it."""
    return re.match(r"^[rbfuRBFU]*[\"']", line) is not None


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")


def _decoded_runs(text: str) -> str:
    """Every base64-looking run of ``text``, decoded (undecodable runs are left out)."""
    out = []
    for run in _BASE64_RUN.findall(text):
        run = run[: len(run) - len(run) % 4] if not run.endswith("=") else run
        try:
            out.append(base64.b64decode(run, validate=True).decode("utf-8", "ignore"))
        except (binascii.Error, ValueError):
            continue
    return "\n".join(out)


def _alnum(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", text)


def _forms(text: str) -> dict[str, str]:
    """The page's text as it could hide a line: as is, reversed, rot13, decoded base64, split into pieces."""
    plain = html.unescape(text)
    decoded = _decoded_runs(plain)
    return {
        "plain": plain,
        "reversed": plain[::-1],
        "rot13": codecs.decode(plain, "rot13"),
        "base64": decoded,
        "base64 reversed": decoded[::-1],
        "pieces": _alnum(plain),
        "pieces reversed": _alnum(plain)[::-1],
    }


def test_feedback_leaks_no_hidden_test(corpus):
    """Is every feedback page free of the hidden tests, whatever the encoding a later cell printed them in?"""
    assert not corpus["feedback_failures"]
    pages = corpus["feedback"]
    graded = [o for o in corpus["outcomes"].values() if o.status.shown != "not graded"]
    assert len(pages) == len(graded)
    secrets = _secret_lines()
    leaks = []
    for page in pages:
        for form, text in _forms(page.read_text(errors="replace")).items():
            pieces = form.startswith("pieces")
            # split into pieces, only the characters of a line are compared; a message may be shown by design
            found = [
                s
                for s in secrets
                if ((_alnum(s) in text and len(_alnum(s)) >= 24 and not _is_message(s)) if pieces else s in text)
            ]
            leaks += [f"{page}: {form}: {s[:60]!r}" for s in found]
    assert not leaks, "\n".join(leaks[:20])


def test_feedback_shows_no_drawn_history(corpus):
    """Does the feedback of the cheat that draws the input history into a figure show no figure at all?"""
    pages = [p for p in corpus["feedback"] if "leak_png" in str(p)]
    for page in pages:
        assert "data:image/png" not in page.read_text(errors="replace"), page


def test_feedback_shows_no_value_a_hidden_check_passed(corpus):
    """A model keeps the batch a hidden check passed it (36 numbers) and gives it back in later cells: in the text
    of a ValueError a visible check catches and shows, of one no check catches, in the name of its class, printed,
    warned, in a figure's title, in a later cell's error, written into a display of a cell before the first hidden
    check, as the run count of the cells after it. Is none of it on the page, in any of these forms?"""
    source = nbformat.read(str(notebook_path(A, SOLUTIONS)), as_version=4)
    hidden = "\n".join(line for c in source.cells for line in hidden_lines(c.source))
    assert kernel_cheats.KEPT_LINE in hidden  # the batch the case keeps, drawn for its submission
    pages = [p for p in corpus["feedback"] if "keep_hidden_batch" in str(p)]
    assert len(pages) == 1
    text = html.unescape(pages[0].read_text(errors="replace"))
    assert "Why it failed" in text and "Your code raised" in text  # the cells that raised it are explained
    # the seed its hidden inputs were drawn from, as the grader made it: the course's key, the student, the bytes
    student = corpus["outcomes"]["keep_hidden_batch"].student
    handed_in = corpus["other"].parents[2] / student / A / f"{A}.ipynb"
    key = hidden_seed.read_key(hidden_seed.key_file(CourseDir.at(corpus["course_dir"])))
    seed = hidden_seed.seed_for(key, A, student, hashlib.sha256(handed_in.read_bytes()).hexdigest())
    # a drawn value may also be written in her notebook (01's "-0.0331" of h_last_expected), which her page shows
    # as her own code: such a value tells nothing, so only the others are looked for
    own = "\n".join(c.source for c in nbformat.read(str(handed_in), as_version=4).cells)
    kept = [t for t in kernel_cheats.kept_batch_texts(seed) if t not in own]
    assert len(kept) >= 30, f"only {len(kept)} of the kept batch's values are not in the notebook's own text"
    shown = [t for t in kept if t in text]
    assert not shown, f"{len(shown)} of the kept batch's values on the page: {shown[:6]}"
