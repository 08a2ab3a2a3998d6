"""course bench: measure every promise of speed and accuracy (filled in by the benchmark module)."""

from __future__ import annotations

NAME = "bench"
HELP = "Measure ms per training step, steps to the promised accuracy, notebook and autograde times."
EXAMPLES = """\
examples:
  course bench                    # every part, quick-mode notebook timings
  course bench --only rnn --json bench.json
  course bench --only class --class-size 400 --modes serial,jobs --json class.json
"""


def add_arguments(p):
    p.add_argument("--only", help="run one part")
    p.add_argument("--json", help="also write the figures to this JSON file")
    p.add_argument("--full", action="store_true", help="also time each notebook in full mode")
    p.add_argument("--jobs", type=int, default=2, help="parallel autograde jobs to time")
    p.add_argument("--class-size", type=int, default=200, help="submissions in the synthetic class of part `class` (default: 200)")
    p.add_argument("--modes", default="serial,jobs,scheduler", help="modes of part `class`, comma-separated (default: %(default)s)")


def run(args) -> int:
    from course.bench import main

    return main(args)
