"""What the notebooks tell students to expect, measured: each solution notebook run whole in full mode, per seed.

``python -m benchmarks --only claims [--seeds 5]`` executes each solution notebook as a student's own run
executes it (full mode, one BLAS thread, every cell in order), once per seed, and reads from the run the figures
the claims of ``benchmarks/claims.toml`` name. Nothing here trains a model of its own: the notebook's cells do.

Seed ``s`` adds ``100 * s`` to every seed written in the cells that train or evaluate (those tagged ``slow``)
and in the given cells that print an untrained model's loss: ``np.random.seed(k)``, ``default_rng(k)`` and
``seed=k`` become ``k + 100 * s``, so seed 0 is the notebook as it is. A cell that seeds nothing but prints a
promised figure gets ``np.random.seed(100 * s)`` in front. A student's own code draws its weights in another
order than the reference: other seeds stand in for that.

After the last cell a probe cell prints the arrays the claims read (``accuracies``, ``beam_accuracies``, ...)
as JSON; printed tables are read from the cells' own output. The figures go to
``benchmarks/results/claims.json`` (``--json`` elsewhere), with the machine, the load and each run's seconds;
``tests/docs/test_notebook_numbers.py`` checks every registered claim against that file.
"""

from __future__ import annotations

import copy
import json
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from nbformat.v4 import new_code_cell

from benchmarks.machine import load_average, machine_info
from instructor.cells import read, tags
from instructor.kernels import execute_in
from instructor.paths import REPO_ROOT, SOLUTIONS, notebook_path

REGISTRY = REPO_ROOT / "benchmarks" / "claims.toml"
RESULTS = REPO_ROOT / "benchmarks" / "results" / "claims.json"
MARK = "CLAIMS-PROBE "
SEED_STEP = 100

#: cells besides the ``slow`` ones whose seeds change with the run's seed: (notebook, a line of the cell)
SEEDED = {
    "01_rnn": ["rnn_demo = RNN(12, 16, 12)"],
    "04_transformer": ["untrained loss"],
}

#: per notebook: the probe's expression, evaluated in the kernel after the last cell (JSON-able)
PROBES = {
    "01_rnn": "{'accuracies': [float(a) for a in accuracies],"
    " 'norms': {k: [float(g) for g in v] for k, v in norms.items()}}",
    "02_seq2seq": "{'accuracies': [float(a) for a in accuracies],"
    " 'beam': {str(w): [float(a) for a in row] for w, row in zip(widths, beam_accuracies)},"
    " 'exposure': {k: [[None if np.isnan(x) else float(x) for x in r] for r in v] for k, v in results.items()}}",
    "03_attention": "{'accuracies': [float(a) for a in accuracies]}",
    "04_transformer": "{'bands': {f'{lo}-{hi}': [float(c), float(w)] for (lo, hi), (c, w) in results.items()}}",
}

#: per notebook: (a line of the cell, regex on its printed output) -> named groups become raw figures
PRINTED = {
    "01_rnn": [
        ("rnn_demo = RNN(12, 16, 12)", r"loss (?P<untrained_loss>[\d.]+), accuracy (?P<untrained_accuracy>[\d.]+)")
    ],
    "04_transformer": [
        ("untrained loss", r"untrained loss (?P<untrained_loss>[\d.]+)"),
        (
            'tests = {\n    "1-48, the key in step"',
            r"1-48, the key in step\s+(?P<in_step_char>[\d.]+)%\s+(?P<in_step_whole>[\d.]+)%\n"
            r"1-48, the key one symbol later\s+(?P<later_char>[\d.]+)%\s+(?P<later_whole>[\d.]+)%\n"
            r"49-100, in pieces\s+(?P<long_pieces_char>[\d.]+)%\s+(?P<long_pieces_whole>[\d.]+)%\n"
            r"49-100, whole\s+(?P<long_whole_char>[\d.]+)%\s+(?P<long_whole_whole>[\d.]+)%",
        ),
        (
            "n_compare = pick(",
            r"standard encoding, \d+ steps:\s+(?P<standard_char>[\d.]+)% of the characters,\s+"
            r"(?P<standard_whole>[\d.]+)% of the messages",
        ),
        (
            "n_compare = pick(",
            r"quarter turn encoding, \d+ steps:\s+(?P<quarter_char>[\d.]+)% of the characters,\s+"
            r"(?P<quarter_whole>[\d.]+)% of the messages",
        ),
    ],
}

#: per notebook: (a line of the cell, name) -> the cell's wall time in seconds is recorded as ``seconds_<name>``
TIMED = {
    "02_seq2seq": [
        ("loss, accuracy = loss_and_accuracy(model(x), target)", "training"),
        ("model_forced = Seq2Seq(", "teacher_forcing"),
    ],
}


def shift_seeds(source: str, seed: int) -> str:
    """``source`` with every written seed ``k`` raised to ``k + 100 * seed``."""
    shift = SEED_STEP * seed

    def raised(m: re.Match) -> str:
        return f"{m.group(1)}{int(m.group(2)) + shift}{m.group(3)}"

    return re.sub(r"(np\.random\.seed\(|default_rng\(|\bseed=)(\d+)(\)|\b)", raised, source)


def seeded_notebook(assignment: str, seed: int):
    """The solution notebook of ``assignment``, its run's seeds moved to ``seed``, a probe cell at the end."""
    nb = copy.deepcopy(read(notebook_path(assignment, SOLUTIONS)))
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        extra = any(line in cell.source for line in SEEDED.get(assignment, []))
        if "slow" in tags(cell) or extra:
            shifted = shift_seeds(cell.source, seed)
            if extra and shifted == cell.source and "np.random.seed(" not in cell.source:
                shifted = f"np.random.seed({SEED_STEP * seed})\n{cell.source}"
            cell.source = shifted
    nb.cells.append(new_code_cell(f"import json as _json\nprint({MARK!r} + _json.dumps({PROBES[assignment]}))"))
    return nb


def _stdout(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def _seconds(cell) -> float | None:
    timing = cell.get("metadata", {}).get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return None
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return round((parse(end) - parse(start)).total_seconds(), 1)


def run_notebook(assignment: str, seed: int, timeout: int = 3600, quick: bool = False) -> dict:
    """One full-mode run of ``assignment`` at ``seed``: the raw figures, the errors, the seconds.

    ``quick``: in quick mode instead, to try the probes in seconds (its figures prove nothing)."""
    nb = seeded_notebook(assignment, seed)
    path = notebook_path(assignment, SOLUTIONS)
    env = {"OPENBLAS_NUM_THREADS": "1", **({"COURSE_QUICK": "1"} if quick else {})}
    start = time.perf_counter()
    execute_in(nb, path.parent, env, timeout, drop=("COURSE_QUICK",))
    seconds = time.perf_counter() - start
    errors = [
        f"cell {i}: {o.get('ename')}: {o.get('evalue')}"
        for i, c in enumerate(nb.cells)
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    raw: dict = {}
    probe = _stdout(nb.cells[-1])
    if MARK in probe:
        raw.update(json.loads(probe.split(MARK, 1)[1]))
    for line, pattern in PRINTED.get(assignment, []):
        for cell in nb.cells:
            if cell.cell_type == "code" and line in cell.source:
                m = re.search(pattern, _stdout(cell))
                if m:
                    raw.update({k: float(v) for k, v in m.groupdict().items()})
                break
    for line, name in TIMED.get(assignment, []):
        for cell in nb.cells[:-1]:
            if cell.cell_type == "code" and line in cell.source:
                raw[f"seconds_{name}"] = _seconds(cell)
                break
    return {"raw": raw, "errors": errors, "seconds": round(seconds, 1), "load_after": load_average()}


def _nanmean(values) -> float | None:
    arr = np.array([np.nan if v is None else v for v in values], dtype=float)
    return None if np.all(np.isnan(arr)) else float(np.nanmean(arr))


def _rnn(raw: dict) -> dict:
    acc = raw["accuracies"]
    untrained, trained = (np.array(raw["norms"][k]) for k in ("untrained RNN", "your trained RNN"))
    falls = np.mean(np.diff(untrained) > 0)  # share of steps back (right to left) on which the line falls
    low = int(trained.argmin())
    return {
        "acc_L1": acc[0],
        "acc_L2": acc[1],
        "acc_max_L3_on": max(acc[2:]),
        "untrained_loss": raw["untrained_loss"],
        "untrained_accuracy": raw["untrained_accuracy"],
        "untrained_g1_over_gT1": float(untrained[0] / untrained[-1]),
        "untrained_share_of_steps_falling": float(falls),
        "trained_g1_over_gT1": float(trained[0] / trained[-1]),
        "trained_smallest_at_t": low + 1,
        "trained_climbs_to_t1": bool(low > 0 and np.all(np.diff(trained[: low + 1]) < 0)),
    }


def _seq2seq(raw: dict) -> dict:
    b1, b3, b5 = (np.array(raw["beam"][w]) for w in ("1", "3", "5"))
    mid = slice(6, 15)  # 7 to 15 digits
    # the share of greedy's errors at 7 to 15 digits that width 3 removes, all those lengths pooled
    removed = float((b3[mid] - b1[mid]).sum() / max((1 - b1[mid]).sum(), 1e-9))
    free, forced = (np.array(raw["exposure"][k], dtype=float) for k in ("free running", "teacher forcing"))
    lead = free[:, 0] - forced[:, 0]
    return {
        "beam_max_change_L1_6": float(np.abs(np.stack([b3, b5]) - b1)[:, :6].max()),
        "beam_greedy_min_L1_6": float(b1[:6].min()),
        "beam_w3_removed_share_L7_15": removed,
        "beam_greedy_L15": float(b1[14]),
        "beam_w3_minus_greedy_L15": float(b3[14] - b1[14]),
        "beam_w5_minus_w3_max": float((b5 - b3).max()),
        "beam_max_L19_20": float(np.stack([b1, b3, b5])[:, 18:].max()),
        "beam_max_L20": float(np.stack([b1, b3, b5])[:, 19].max()),
        "forced_after_mistake_own_mean": _nanmean(forced[:, 1]),
        "forced_after_mistake_true_mean": _nanmean(forced[:, 2]),
        "free_after_mistake_own_mean": _nanmean(free[:, 1]),
        "whole_gap_max_L1_5": float(np.abs(free[:5, 0] - forced[:5, 0]).max()),
        "first_L_free_ahead_by_0p02": int(np.argmax(lead > 0.02)) + 1,
        "free_minus_forced_L15": float(lead[14]),
        "free_whole_L15": float(free[14, 0]),
        "forced_whole_L15": float(forced[14, 0]),
        "free_over_forced_L15": float(free[14, 0] / max(forced[14, 0], 1e-9)),
        "seconds_training": raw.get("seconds_training"),
        "seconds_teacher_forcing": raw.get("seconds_teacher_forcing"),
    }


def _attention(raw: dict) -> dict:
    return {"acc_min_L1_20": min(raw["accuracies"])}


def _transformer(raw: dict) -> dict:
    bands = raw["bands"]
    char_min = min(c for c, _ in bands.values())
    out: dict = {
        "band_char_min": char_min,
        "band_char_max": max(c for c, _ in bands.values()),
        "band_whole_min": min(w for _, w in bands.values()),
        # off the plateau: at least 90 % of the characters in every band (a run on it gets a fifth to a half)
        "left_plateau": char_min >= 0.9,
        "on_plateau": char_min < 0.9,
        # off the plateau, yet short of 04's "most runs": 99.7 % of the characters and 84 % of the messages
        "short_of_most": char_min >= 0.9 and not (char_min >= 0.997 and min(w for _, w in bands.values()) >= 0.84),
    }
    for key in (
        "untrained_loss",
        "later_char",
        "later_whole",
        "long_pieces_char",
        "long_pieces_whole",
        "long_whole_char",
        "long_whole_whole",
        "standard_char",
        "standard_whole",
        "quarter_char",
        "quarter_whole",
    ):
        out[key] = raw.get(key)
    if raw.get("quarter_whole") is not None and raw.get("standard_whole") is not None:
        out["quarter_minus_standard_whole"] = round(raw["quarter_whole"] - raw["standard_whole"], 2)
        out["quarter_minus_standard_char"] = round(raw["quarter_char"] - raw["standard_char"], 2)
        # after 1,200 steps: both still on the plateau (under half the characters), or one ahead on characters
        both_on_plateau = max(raw["quarter_char"], raw["standard_char"]) < 50  # per cent
        out["compare_both_on_plateau"] = both_on_plateau
        out["compare_quarter_ahead"] = not both_on_plateau and raw["quarter_char"] > raw["standard_char"]
        out["compare_standard_ahead"] = not both_on_plateau and raw["standard_char"] > raw["quarter_char"]
    return out


#: per notebook: the raw figures of one run -> the metrics the registry names
DERIVE: dict[str, Callable[[dict], dict]] = {
    "01_rnn": _rnn,
    "02_seq2seq": _seq2seq,
    "03_attention": _attention,
    "04_transformer": _transformer,
}


def bench_claims(seeds: int = 5, notebooks: list[str] | None = None, out: Path = RESULTS, quiet: bool = False) -> dict:
    """Run each notebook at seeds 0..``seeds - 1``; write the figures to ``out`` after every run (kept on a stop)."""
    names = notebooks or list(DERIVE)
    results: dict = json.loads(out.read_text()) if out.is_file() else {}
    results["machine"] = machine_info()
    results["seed_rule"] = f"seed s adds {SEED_STEP} * s to every seed of the slow cells (seed 0: the notebook as is)"
    results.setdefault("notebooks", {})
    for name in names:
        per_seed: dict = {}
        for seed in range(seeds):
            if not quiet:
                print(f"{name}, seed {seed} ...", flush=True)
            started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
            run = run_notebook(name, seed)
            metrics = DERIVE[name](run["raw"]) if not run["errors"] else {}
            per_seed[str(seed)] = {"started": started, **run, "metrics": metrics}
            if not quiet:
                print(f"  {run['seconds']} s, {len(run['errors'])} errors, load {run['load_after']}", flush=True)
            results["notebooks"][name] = {"seeds": per_seed}
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(results, indent=1) + "\n")
    return results


def rederive(results: dict) -> dict:
    """``results`` with every run's metrics computed again from its raw figures (after a change to ``DERIVE``)."""
    for name, nb in results.get("notebooks", {}).items():
        for run in nb["seeds"].values():
            run["metrics"] = DERIVE[name](run["raw"]) if not run["errors"] else {}
    return results


def table(results: dict) -> list[str]:
    """Each notebook's metrics, one line per metric with its per-seed values."""
    lines = [""]
    for name, nb in results.get("notebooks", {}).items():
        seeds = nb["seeds"]
        seconds = ", ".join(str(s["seconds"]) for s in seeds.values())
        lines.append(f"{name}: seeds {', '.join(seeds)}; seconds {seconds}")
        keys = next((list(s["metrics"]) for s in seeds.values() if s["metrics"]), [])
        for key in keys:
            values = [s["metrics"].get(key) for s in seeds.values()]
            shown = ", ".join("-" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v) for v in values)
            lines.append(f"  {key:36s} {shown}")
    return lines


def _shown(value) -> str:
    if isinstance(value, bool) or value is None:
        return "-" if value is None else str(value).lower()
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def markdown(results: dict, registry: Path = REGISTRY) -> str:
    """The registered claims with each seed's figure, as the Markdown table of docs/benchmarks.md."""
    import tomllib

    bounds = {
        "range": lambda c: f"{c['low']}–{c['high']}",
        "about": lambda c: f"{c['value']} ± {c['tolerance']}",
        "at_least": lambda c: f"≥ {c['value']}",
        "at_most": lambda c: f"≤ {c['value']}",
        "seed0": lambda c: f"= {c['value']} at seed 0",
        "true": lambda c: "true",
        "greater": lambda c: f"> {c['than']}",
        "some": lambda c: "true in some seeds",
    }
    lines = ["| notebook | statement | figure | checked as | seeds 0, 1, 2, … |", "|---|---|---|---|---|"]
    for claim in tomllib.loads(registry.read_text())["claim"]:
        seeds = results["notebooks"].get(claim["notebook"], {}).get("seeds", {})
        values = []
        for run in seeds.values():
            metrics = run.get("metrics", {})
            value = _shown(metrics.get(claim["metric"]))
            if claim["relation"] == "greater":
                value += f" > {_shown(metrics.get(claim['than']))}"
            values.append(value)
        if "when" in claim:
            values = [
                v if seeds[s]["metrics"].get(claim["when"]) else f"({v})" for s, v in zip(seeds, values, strict=True)
            ]
        fragment = claim["fragment"].replace("|", "\\|")
        lines.append(
            f"| {claim['notebook'][:2]} | {fragment} | `{claim['metric']}` | "
            f"{bounds[claim['relation']](claim)}{' in most seeds' if claim.get('most') else ''} "
            f"| {'; '.join(values)} |"
        )
    return "\n".join(lines)
