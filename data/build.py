"""Build the cipher data file of the Transformer notebook.

Run ``course data build`` or ``python -m course_data.build``; ``--help`` lists
the options. Without ``--corpus`` the text is ``pydoc_data.topics`` from the
running Python, and the file goes to ``solutions/04_transformer/cipher_data.npz``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from course.cipher_data import DATA_FILE, FORMAT_VERSION, write_npz

from .corpus import CorpusError, default_corpus, read_corpus, sha256
from .dataset import DEFAULT_HELD_OUT_FRACTION, DEFAULT_SEED, build_arrays
from .vigenere import ALPHABET, KEY

__all__ = ["DEFAULT_OUT", "build", "main"]

#: Where the notebook reads its data: the assignment folder of the solutions.
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "solutions" / "04_transformer" / DATA_FILE


def build(
    out=DEFAULT_OUT,
    corpus=None,
    seed: int = DEFAULT_SEED,
    held_out_fraction: float = DEFAULT_HELD_OUT_FRACTION,
) -> dict:
    """Build the data set from ``corpus`` (a file; None for the default) and write it to ``out``.

    Returns the arrays and metadata written, by name.
    """
    text, name = default_corpus() if corpus is None else read_corpus(corpus)
    arrays = build_arrays(text, name, seed=seed, held_out_fraction=held_out_fraction)
    meta = {
        "format_version": FORMAT_VERSION,
        "corpus": name,
        "corpus_sha256": sha256(text),
        "seed": seed,
        "held_out_fraction": held_out_fraction,
        "key": KEY,
        "alphabet": ALPHABET,
    }
    contents = {**arrays, **{k: np.array(v) for k, v in meta.items()}}
    write_npz(out, contents)
    return contents


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie in [0, 1), got {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course data build",
        description=("Build the Vigenère cipher data set (key 'clap') that the Transformer notebook trains on."),
        epilog=(
            "examples:\n"
            "  course data build                          # default corpus, default place\n"
            "  course data build --corpus book.txt --out /tmp/cipher_data.npz\n"
            "\n"
            "The text is lowercased and reduced to a-z and spaces and cut into 100-character\n"
            "texts; a share of the distinct texts is held out. The notebook cuts its messages\n"
            "from these texts and encrypts them."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--corpus",
        metavar="FILE",
        help="a UTF-8 text file to build from (default: pydoc_data.topics of this Python)",
    )
    parser.add_argument(
        "--out",
        metavar="PATH",
        default=str(DEFAULT_OUT),
        help=f"the .npz to write (default: {DEFAULT_OUT})",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"salts the split (default: {DEFAULT_SEED})")
    parser.add_argument(
        "--held-out-fraction",
        type=_fraction,
        default=DEFAULT_HELD_OUT_FRACTION,
        help=f"share of the distinct texts held out (default: {DEFAULT_HELD_OUT_FRACTION})",
    )
    return parser


def main(argv=None) -> int:
    """Entry point of ``course data build``; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        contents = build(args.out, args.corpus, args.seed, args.held_out_fraction)
    except CorpusError as err:
        print(f"course data build: {err}", file=sys.stderr)
        return 1
    n_train = contents["train_plain"].shape[1]
    n_held = contents["held_out_plain"].shape[1]
    size = Path(args.out).stat().st_size
    print(
        f"wrote {args.out}: {n_train} training and {n_held} held-out texts from {contents['corpus']} ({size:,} bytes)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
