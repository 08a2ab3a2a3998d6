"""``python -m benchmarks``: its options, parsed, and the run they ask for.

``course bench`` in a checkout reads the same options from here (instructor/cli/bench.py), so the two
commands cannot drift apart. This module imports no model: the parts load when they run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PROG = "python -m benchmarks"
HELP = (
    "Measure ms per training step, steps to the promised accuracy, notebook and autograde times; "
    "or (--against torch) each model's step against a PyTorch twin."
)
EXAMPLES = """\
parts: rnn, seq2seq, attention, transformer, notebooks, autograde, class, class-tools;
  claims (only with --only: each solution notebook in full mode per seed, about an hour for 5 seeds);
  busy (only with --only: 01's and 04's full-mode training idle and beside two busy processes, 1 and 2 BLAS
  threads, about ten minutes)

examples (from the repository's top folder; `course bench` takes the same options in a checkout):
  python -m benchmarks                    # every part, quick-mode notebook timings
  python -m benchmarks --only rnn --json bench.json
  python -m benchmarks --only class --class-size 400 --modes serial,jobs --json class.json
  python -m benchmarks --only class-tools --class-size 400   # report, similarity, extend, export on 400 graded
  python -m benchmarks --only claims --seeds 5   # the numbers the notebooks state -> benchmarks/results/claims.json
  python -m benchmarks --only busy --json busy.json   # full runs on a busy machine against idle
  python -m benchmarks --against torch    # each model's step against its PyTorch twin (pip install -e ".[torch]")
  python -m benchmarks --against torch --only attention --rounds 5 --json torch.json
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--only", help="run one part")
    p.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    p.add_argument("--full", action="store_true", help="also time each notebook in full mode")
    p.add_argument("--jobs", type=int, default=2, help="parallel autograde jobs to time")
    p.add_argument(
        "--class-size",
        type=int,
        default=200,
        help="submissions in the synthetic class of parts `class` and `class-tools` (default: 200)",
    )
    p.add_argument(
        "--modes", default="serial,jobs,scheduler", help="modes of part `class`, comma-separated (default: %(default)s)"
    )
    p.add_argument(
        "--against",
        choices=["torch"],
        help="time each model's training step interleaved with its PyTorch twin's (same weights, "
        "batches and losses; one thread) instead of the parts; --only names one model",
    )
    p.add_argument("--rounds", type=int, default=3, help="rounds of --against (default: %(default)s)")
    p.add_argument(
        "--steps",
        type=int,
        default=50,
        help="timed steps of each side per model per round of --against (default: %(default)s)",
    )
    p.add_argument("--seeds", type=int, default=5, help="runs of each notebook in part `claims` (default: %(default)s)")
    p.add_argument(
        "--mistakes",
        type=Path,
        metavar="DIR",
        help="catalogue of deliberate mistakes (<DIR>/<assignment>.py) the class part writes into "
        "its submissions (default: the repository's tests/mistakes)",
    )


def run(args: argparse.Namespace) -> int:
    """Run what the parsed options ask; a :class:`~instructor.errors.CourseError` says what is wrong."""
    # the parts load MyGrad and the models: only when asked, so that reading the options stays quick
    from benchmarks import parts

    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    parts.run(
        parts.BenchRequest(
            only=args.only,
            json=args.json,
            full=args.full,
            jobs=args.jobs,
            class_size=args.class_size,
            modes=modes,
            mistakes=args.mistakes or parts.MISTAKES,
            against=args.against,
            rounds=args.rounds,
            steps=args.steps,
            seeds=args.seeds,
        )
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=HELP, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks [options]``: 0, or 1 after one line on stderr that says what is wrong."""
    from instructor.errors import CourseError
    from instructor.terminal import inert_output

    args = build_parser().parse_args(argv)
    with inert_output():  # as `course` prints: no terminal control gets through
        try:
            return run(args)
        except CourseError as err:
            print(f"{PROG}: {err}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print(f"{PROG}: interrupted.", file=sys.stderr)
            return 130
