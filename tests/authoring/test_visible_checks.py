"""Validate catches the common mistakes of 04: each fails a check the student sees, before submitting.

A student's Validate runs the released notebook, whose test cells hold only
the visible checks. For every mistake of the catalogue (issues 22 and 33), the
solution with the mistake written in is run with the hidden tests left out
(``MistakeRunner(visible_only=True)``): a visible check of the task must fail,
and the first one that fails must name the mistake (the catalogue's ``expect``),
so that Validate says it before a hidden check costs a point. The checks
must not catch correct answers written another way, so a few such variants run
against every graded test, hidden ones included.
"""

from __future__ import annotations

import pytest

from instructor.authoring.mistakes import Mistake
from instructor.cells import is_graded_test, read, visible_source
from instructor.paths import NOTEBOOKS, SOLUTIONS, notebook_path
from tests.nbexec import MistakeRunner, load_mistakes, without_hidden_tests

ASSIGNMENT = "04_transformer"

#: every mistake of the catalogue (tests/mistakes/04_transformer.py): a visible check catches each, and names it
SEEN_BEFORE_SUBMITTING = tuple(m.name for m in load_mistakes(ASSIGNMENT))

#: correct answers written another way than the reference: no graded test may fail on them
CORRECT_VARIANTS = [
    Mistake(
        task="attention",
        name="scores_by_matmul",
        why="Scores with matmul over (N, t, d_k) @ (N, d_k, T) instead of einsum.",
        replace='scores = mg.einsum("tNk,TNk->tNT", q, k) / np.sqrt(np.float32(d_k))',
        by="scores = mg.matmul(q.transpose(1, 0, 2), k.transpose(1, 2, 0)).transpose(1, 0, 2)"
        " / mg.sqrt(np.float32(d_k))",
    ),
    Mistake(
        task="attention",
        name="queries_scaled_first",
        why="Divides the queries by sqrt(d_k) before the dot products.",
        replace='scores = mg.einsum("tNk,TNk->tNT", q, k) / np.sqrt(np.float32(d_k))',
        by='scores = mg.einsum("tNk,TNk->tNT", q / np.sqrt(np.float32(d_k)), k)',
    ),
    Mistake(
        task="multihead_attention",
        name="heads_on_an_axis_of_their_own",
        why="Attends with every head on an axis of its own (four-axis einsums), without the single-head function.",
        replace=(
            '        q = mg.einsum("tNd,hdk->tNhk", Q, self.Wq).reshape(t, N * h, d_k)'
            "  # head j of sequence n: column n*h + j\n"
            '        k = mg.einsum("TNd,hdk->TNhk", K, self.Wk).reshape(T, N * h, d_k)\n'
            '        v = mg.einsum("TNd,hdk->TNhk", V, self.Wv).reshape(T, N * h, d_k)\n'
            "        if mask is not None:\n"
            "            mask = np.repeat(mask, h, axis=1)  # (t, N*h, T): sequence n's mask for each of its heads\n"
            "        mixed, weights = scaled_dot_product_attention(q, k, v, mask)\n"
            "        self.a_ij = weights.reshape(t, N, h, T)\n"
            "        return self.Wo(mixed.reshape(t, N, h * d_k))\n"
        ),
        by=(
            '        q = mg.einsum("tNd,hdk->tNhk", Q, self.Wq)\n'
            '        k = mg.einsum("TNd,hdk->TNhk", K, self.Wk)\n'
            '        v = mg.einsum("TNd,hdk->TNhk", V, self.Wv)\n'
            '        scores = mg.einsum("tNhk,TNhk->tNhT", q, k) / np.sqrt(np.float32(d_k))\n'
            "        if mask is not None:\n"
            "            scores = mg.where(mask[:, :, None, :], scores, BLOCKED)\n"
            "        self.a_ij = mg.nnet.softmax(scores, axis=-1)\n"
            '        mixed = mg.einsum("tNhT,TNhk->tNhk", self.a_ij, v)\n'
            "        return self.Wo(mixed.reshape(t, N, h * d_k))\n"
        ),
    ),
    Mistake(
        task="add_and_norm",
        name="variance_by_hand_power_half",
        why="Computes the variance from the centred vector and takes the root as a power of one half.",
        replace="mg.sqrt(variance + EPS)",
        by="(mg.mean(centred**2, axis=-1, keepdims=True) + EPS) ** np.float32(0.5)",
    ),
    Mistake(
        task="masks",
        name="padding_mask_by_loop",
        why="Fills the padding mask sequence by sequence.",
        replace=(
            "    real = np.arange(T)[None, :] < np.asarray(lengths)[:, None]  # (N, T): the real keys\n"
            "    return np.broadcast_to(real, (t, *real.shape)).copy()\n"
        ),
        by=(
            "    mask = np.zeros((t, len(lengths), T), dtype=bool)\n"
            "    for n, length in enumerate(lengths):\n"
            "        mask[:, n, :length] = True\n"
            "    return mask\n"
        ),
    ),
    Mistake(
        task="loss",
        name="log_softmax_sum_over_count",
        why="Sums the log-probabilities of the real targets and divides by their number.",
        replace="return softmax_crossentropy(scores[real], target[real])",
        by="picked = mg.nnet.logsoftmax(scores[real])[np.arange(real.sum()), target[real]]\n"
        "    return -picked.sum() / np.float32(real.sum())",
    ),
    Mistake(
        task="positional_encoding",
        name="angles_by_outer_product",
        why="Computes the angles as an outer product in float64, then casts them to float32.",
        replace=(
            "        position = np.arange(seq_len, dtype=np.float32)[:, None]  # (T, 1)\n"
            "        even = np.arange(0, self.dim, 2, dtype=np.float32)  # 2i = 0, 2, 4, ...\n"
            "        return position * np.float32(10000) ** (-even / np.float32(self.dim))\n"
        ),
        by=(
            "        return np.outer(np.arange(seq_len), 1 / 10000 ** (np.arange(0, self.dim, 2) / self.dim))"
            ".astype(np.float32)\n"
        ),
    ),
    Mistake(
        task="positional_encoding",
        name="sines_and_cosines_interleaved_by_stack",
        why="Stacks sine and cosine pairs on a last axis, flattens them and cuts the result to d columns.",
        replace=(
            "        encoding = np.empty((seq_len, self.dim), dtype=np.float32)\n"
            "        encoding[:, 0::2] = np.sin(angle)\n"
            "        encoding[:, 1::2] = np.cos(angle[:, : self.dim // 2])\n"
            "        return encoding[:, None, :]\n"
        ),
        by=(
            "        pairs = np.stack([np.sin(angle), np.cos(angle)], axis=-1).reshape(seq_len, -1)\n"
            "        return pairs[:, None, : self.dim]\n"
        ),
    ),
    Mistake(
        task="greedy",
        name="decode_with_keywords",
        why="Passes the lengths to decode by keyword (the stand-in models of the tests take the Transformer's names).",
        replace="scores = model.decode(enc_out, decoder_input[: i + 1], lengths)",
        by="scores = model.decode(enc_out, decoder_input[: i + 1], src_lengths=lengths, tgt_lengths=None)",
    ),
    Mistake(
        task="transformer",
        name="layers_called_with_keywords",
        why="Hands every layer its masks by keyword.",
        replace="            x = layer(x, mask)\n",
        by="            x = layer(x, mask=mask)\n",
    ),
    Mistake(
        task="transformer",
        name="decoder_layers_called_with_keywords",
        why="Hands every decoder layer its masks by keyword.",
        replace="y = layer(enc_out, y, self_mask, cross_mask)",
        by="y = layer(enc_out, y, self_mask=self_mask, cross_mask=cross_mask)",
    ),
    Mistake(
        task="greedy",
        name="start_and_end_scored_out",
        why="Sets the scores of START and END to minus infinity, then takes the argmax over all 29.",
        replace="tokens[i] = np.argmax(scores.data[-1, :, : len(ALPHABET)], axis=-1)",
        by="last = scores.data[-1].copy()\n"
        "            last[:, START:] = -np.inf\n"
        "            tokens[i] = last.argmax(axis=-1)",
    ),
]


def _catalogued(name: str) -> Mistake:
    found = [m for m in load_mistakes(ASSIGNMENT) if m.name == name]
    assert len(found) == 1, f"{ASSIGNMENT}'s catalogue holds {len(found)} mistakes named {name!r}"
    return found[0]


@pytest.fixture(scope="module")
def visible_runner():
    """One kernel running the solution with the hidden tests left out."""
    runner = MistakeRunner(ASSIGNMENT, visible_only=True)
    yield runner
    runner.close()


@pytest.fixture(scope="module")
def full_runner():
    """One kernel running the solution with every test, hidden ones included."""
    runner = MistakeRunner(ASSIGNMENT)
    yield runner
    runner.close()


def test_visible_runs_execute_the_student_version_checks():
    """Are the test cells of a visible-only run exactly those of the released student notebook?"""
    solution = without_hidden_tests(read(notebook_path(ASSIGNMENT, SOLUTIONS)))
    student = read(notebook_path(ASSIGNMENT, NOTEBOOKS))
    ours = [visible_source(c.source) for c in solution.cells if is_graded_test(c)]
    released = [c.source.strip() for c in student.cells if is_graded_test(c)]
    assert ours == released
    assert not any("HIDDEN TESTS" in source for source in ours)


@pytest.mark.notebook
@pytest.mark.parametrize("name", SEEN_BEFORE_SUBMITTING)
def test_common_mistake_fails_a_visible_check(visible_runner, name):
    """Does this mistake fail a check the student sees, with a message that names it?"""
    mistake = _catalogued(name)
    assert mistake.expect, f"{name}: give it an `expect`, the visible check's message"
    # only the mistake's task's checks are asserted: the cells after its last test cell can change none of them
    failed = visible_runner.run(mistake, through=mistake.task).failed_tests(mistake.task)
    assert failed, f"{name}: {mistake.why} -- every visible check of {mistake.task!r} passes"
    first = failed[0].evalue
    assert mistake.expect in first, (
        f"{name}: the first visible failure ({failed[0].grade_id}) says {first[:300]!r}, not {mistake.expect!r}"
    )


@pytest.mark.notebook
@pytest.mark.parametrize("variant", CORRECT_VARIANTS, ids=[v.name for v in CORRECT_VARIANTS])
def test_correct_answer_written_another_way_passes_every_check(full_runner, variant):
    """Does a correct answer that differs from the reference pass every graded test, hidden ones too?"""
    failed = full_runner.run(variant).failed_tests()
    assert not failed, [(c.grade_id, c.error, c.evalue[:200], c.stderr[:200]) for c in failed]
