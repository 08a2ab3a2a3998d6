"""``course report A``: one assignment's class report, as a page and as CSV.

Writes into ``<to>/`` (default ``<dir>/reports/<A>/``):

* ``index.html``: the page (figures inline, no script, nothing loaded from
  elsewhere; every text that came from a student is escaped);
* ``scores.csv``: student, status, score, max_score (the histogram's data);
* ``checks.csv``: per graded cell, its points, submissions judged, failed,
  share failed, written answers waiting (the bar chart's data);
* ``mistakes.csv``: per check and mistake (the author's words), the count
  and the share of the submissions judged;
* ``statuses.csv``: how many submissions have each status, flag and reason;
* ``overrides.csv``: every override of a test cell and hand grade taken back:
  student, cell, from, to, by whom, when.
"""

from __future__ import annotations

import base64
import csv
import io
import statistics
from collections.abc import Sequence
from pathlib import Path

import jinja2

from instructor.coursedir import overrides
from instructor.coursedir.course_dir import CourseDir
from instructor.errors import CourseError, first_line
from instructor.reporting.export import inert_cell
from instructor.reporting.failures import NOT_ATTEMPTED
from instructor.reporting.item_analysis import ClassReport, analyse
from instructor.reporting.rendering import STATIC_PAGE_POLICY

TEMPLATES = Path(__file__).parent / "templates"
#: overrides.csv: one row per grade changed by hand (the fields of :class:`instructor.coursedir.overrides.Change`;
#: by is empty where the formgrader did not say)
OVERRIDE_COLUMNS = ["student", "cell", "from", "to", "what", "by", "at", "seen_by"]
PAGE = "report.html.j2"


def _png(fig) -> str:
    """A matplotlib figure as a ``data:`` URI (the page loads nothing from anywhere)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def figures(report: ClassReport) -> dict[str, str]:
    """The score histogram and the share-failed bars, as data URIs."""
    import matplotlib

    matplotlib.use("Agg")  # no display: the report is written by a command
    import matplotlib.pyplot as plt

    out = {}
    fig, ax = plt.subplots(figsize=(6.4, 2.8))
    top = max(report.max_score, 1.0)
    ax.hist(report.scores, bins=[b - 0.5 for b in range(int(top) + 2)], color="#4c72b0", edgecolor="white")
    ax.set_xlim(-0.5, top + 0.5)
    ax.set_xlabel(f"score (of {report.max_score:g}), late penalty taken")
    ax.set_ylabel("submissions")
    ax.spines[["top", "right"]].set_visible(False)
    out["histogram"] = _png(fig)
    plt.close(fig)

    tests = [c for c in report.cells if not c.written]
    fig, ax = plt.subplots(figsize=(6.4, 0.28 * len(tests) + 0.9))
    names = [c.grade_id for c in tests][::-1]
    shares = [100 * c.share_failed for c in tests][::-1]
    ax.barh(names, shares, color="#c44e52")
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of the judged submissions that failed the check")
    ax.tick_params(axis="y", labelsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    out["failed"] = _png(fig)
    plt.close(fig)
    return out


def headline_figures(report: ClassReport) -> dict:
    """The figures the page's first lines give."""
    scores = report.scores
    return {
        "submissions": len(scores),
        "students": len(report.rows),
        "mean": statistics.fmean(scores) if scores else 0.0,
        "median": statistics.median(scores) if scores else 0.0,
        "full": sum(s >= report.max_score for s in scores),
        "zero": sum(s == 0 for s in scores),
    }


def page(report: ClassReport, overrides: Sequence[dict] = ()) -> str:
    """The report page's HTML (autoescaped: flag texts and reasons may hold student-chosen names).

    ``overrides``: the overrides of this assignment (:mod:`instructor.coursedir.overrides`).
    """
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined
    )
    body = dict(
        report=report,
        summary=headline_figures(report),
        figures=figures(report),
        top=report.top_mistakes(15),
        statuses=report.statuses.most_common(),
        not_attempted=NOT_ATTEMPTED,
        overrides=list(overrides),
    )
    return env.get_template(PAGE).render(csp=STATIC_PAGE_POLICY, **body)


def _write_csv(path: Path, header: list[str], rows) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows([[inert_cell(v) for v in row] for row in rows])


def write(report: ClassReport, to: Path, overrides: Sequence[dict] = ()) -> Path:
    """Write the page and its CSV files into the folder ``to``; returns the page's path.

    ``overrides``: every override of a test cell and hand grade taken back (who, when, from what to what).
    """
    try:
        to.mkdir(parents=True, exist_ok=True)
        _write_csv(
            to / "scores.csv",
            ["student_id", "status", "score", "max_score"],
            [(r["student_id"], r["status"], r["score"], report.max_score) for r in report.rows],
        )
        _write_csv(
            to / "checks.csv",
            ["grade_id", "kind", "points", "judged", "failed", "share_failed", "waiting"],
            [
                (
                    c.grade_id,
                    "written" if c.written else "test",
                    c.points,
                    c.graded,
                    c.failed,
                    round(c.share_failed, 4),
                    c.pending,
                )
                for c in report.cells
            ],
        )
        _write_csv(
            to / "mistakes.csv",
            ["grade_id", "mistake", "count", "share_of_judged"],
            [
                (c.grade_id, words, k, round(k / c.graded, 4))
                for c in report.cells
                for words, k in c.mistakes.most_common()
            ],
        )
        _write_csv(
            to / "statuses.csv",
            ["kind", "what", "submissions"],
            [("status", s, k) for s, k in report.statuses.most_common()]
            + [("flag", f, k) for f, k in report.flags.most_common()]
            + [("not graded", r, k) for r, k in report.not_graded.most_common()],
        )
        _write_csv(
            to / "overrides.csv", OVERRIDE_COLUMNS, [[e.get(k, "") for k in OVERRIDE_COLUMNS] for e in overrides]
        )
        (to / "index.html").write_text(page(report, overrides))
    except OSError as err:
        raise CourseError(f"cannot write the report into {to} ({err.strerror or first_line(err)}).") from None
    return to / "index.html"


def make_report(course_dir: CourseDir, assignment: str, to: Path | None = None) -> tuple[ClassReport, Path]:
    """``course report``: the class report of ``assignment`` written into ``to`` (default
    ``<dir>/reports/<assignment>/``); returns it and the page's path.

    The formgrader's overrides are recorded first, so the page lists them all.
    """
    found = analyse(course_dir, assignment)  # one sentence if nothing was graded
    overrides.observe_course(course_dir, "report")
    changed = [e.shown() for e in overrides.entries(course_dir) if e.assignment == assignment]
    return found, write(found, (to or course_dir.report(assignment)).resolve(), changed)
