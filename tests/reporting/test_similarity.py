"""course similarity: a renamed copy ranks first; independent work and released code do not match.

The class is written straight into a course directory's ``autograded/`` and
``release/`` (no grading run): the real released 01_rnn notebook, its code
answer cells filled by

- ``blank1``, ``blank2``: nothing (the notebook as released);
- ``ref``: the course's solution (``solutions/``, markers stripped);
- ``amy``: her own implementation (loops); ``bob``: amy's, locals and
  attributes renamed, nothing reordered: the copy to find;
- ``carl``: another implementation (vectorised NumPy, other names);
  ``dana``: a third, of two tasks only;
- ``fay``: amy's answers rewritten: statements reordered, loops turned into
  array code and back, names changed: what it cannot see;
- ``gus``: carl's rnn and accuracy_by_length, bob's generate_batch and loss
  (half from each); ``hal``: bob's generate_batch and nothing else;
- ``ivy``: only the three ``dense(...)`` layers every RNN needs.
"""

from __future__ import annotations

import csv
import re
import shutil
import textwrap
import time
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import numpy as np
import pytest

from instructor.cells import strip_markers
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.paths import NOTEBOOKS, SOLUTIONS
from instructor.reporting import similarity, similarity_documents, similarity_fingerprints, similarity_page
from instructor.reporting.similarity_pairs import Pair
from tests.factories import assert_one_sentence_error

A = "01_rnn"
RELEASED = NOTEBOOKS / A / f"{A}.ipynb"
SOLUTION = SOLUTIONS / A / f"{A}.ipynb"
STUB = re.compile(r"^( *)# YOUR CODE HERE\n *raise NotImplementedError\(\)$", re.MULTILINE)

# --------------------------------------------------------------------------- the answers, task by task
# Each task's answer is a list of bodies, one per stub of the released cell (the rnn cell has three).

AMY = {
    "generate_batch": [
        """
        length = np.random.randint(seq_len_min, seq_len_max + 1)
        seqs = np.random.randint(0, 10, size=(length, batch_size))
        total = length + 1
        x = np.zeros((total, batch_size, 12), dtype=np.float32)
        y = np.empty((total, batch_size), dtype=np.int64)
        for n in range(batch_size):
            for t in range(length):
                x[t, n, seqs[t, n]] = 1.0
                y[t, n] = seqs[length - 1 - t, n]
            x[length, n, END_TOKEN] = 1.0
            y[length, n] = END_TOKEN
        return x, y, seqs
    """
    ],
    "rnn": [
        """
        self.n_hidden = dim_recurrent
        self.w_in = dense(dim_input, dim_recurrent, weight_initializer=glorot_normal)
        self.w_rec = dense(dim_recurrent, dim_recurrent, weight_initializer=glorot_normal, bias=False)
        self.w_out = dense(dim_recurrent, dim_output, weight_initializer=glorot_normal)
    """,
        """
        steps = x.shape[0]
        if h is None:
            h = np.zeros((1, x.shape[1], self.n_hidden), dtype=np.float32)
        history = []
        prev = h[0]
        for t in range(steps):
            prev = mg.tanh(self.w_in(x[t]) + self.w_rec(prev))
            history.append(prev)
        history = mg.stack(history)
        out = self.w_out(history)
        return out, history
    """,
        """
        return tuple(p for layer in (self.w_in, self.w_rec, self.w_out) for p in layer.parameters)
    """,
    ],
    "loss_and_accuracy": [
        """
        steps, count, classes = scores.shape
        flat_scores = scores.reshape(steps * count, classes)
        flat_target = target.reshape(steps * count)
        loss = softmax_crossentropy(flat_scores, flat_target)
        guess = mg.asarray(scores).argmax(axis=2)
        n_right = 0
        for n in range(count):
            if (guess[:, n] == target[:, n]).all():
                n_right += 1
        return loss, n_right / count
    """
    ],
    "accuracy_by_length": [
        """
        out = []
        for length in range(seq_len_min, seq_len_max + 1):
            x, y, _ = generate_batch(length, length, n_per_length)
            with mg.no_autodiff:
                s = predict(x)
            _, acc = loss_and_accuracy(s, y)
            out.append(acc)
        return np.array(out, dtype=float)
    """
    ],
}

#: bob = amy with her locals and attributes renamed; nothing else changed
BOB_NAMES = {
    "length": "n_dig",
    "seqs": "digs",
    "total": "T",
    "x": "inp",
    "y": "tgt",
    "n": "col",
    "t": "row",
    "n_hidden": "hidden_dim",
    "w_in": "lin_x",
    "w_rec": "lin_h",
    "w_out": "lin_y",
    "steps": "n_steps",
    "history": "hs",
    "prev": "h_prev",
    "out": "result",
    "layer": "lyr",
    "p": "param",
    "count": "N",
    "classes": "K",
    "flat_scores": "s2",
    "flat_target": "t2",
    "guess": "pred",
    "n_right": "good",
    "s": "sc",
    "acc": "a",
}


def _renamed(body: str, task: str, body_index: int) -> str:
    """``body`` with BOB_NAMES renamed; in RNN.__call__ ``x`` is the given parameter and stays."""
    names = {old: new for old, new in BOB_NAMES.items() if not (old == "x" and task == "rnn" and body_index == 1)}
    return re.sub(r"\b(" + "|".join(map(re.escape, names)) + r")\b", lambda m: names[m.group(1)], body)


BOB = {task: [_renamed(b, task, i) for i, b in enumerate(bodies)] for task, bodies in AMY.items()}

CARL = {
    "generate_batch": [
        """
        n = np.random.randint(seq_len_min, seq_len_max + 1)
        digits = np.random.randint(10, size=(n, batch_size))
        ends = np.full((1, batch_size), END_TOKEN)
        inputs = np.eye(12, dtype=np.float32)[np.vstack([digits, ends])]
        return inputs, np.vstack([np.flipud(digits), ends]), digits
    """
    ],
    "rnn": [
        """
        self.hidden = dim_recurrent
        self.layers = {
            "U": dense(dim_input, dim_recurrent, weight_initializer=glorot_normal),
            "W": dense(dim_recurrent, dim_recurrent, weight_initializer=glorot_normal, bias=False),
            "V": dense(dim_recurrent, dim_output, weight_initializer=glorot_normal),
        }
    """,
        """
        state = h[0] if h is not None else np.zeros((x.shape[1], self.hidden), dtype=np.float32)
        projected = self.layers["U"](x)
        collected = []
        t = 0
        while t < len(x):
            state = mg.tanh(projected[t] + self.layers["W"](state))
            collected.append(state)
            t += 1
        states = mg.stack(collected, axis=0)
        return self.layers["V"](states), states
    """,
        """
        return sum((layer.parameters for layer in self.layers.values()), ())
    """,
    ],
    "loss_and_accuracy": [
        """
        n_classes = scores.shape[2]
        loss = softmax_crossentropy(scores.reshape(-1, n_classes), target.flatten())
        wrong = (np.asarray(mg.asarray(scores)).argmax(-1) != target).sum(axis=0)
        return loss, float((wrong == 0).mean())
    """
    ],
    "accuracy_by_length": [
        """
        result = np.empty(seq_len_max - seq_len_min + 1)
        for k, n_digits in enumerate(range(seq_len_min, seq_len_max + 1)):
            batch, answer, _ = generate_batch(n_digits, n_digits, batch_size=n_per_length)
            with mg.no_autodiff:
                guess = mg.asarray(predict(batch)).argmax(axis=-1)
            result[k] = (guess == answer).all(axis=0).mean()
        return result
    """
    ],
}

DANA = {
    "generate_batch": [
        """
        size = int(np.random.randint(seq_len_min, seq_len_max + 1))
        d = np.random.randint(0, 10, (size, batch_size))
        closing = END_TOKEN * np.ones((1, batch_size), dtype=d.dtype)
        tokens = np.concatenate((d, closing))
        onehot = np.zeros(tokens.shape + (12,), dtype="float32")
        np.put_along_axis(onehot, tokens[..., None], 1.0, axis=-1)
        return onehot, np.concatenate((d[::-1], closing)), d
    """
    ],
    "loss_and_accuracy": [
        """
        logits = mg.reshape(scores, (-1, scores.shape[-1]))
        loss = softmax_crossentropy(logits, np.reshape(target, -1))
        best = np.argmax(mg.asarray(scores), axis=2)
        correct_per_seq = np.sum(best == target, axis=0) == target.shape[0]
        return loss, correct_per_seq.mean().item()
    """
    ],
}

#: amy's work rewritten by someone who understood it: reordered, loops made array code, renamed
FAY = {
    "generate_batch": [
        """
        T = np.random.randint(seq_len_min, seq_len_max + 1) + 1
        seq = np.random.randint(0, 10, size=(T - 1, batch_size))
        target = np.full((T, batch_size), END_TOKEN, dtype=np.int64)
        target[:-1] = seq[::-1]
        one_hot = np.zeros((T, batch_size, 12), dtype=np.float32)
        for t in range(T - 1):
            one_hot[t, np.arange(batch_size), seq[t]] = 1.0
        one_hot[T - 1, :, END_TOKEN] = 1.0
        return one_hot, target, seq
    """
    ],
    "rnn": [
        """
        self.w_out = dense(dim_recurrent, dim_output, weight_initializer=glorot_normal)
        self.w_rec = dense(dim_recurrent, dim_recurrent, bias=False, weight_initializer=glorot_normal)
        self.w_in = dense(dim_input, dim_recurrent, weight_initializer=glorot_normal)
        self.D = dim_recurrent
    """,
        """
        h_t = np.zeros((x.shape[1], self.D), dtype=np.float32) if h is None else h[0]
        hs = []
        for x_t in x:
            h_t = mg.tanh(self.w_rec(h_t) + self.w_in(x_t))
            hs += [h_t]
        hs = mg.stack(hs)
        return self.w_out(hs), hs
    """,
        """
        return self.w_in.parameters + self.w_rec.parameters + self.w_out.parameters
    """,
    ],
    "loss_and_accuracy": [
        """
        guess = mg.asarray(scores).argmax(axis=-1)
        accuracy = float(np.mean([(guess[:, i] == target[:, i]).all() for i in range(target.shape[1])]))
        loss = softmax_crossentropy(scores.reshape(-1, scores.shape[-1]), target.ravel())
        return loss, accuracy
    """
    ],
    "accuracy_by_length": [
        """
        def one(length):
            x, y, _ = generate_batch(length, length, n_per_length)
            with mg.no_autodiff:
                return loss_and_accuracy(predict(x), y)[1]
        return np.array([one(n) for n in range(seq_len_min, seq_len_max + 1)], dtype=float)
    """
    ],
}

GUS = {**CARL, "generate_batch": BOB["generate_batch"], "loss_and_accuracy": BOB["loss_and_accuracy"]}
HAL = {"generate_batch": BOB["generate_batch"]}
STUB_BODY = "# YOUR CODE HERE\nraise NotImplementedError()"
IVY = {
    "rnn": [
        """
    self.hid = dim_recurrent
    self.a = dense(dim_input, dim_recurrent, weight_initializer=glorot_normal)
    self.b = dense(dim_recurrent, dim_recurrent, weight_initializer=glorot_normal, bias=False)
    self.c = dense(dim_recurrent, dim_output, weight_initializer=glorot_normal)
""",
        STUB_BODY,
        STUB_BODY,
    ]
}

#: who wrote their answers on their own (bob copied amy; fay rewrote amy; gus, hal took from others; ivy wrote 4 lines)
INDEPENDENT = ["ref", "amy", "carl", "dana"]
TASKS = ["generate_batch", "rnn", "loss_and_accuracy", "accuracy_by_length"]


# --------------------------------------------------------------------------- building the class


def released() -> nbformat.NotebookNode:
    return nbformat.read(str(RELEASED), as_version=4)


def _fill(source: str, bodies: list[str]) -> str:
    """``source`` (a released answer cell) with its stubs replaced by ``bodies``, in order, at the stub's indent."""
    left = iter(bodies)
    return STUB.sub(lambda m: textwrap.indent(textwrap.dedent(next(left)).strip("\n"), m.group(1)), source)


def submission(answers: dict[str, list[str]]) -> nbformat.NotebookNode:
    """The released notebook with the answer cells named in ``answers`` filled in."""
    nb = released()
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell.source = _fill(cell.source, answers[gid])
    return nb


def reference() -> nbformat.NotebookNode:
    """The released notebook with the solution's answer cells (markers stripped), as a perfect student's."""
    solved = {
        c.metadata["nbgrader"]["grade_id"]: strip_markers(c.source)
        for c in nbformat.read(str(SOLUTION), as_version=4).cells
        if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"
    }
    nb = released()
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in solved:
            cell.source = solved[gid]
    return nb


def the_class() -> dict[str, nbformat.NotebookNode]:
    return {
        "blank1": released(),
        "blank2": released(),
        "ref": reference(),
        "amy": submission(AMY),
        "bob": submission(BOB),
        "carl": submission(CARL),
        "dana": submission(DANA),
        "fay": submission(FAY),
        "gus": submission(GUS),
        "hal": submission(HAL),
        "ivy": submission(IVY),
    }


def write_course(folder: Path, notebooks: dict[str, nbformat.NotebookNode]) -> Path:
    """A course directory holding ``release/`` and one graded notebook per student (no grading run)."""
    directory.init(folder)
    (folder / "release" / A).mkdir(parents=True)
    shutil.copy(RELEASED, folder / "release" / A / f"{A}.ipynb")
    for student, nb in notebooks.items():
        (folder / "autograded" / student / A).mkdir(parents=True)
        nbformat.write(nb, str(folder / "autograded" / student / A / f"{A}.ipynb"))
    return folder


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    return write_course(tmp_path_factory.mktemp("similar") / "course", the_class())


@pytest.fixture(scope="module")
def result(course) -> similarity.Similarity:
    return similarity.analyse(CourseDir.places_at(course), A)


def _pair(result, x: str, y: str) -> Pair:
    return next(p for p in result.pairs if {p.a, p.b} == {x, y})


def _marked(doc: similarity_documents.Document, slices) -> list[str]:
    return [doc.text[s:e] for s, e in zip(*slices, strict=True)]


# --------------------------------------------------------------------------- what it finds


def test_the_test_class_is_what_it_claims(result):
    """Did the fill put every answer in place (no stub left in a filled task; the blanks as released)?"""
    docs = result.documents
    assert "NotImplementedError" not in docs["amy"].text + docs["bob"].text + docs["ref"].text
    assert docs["dana"].text.count("NotImplementedError") == 4  # three rnn stubs and accuracy_by_length
    assert "n_dig" in docs["bob"].text and "seqs" not in docs["bob"].text
    assert docs["blank1"].text == similarity_documents.document("", released()).text
    assert [s.grade_id for s in docs["amy"].spans] == TASKS


def test_every_score_is_a_share_and_the_pairs_are_ranked(result):
    """Is every pair's score the larger of two shares in [0, 1], the pairs ranked by it, and a shown pair above the
    threshold? (pytest -s prints every scored pair: the measurements behind THRESHOLD and MIN_CHARS.)"""
    assert len(result.pairs) == len({(p.a, p.b) for p in result.pairs}) > 1
    for p in result.pairs:
        assert 0.0 <= p.similarity_b <= p.similarity_a <= 1.0, p
        assert p.score == p.similarity_a, p
        assert not result.is_shown(p) or p.score >= result.threshold, p
        if p.score:
            print(
                f"{p.score:.3f} {'shown' if result.is_shown(p) else '     '} {p.a:>6} {p.similarity_a:.3f} ~ "
                f"{p.b:<6} {p.similarity_b:.3f} {p.chars_matched:4d}  {' '.join(p.tasks)}"
            )
    scores = [p.score for p in result.pairs]
    assert scores == sorted(scores, reverse=True)


def test_a_renamed_copy_ranks_first(result):
    """Does the pair whose answers differ only by names come first, far above the reference against anyone?"""
    first = result.shown[0]
    assert {first.a, first.b} == {"amy", "bob"}
    assert first.similarity_a > 0.95 and first.similarity_b > 0.95
    assert first.tasks == TASKS
    with_ref = max(_pair(result, "ref", x).score for x in INDEPENDENT + ["fay"] if x != "ref")
    assert first.score > with_ref + 0.5


def test_independent_work_is_below_the_threshold(result):
    """Are independent implementations of the same tasks (and a rewrite of a classmate's) never shown?"""
    for x in INDEPENDENT + ["fay"]:
        for y in INDEPENDENT + ["fay"]:
            if x < y:
                pair = _pair(result, x, y)
                assert pair.score < result.threshold - 0.1 and not result.is_shown(pair), pair
    # the rewrite of amy's answers is not seen as hers: below the pairs of strangers
    assert _pair(result, "fay", "amy").score < 0.15


def test_released_code_matches_nobody(result):
    """Do the blanks (the notebook as released) score 0 with everyone, and are they listed as such?"""
    assert result.blank == ["blank1", "blank2"]
    for p in result.pairs:
        if {p.a, p.b} & {"blank1", "blank2"}:
            assert (p.similarity_a, p.similarity_b, p.chars_matched) == (0, 0, 0)


def test_no_released_line_is_ever_a_match(result):
    """Do the matching parts hold the students' code only, never a released signature or docstring?"""
    assert result.shown
    for p in result.shown:
        for doc, slices in ((result.documents[p.a], p.slices[0]), (result.documents[p.b], p.slices[1])):
            for part in _marked(doc, slices):
                assert '"""' not in part and "def " not in part and "Parameters" not in part, (p.a, p.b, part)


def test_partial_copies_and_the_evidence_floor(result):
    """Are one copied task and half-copied work shown, named by their tasks, and four API-dictated lines not?"""
    hal = _pair(result, "hal", "amy")
    assert result.is_shown(hal) and hal.a == "hal" and hal.similarity_a > 0.95 and hal.tasks == ["generate_batch"]
    assert result.is_shown(_pair(result, "gus", "carl"))
    half = _pair(result, "gus", "amy")
    assert result.is_shown(half) and set(half.tasks) == {"generate_batch", "loss_and_accuracy"}
    ivy = _pair(result, "ivy", "ref")
    assert ivy.score > 0.9 and ivy.chars_matched < similarity.MIN_CHARS and not result.is_shown(ivy)


def test_fast_scores_are_copydetects(course, result):
    """Are the vectorised shares exactly copydetect's compare_files on the same fingerprints?"""
    from copydetect import compare_files

    notebooks = similarity.student_versions(CourseDir.places_at(course), A)
    boilerplate = similarity_fingerprints.boilerplate_hashes(similarity_documents.student_version_code(notebooks))
    answers = similarity_documents.student_version_answers(notebooks)
    prints = {s: similarity_fingerprints.fingerprints(d, boilerplate, answers) for s, d in result.documents.items()}
    for p in result.pairs:
        if prints[p.a].empty or prints[p.b].empty:
            continue
        overlap, (share_a, share_b), _ = compare_files(prints[p.a].code, prints[p.b].code)
        assert (p.similarity_a, p.similarity_b, p.chars_matched) == pytest.approx((share_a, share_b, overlap))


# --------------------------------------------------------------------------- the page and the CSV

HOSTILE_LINE = 'text = "</pre><script>alert(1)</script>"'
OTHER_HOSTILE_LINE = "note = '<img src=x onerror=alert(3)>'"
HOSTILE_ID = "<svg onload=alert(2)>"


def _with_first_line(answers: dict, line: str) -> dict:
    return {**answers, "generate_batch": [line + "\n" + textwrap.dedent(answers["generate_batch"][0]).strip("\n")]}


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the page's text."""

    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def hostile_page(tmp_path_factory):
    """A class where two students copied each other, with markup in their code, ids and task names."""
    mallory = submission(_with_first_line(AMY, HOSTILE_LINE))
    for cell in mallory.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "loss_and_accuracy":
            cell.metadata["nbgrader"]["grade_id"] = "loss<script>alert(4)</script>"  # students can edit metadata
    folder = write_course(
        tmp_path_factory.mktemp("hostile") / "course",
        {
            "mallory": mallory,
            HOSTILE_ID: submission(_with_first_line(BOB, OTHER_HOSTILE_LINE)),
            "=HYPERLINK(1)": submission(_with_first_line(AMY, HOSTILE_LINE)),
            "blank": released(),
        },
    )
    result = similarity.analyse(CourseDir.places_at(folder), A)
    page, table = similarity_page.write(CourseDir.places_at(folder), result)
    return result, page.read_text(), table


def test_the_page_keeps_student_text_inert(hostile_page):
    """Is markup in answers, student ids and task names shown as text, with no script and nothing loaded?"""
    result, html, _ = hostile_page
    assert {HOSTILE_ID, "mallory"} <= {n for p in result.shown for n in (p.a, p.b)}
    parser = _Tags()
    parser.feed(html)
    names = [tag for tag, _ in parser.tags]
    assert "script" not in names and "img" not in names and "svg" not in names
    assert not [(t, a) for t, attrs in parser.tags for a in attrs if a.startswith("on")]
    text = "".join(parser.text)
    # copied markup is escaped inside the marked parts too (copydetect's highlight escapes)
    assert re.search(r"<mark>[^<]*text = &#34;&lt;/pre&gt;&lt;script&gt;alert\(1\)&lt;/script&gt;&#34;", html)
    for shown_as_text in (HOSTILE_LINE, OTHER_HOSTILE_LINE, HOSTILE_ID, "loss<script>alert(4)</script>"):
        assert shown_as_text in text
    # nothing from elsewhere: the only links are the page's own anchors
    refs = [v for _, attrs in parser.tags for k, v in attrs.items() if k in ("src", "href", "action")]
    assert refs and all(v.startswith("#pair-") for v in refs)
    policy = next(
        attrs["content"]
        for tag, attrs in parser.tags
        if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy"
    )
    assert policy.startswith("default-src 'none';") and "script-src" not in policy


def test_the_page_marks_the_matches_side_by_side(course, result):
    """Does each shown pair get a side-by-side view, task by task, with the matches marked?"""
    page, _ = similarity_page.write(CourseDir.places_at(course), result)
    html = page.read_text()
    assert page == course / "similarity" / f"{A}.html" and html.count('<section id="pair-') == len(result.shown)
    first = html[html.index('<section id="pair-1">') : html.index('<section id="pair-2">')]
    assert "amy" in first and "bob" in first and first.count("<h4>") == 4 and "<mark>" in first
    assert "n_dig" in first and "seqs" in first


def test_the_csv(course, result, hostile_page):
    """Does the CSV list the pairs shown, highest first, and keep a student id from starting a formula?"""
    _, table = similarity_page.write(CourseDir.places_at(course), result)
    with open(table, newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == similarity.CSV_COLUMNS and len(rows) == len(result.shown)
    assert {rows[0]["student_a"], rows[0]["student_b"]} == {"amy", "bob"} and float(rows[0]["similarity_a"]) > 0.95
    assert rows[0]["tasks"] == "generate_batch rnn loss_and_accuracy accuracy_by_length"
    with open(hostile_page[2], newline="") as f:
        ids = {r[k] for r in csv.DictReader(f) for k in ("student_a", "student_b")}
    assert "'=HYPERLINK(1)" in ids and "=HYPERLINK(1)" not in ids


# --------------------------------------------------------------------------- the command


def test_the_command_prints_the_top_pairs(course, run_course):
    """Does `course similarity` print the top pairs and where it wrote the page and the CSV?"""
    out, _ = run_course(["similarity", A, "--course-dir", course, "--top", "2"])
    lines = out.splitlines()
    assert f"{A}: 11 graded submissions, 55 pairs compared" in out and "(2 hold only the student version's code)" in out
    assert lines[2].strip().startswith("1. amy 100 % ~ bob 100 %") and "generate_batch rnn" in lines[2]
    assert "more on the page" in out
    assert f"page: {course / 'similarity' / (A + '.html')}" in out and (course / "similarity" / f"{A}.csv").is_file()


@pytest.mark.parametrize(
    "case, expected",
    [
        ("unknown", "unknown assignment '02_nope'"),
        ("no submission", "there is no graded submission of 01_rnn"),
        ("one submission", "there is no pair to compare"),
        ("threshold", "the threshold is a share"),
        ("not a course", "is not a course directory yet"),
    ],
)
def test_the_command_errors_in_one_sentence(tmp_path, run_course, case, expected):
    """Does each mistake end in a one-sentence error, with no traceback?"""
    folder = tmp_path / "course"
    if case != "not a course":
        write_course(
            folder,
            {"amy": submission(AMY)}
            if case == "one submission"
            else {}
            if case == "no submission"
            else {"amy": submission(AMY), "bob": submission(BOB)},
        )
    args = ["similarity", "02_nope" if case == "unknown" else A, "--course-dir", folder]
    _, err = run_course(args + (["--threshold", "1.5"] if case == "threshold" else []), retcode=1)
    assert_one_sentence_error(err)
    assert expected in err


def test_an_unreadable_notebook_is_skipped_not_fatal(tmp_path, run_course):
    """Is a broken graded notebook named and left out, while the others are compared?"""
    folder = write_course(tmp_path / "course", {"amy": submission(AMY), "bob": submission(BOB), "eve": released()})
    (folder / "autograded/eve" / A / f"{A}.ipynb").write_text("{not json")
    out, _ = run_course(["similarity", A, "--course-dir", folder])
    assert "2 graded submissions, 1 pair compared" in out and "not compared: eve:" in out
    assert "1. amy 100 % ~ bob 100 %" in out


# --------------------------------------------------------------------------- speed


def synthetic_class(n: int, seed: int = 0) -> dict[str, nbformat.NotebookNode]:
    """``n`` submissions, each task taken from one of the implementations above (or left blank)."""
    rng = np.random.default_rng(seed)
    pool = [AMY, CARL, FAY, DANA, {}]
    made = {}
    for i in range(n):
        answers = {}
        for task in AMY:
            source = pool[rng.integers(len(pool))]
            if task in source:
                answers[task] = [re.sub(r"\b(x|y|n|t|steps|out|guess)\b", rf"\1_{i}", b) for b in source[task]]
        made[f"s{i:03d}"] = submission(answers)
    return made


def test_a_class_of_100_is_compared_pair_by_pair(tmp_path):
    """Is every one of a class of 100's 4,950 pairs compared, and the page and CSV written? (time printed; how long
    it takes is the benchmark's: `course bench --only class-tools`)"""
    folder = write_course(tmp_path / "course", synthetic_class(100))
    started = time.perf_counter()
    result = similarity.analyse(CourseDir.places_at(folder), A)
    analysed = time.perf_counter()
    page, table = similarity_page.write(CourseDir.places_at(folder), result)
    done = time.perf_counter()
    print(
        f"\n100 submissions, {len(result.pairs)} pairs, {len(result.shown)} shown: "
        f"analysis {analysed - started:.1f} s, page and CSV {done - analysed:.1f} s"
    )
    assert len(result.pairs) == 4950 and page.is_file() and table.is_file()
