"""course similarity: pairs of graded submissions whose answer code is alike, ranked for a person to judge."""

from __future__ import annotations

import time

from instructor.cli.options import add_course_dir, add_old_spelling
from instructor.coursedir import directory
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError
from instructor.reporting.similarity import MIN_CHARS, NOISE, OUTPUT, THRESHOLD, analyse
from instructor.reporting.similarity_page import write

NAME = "similarity"
HELP = "Rank the pairs of graded submissions of an assignment whose answer code is alike, matches side by side."
EXAMPLES = f"""\
what it compares:
  the code answer cells (nbgrader solution cells) of <dir>/autograded/<student>/<a>/<a>.ipynb,
  one document per student in notebook order. Written answers (markdown) are not compared.
  The student versions (<dir>/release/<a>/ and every archived version: stubs, signatures,
  docstrings, given and test cells) never count: a submission left as students got it matches nobody.
  Method: copydetect's winnowing over tokens (MOSS's); a match is a run of at least {NOISE}
  characters of filtered code, where every name is one character and comments and spaces are gone.

what it can and cannot see:
  it sees a copy whose variables, attributes and functions were renamed, re-spaced or
  re-commented (100 % on the test class), and a task or two taken from a classmate in
  otherwise own work. It does not see a rewrite: statements reordered, a loop turned into
  array code, another algorithm for the same result (a rewrite of a classmate's answers
  scored 10 %, below independent work). Tasks that leave little freedom (three dense(...)
  layers) match between honest students: a score is a reason to look at both, not a verdict.

scores:
  share of a = the part of a's answer code (filtered, the student version's code removed) found in b.
  Pairs are ranked by the larger share (a student who copied one task and wrote nothing else
  ranks high against a classmate who wrote everything) and shown when it is above --threshold
  and at least --min-chars characters match. Default {THRESHOLD}: on the test class of 01_rnn a
  renamed copy scores 1.00, half the tasks taken from one classmate 0.45, independent
  implementations at most 0.22. It also prints the highest pair not shown and the median.

what it writes:
  <dir>/{OUTPUT}/<a>.html   the ranked pairs, then each pair side by side, task by task,
                           the matching parts marked (no script; opens offline)
  <dir>/{OUTPUT}/<a>.csv    student_a, student_b, similarity_a, similarity_b, tokens_matched (characters), tasks

examples:
  course similarity 01_rnn
  course similarity 02_seq2seq --threshold 0.3 --top 20
"""


def add_arguments(p):
    p.add_argument("assignment", help="assignment, e.g. 01_rnn")
    p.add_argument(
        "--threshold",
        type=float,
        default=THRESHOLD,
        metavar="SHARE",
        help=f"show the pairs whose larger share is above this, 0 to 1 (default: {THRESHOLD})",
    )
    p.add_argument(
        "--min-chars",
        dest="min_chars",
        type=int,
        default=MIN_CHARS,
        metavar="N",
        help=f"and at least N filtered characters match (default: {MIN_CHARS})",
    )
    add_old_spelling(p, "--min-tokens", "--min-chars", dest="min_chars", type=int, metavar="N")
    p.add_argument("--top", type=int, default=10, metavar="N", help="print the N first pairs (default: 10)")
    add_course_dir(p)


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}{'' if n == 1 else 's'}"


def run(args) -> int:
    if args.top < 0 or args.min_chars < 0:
        raise CourseError("--top and --min-chars are counts: 0 or more.")
    course_dir = CourseDir.at(directory.resolve(args.course_dir))
    print(f"course directory: {course_dir.path}")
    started = time.perf_counter()
    result = analyse(course_dir, args.assignment, args.threshold, args.min_chars)
    page, table = write(course_dir, result)
    shown = result.shown
    print(
        f"{result.assignment}: {_count(len(result.documents), 'graded submission')}, "
        f"{_count(len(result.pairs), 'pair')} compared "
        f"in {time.perf_counter() - started:.1f} s; {len(shown)} above {result.threshold:.2f}"
        + (f" ({len(result.blank)} hold only the student version's code)" if result.blank else "")
    )
    for skipped in result.skipped:
        print(f"  not compared: {skipped}")
    for rank, p in enumerate(shown[: args.top], start=1):
        print(
            f"  {rank:3d}. {p.a} {100 * p.similarity_a:.0f} % ~ {p.b} {100 * p.similarity_b:.0f} %, "
            f"{p.chars_matched} characters: {' '.join(p.tasks)}"
        )
    if len(shown) > args.top:
        print(f"  ... and {len(shown) - args.top} more on the page")
    if (hidden := result.best_hidden) is not None:
        print(
            f"highest pair not shown: {hidden.a} ~ {hidden.b}, {hidden.score:.2f} with "
            f"{hidden.chars_matched} characters; median pair: {result.median:.2f}"
        )
    print(f"page: {page}\ncsv:  {table}")
    return 0
