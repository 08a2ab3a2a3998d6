"""course bench: measure every promise of speed and accuracy."""

from __future__ import annotations

from pathlib import Path

NAME = "bench"
HELP = (
    "Measure ms per training step, steps to the promised accuracy, notebook and autograde times; "
    "or (--against torch) each model's step against a PyTorch twin."
)
EXAMPLES = """\
parts: rnn, seq2seq, attention, transformer, notebooks, autograde, class, class-tools

examples:
  course bench                    # every part, quick-mode notebook timings
  course bench --only rnn --json bench.json
  course bench --only class --class-size 400 --modes serial,jobs --json class.json
  course bench --only class-tools --class-size 400   # report, similarity, extend, export on 400 graded
  course bench --against torch    # each model's step against its PyTorch twin (pip install -e ".[torch]")
  course bench --against torch --only attention --rounds 5 --json torch.json
"""


def add_arguments(p):
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
    p.add_argument(
        "--mistakes",
        type=Path,
        metavar="DIR",
        help="catalogue of deliberate mistakes (<DIR>/<assignment>.py) the class part writes into "
        "its submissions (default: the repository's tests/mistakes)",
    )


def run(args) -> int:
    # the bench loads MyGrad and the models: only when asked, so that `course --help` stays quick
    from instructor import bench

    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    bench.run(
        bench.BenchRequest(
            only=args.only,
            json=args.json,
            full=args.full,
            jobs=args.jobs,
            class_size=args.class_size,
            modes=modes,
            mistakes=args.mistakes or bench.MISTAKES,
            against=args.against,
            rounds=args.rounds,
            steps=args.steps,
        )
    )
    return 0
