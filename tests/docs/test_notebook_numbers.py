"""Every number a student notebook tells students to expect is tied to the benchmark's measured runs (issue 66).

benchmarks/claims.toml registers each statement (its text as the student notebook has it, the figure it is about,
how the two must agree); benchmarks/results/claims.json holds the figures of each seed's full-mode run
(`python -m benchmarks --only claims`). This test only reads files: it trains nothing.
"""

from __future__ import annotations

import json
import re
import tomllib

import nbformat
import pytest

from instructor.paths import REPO_ROOT

REGISTRY = REPO_ROOT / "benchmarks" / "claims.toml"
RESULTS = REPO_ROOT / "benchmarks" / "results" / "claims.json"
NOTEBOOKS = ("01_rnn", "02_seq2seq", "03_attention", "04_transformer")
MIN_SEEDS = 5
#: a claim the text states for some runs only ("off the plateau", `when`) is checked in at least this many
MIN_WHEN_SEEDS = 3
RELATIONS = {"range", "about", "at_least", "at_most", "seed0", "true", "greater", "some"}
#: a number with a decimal point, or one followed by a per cent sign
NUMBER = re.compile(r"\d*\.\d+|\d+(?:\.\d+)?\s*%")


def _flat(text: str) -> str:
    return " ".join(text.split())


def student_cells(notebook: str) -> list:
    return nbformat.read(REPO_ROOT / "notebooks" / notebook / f"{notebook}.ipynb", as_version=4).cells


def numbers_in(text: str, percent: bool) -> list[float]:
    """The numbers written in ``text``; ``12.5 %`` is 0.125, or 12.5 where the figure is in per cent."""
    found = []
    for m in re.finditer(r"(\d+(?:\.\d+)?)(\s*%)?", text):
        value = float(m.group(1))
        found.append(value / 100 if m.group(2) and not percent else value)
    return found


def claim_problems(claim: dict, notebook_text: str, results: dict) -> list[str]:
    """What is wrong with one registered claim: against the notebook's text (all its cells, whitespace
    flattened) and the results file's figures. Empty if nothing is."""
    name = f"{claim['notebook']}: {claim['fragment']!r}"
    problems = []
    relation = claim.get("relation")
    if relation not in RELATIONS:
        return [f"{name}: relation {relation!r} is none of {sorted(RELATIONS)}"]
    if _flat(claim["fragment"]) not in notebook_text:
        problems.append(f"{name}: not in the student notebook (reworded? register the new text)")
    if "reading" not in claim:
        written = numbers_in(claim["fragment"], claim.get("percent", False))
        for key in ("low", "high", "value"):
            if key in claim and not any(abs(claim[key] - w) < 1e-9 for w in written):
                problems.append(f"{name}: {key} = {claim[key]} is not a number the fragment states ({written})")
    seeds = results.get("notebooks", {}).get(claim["notebook"], {}).get("seeds", {})
    if len(seeds) < MIN_SEEDS:
        problems.append(f"{name}: {len(seeds)} seeds measured, at least {MIN_SEEDS} wanted")
        if not seeds:
            return problems
    errors = [
        f"{name}: seed {seed}'s run had errors: {run['errors'][:2]}" for seed, run in seeds.items() if run.get("errors")
    ]
    if errors:
        return [*problems, *errors]
    if relation == "some":
        if not any(run["metrics"].get(claim["metric"]) is True for run in seeds.values()):
            problems.append(f"{name}: {claim['metric']} is true in none of the {len(seeds)} seeds")
        return problems
    if "when" in claim:
        seeds = {seed: run for seed, run in seeds.items() if run["metrics"].get(claim["when"]) is True}
        if len(seeds) < MIN_WHEN_SEEDS:
            return [*problems, f"{name}: {len(seeds)} seeds with {claim['when']}, at least {MIN_WHEN_SEEDS} wanted"]
    broken = []
    for seed, run in sorted(seeds.items(), key=lambda item: int(item[0])):
        metrics = run.get("metrics", {})
        value = metrics.get(claim["metric"])
        if value is None:
            problems.append(f"{name}: seed {seed} has no figure {claim['metric']!r}")
            continue
        if relation == "range":
            ok = claim["low"] <= value <= claim["high"]
        elif relation == "about":
            ok = abs(value - claim["value"]) <= claim["tolerance"]
        elif relation == "at_least":
            ok = value >= claim["value"]
        elif relation == "at_most":
            ok = value <= claim["value"]
        elif relation == "true":
            ok = value is True
        elif relation == "greater":
            other = metrics.get(claim["than"])
            ok = other is not None and value > other
            value = f"{value} against {claim['than']} = {other}"
        else:  # seed0: the notebook as it is, seed 0, prints exactly this
            ok = seed != "0" or abs(value - claim["value"]) < 1e-9
        if not ok:
            broken.append(f"{name}: seed {seed} measured {claim['metric']} = {value}, which breaks {relation}")
    if claim.get("most"):  # "in most runs": more than half the seeds agree
        return problems + (broken if 2 * len(broken) >= len(seeds) else [])
    return problems + broken


def uncovered_numbers(notebook: str, markdown: list[str], fragments: list[str]) -> list[str]:
    """Each number with a decimal point or a per cent sign in ``markdown`` (the prose cells) outside every one
    of ``fragments`` (the notebook's registered claims and facts)."""
    missing = []
    for text in map(_flat, markdown):
        covered = [
            (m.start(), m.start() + len(f)) for f in map(_flat, fragments) for m in re.finditer(re.escape(f), text)
        ]
        for m in NUMBER.finditer(text):
            if not any(lo <= m.start() and m.end() <= hi for lo, hi in covered):
                missing.append(f"{notebook}: {m.group()!r} in ...{text[max(0, m.start() - 60) : m.end() + 30]}...")
    return missing


def _registry() -> dict:
    return tomllib.loads(REGISTRY.read_text())


def _text(notebook: str) -> str:
    return _flat("\n".join(c.source for c in student_cells(notebook)))


def test_every_registered_claim_is_in_its_notebook_and_holds_in_every_seed():
    """Is each registered statement in the student notebook as written, are the numbers it registers the ones
    it states, and does every seed's run of the benchmark agree with it?"""
    registry = _registry()
    results = json.loads(RESULTS.read_text())
    texts = {nb: _text(nb) for nb in NOTEBOOKS}
    problems = [p for claim in registry["claim"] for p in claim_problems(claim, texts[claim["notebook"]], results)]
    assert not problems, "\n".join(problems)
    assert {c["notebook"] for c in registry["claim"]} == set(NOTEBOOKS)


def test_every_fact_is_in_its_notebook_and_says_why():
    registry = _registry()
    texts = {nb: _text(nb) for nb in NOTEBOOKS}
    for fact in registry["fact"]:
        assert _flat(fact["fragment"]) in texts[fact["notebook"]], fact
        assert fact["reason"].strip(), fact


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_every_number_in_the_prose_is_registered(notebook):
    """Is every number with a decimal point or a per cent sign in the notebook's prose inside a registered claim,
    or in a fact the registry names with its reason?"""
    registry = _registry()
    fragments = [e["fragment"] for kind in ("claim", "fact") for e in registry[kind] if e["notebook"] == notebook]
    markdown = [c.source for c in student_cells(notebook) if c.cell_type == "markdown"]
    missing = uncovered_numbers(notebook, markdown, fragments)
    assert not missing, "register these in benchmarks/claims.toml:\n" + "\n".join(missing)


def test_the_results_file_says_where_and_how_it_was_measured():
    results = json.loads(RESULTS.read_text())
    machine = results["machine"]
    assert {"cpu", "cores", "load_average", "python", "numpy", "mygrad"} <= set(machine)
    assert "seed_rule" in results
    for notebook in NOTEBOOKS:
        for seed, run in results["notebooks"][notebook]["seeds"].items():
            assert run["started"].endswith("UTC") and run["seconds"] > 0, (notebook, seed)


# ---- the checker fails when it should: a fake notebook text and fake results


def _fake_results(values: list[float], metric: str = "acc_L2") -> dict:
    seeds = {str(s): {"errors": [], "metrics": {metric: v}} for s, v in enumerate(values)}
    return {"notebooks": {"01_rnn": {"seeds": seeds}}}


CLAIM = {"notebook": "01_rnn", "fragment": "about 0.1 for two digits", "metric": "acc_L2", "relation": "about",
         "value": 0.1, "tolerance": 0.05}  # fmt: skip


def test_the_checker_passes_a_true_claim():
    text = _flat("Expect about 1.0 for a single digit,\nabout 0.1 for two digits, and close to 0")
    assert claim_problems(CLAIM, text, _fake_results([0.09, 0.08, 0.1, 0.12, 0.07])) == []


def test_the_checker_fails_a_changed_number_in_the_notebook():
    """A notebook whose text now says 0.3: the registered fragment is gone, so the claim fails."""
    text = _flat("Expect about 1.0 for a single digit,\nabout 0.3 for two digits, and close to 0")
    [problem] = claim_problems(CLAIM, text, _fake_results([0.09, 0.08, 0.1, 0.12, 0.07]))
    assert "not in the student notebook" in problem


def test_the_checker_fails_a_registry_number_the_text_does_not_state():
    text = _flat("about 0.1 for two digits")
    [problem] = claim_problems({**CLAIM, "value": 0.3}, text, _fake_results([0.29, 0.3, 0.31, 0.3, 0.3]))
    assert "is not a number the fragment states" in problem


def test_the_checker_fails_a_seed_outside_the_stated_number():
    text = _flat("about 0.1 for two digits")
    [problem] = claim_problems(CLAIM, text, _fake_results([0.09, 0.08, 0.1, 0.22, 0.07]))
    assert "seed 3 measured acc_L2 = 0.22" in problem


def test_the_checker_wants_five_seeds_and_a_direction_in_every_one():
    text = _flat("about 0.1 for two digits")
    [problem] = claim_problems(CLAIM, text, _fake_results([0.1, 0.1]))
    assert "2 seeds measured" in problem
    greater = {**CLAIM, "relation": "greater", "than": "other"}
    results = _fake_results([0.1] * 5)
    for s, run in results["notebooks"]["01_rnn"]["seeds"].items():
        run["metrics"]["other"] = 0.2 if s == "4" else 0.0
    [problem] = claim_problems(greater, text, results)
    assert "seed 4" in problem


def test_an_unregistered_number_in_the_prose_is_found():
    prose = ["Expect about 1.0 for a single digit, about 0.2 for two digits; 98 % of characters."]
    missing = uncovered_numbers("01_rnn", prose, ["Expect about 1.0 for a single digit"])
    assert [m.split(" in ")[0] for m in missing] == ["01_rnn: '0.2'", "01_rnn: '98 %'"]


def test_a_claim_for_some_runs_is_checked_in_those_runs_only():
    """`when`: checked where the named figure is true; fails with too few such seeds. `some`: true in one seed at
    least."""
    text = _flat("about 0.1 for two digits")
    results = _fake_results([0.1, 0.9, 0.1, 0.1, 0.9])
    for s, run in results["notebooks"]["01_rnn"]["seeds"].items():
        run["metrics"]["trained"] = s not in "14"
    assert claim_problems({**CLAIM, "when": "trained"}, text, results) == []
    assert "seed 1 measured" in claim_problems(CLAIM, text, results)[0]
    results["notebooks"]["01_rnn"]["seeds"]["0"]["metrics"]["trained"] = False
    assert "2 seeds with trained" in claim_problems({**CLAIM, "when": "trained"}, text, results)[0]
    some = {**CLAIM, "relation": "some", "metric": "trained"}
    assert claim_problems(some, text, results) == []
    for run in results["notebooks"]["01_rnn"]["seeds"].values():
        run["metrics"]["trained"] = False
    assert "true in none" in claim_problems(some, text, results)[0]


def test_a_claim_for_most_runs_fails_when_half_break_it():
    text = _flat("about 0.1 for two digits")
    most = {**CLAIM, "most": True}
    assert claim_problems(most, text, _fake_results([0.1, 0.1, 0.1, 0.9, 0.9])) == []
    assert len(claim_problems(most, text, _fake_results([0.1, 0.1, 0.9, 0.9]))) == 1 + 2  # too few seeds, 2 of 4
    assert len(claim_problems(most, text, _fake_results([0.1, 0.1, 0.1, 0.9, 0.9, 0.9]))) == 3
