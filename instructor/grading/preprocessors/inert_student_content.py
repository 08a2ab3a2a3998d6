"""Make what a student wrote inert before anyone looks at it: the formgrader, JupyterLab, feedback.

The autograded notebook is what an instructor opens (nbgrader's formgrader
renders it with the instructor's session, as the grader's user), so the
student's markup is made harmless in the file itself, whoever renders it:

- a markdown or raw cell whose text is not the course's own (not a cell of
  the student version, word for word) is rendered to HTML and sanitised by nh3
  (Ammonia's allow-list: no script, no event handler, no ``javascript:``
  link, no form, no frame, no style), then kept as one HTML block in the
  cell, which every markdown renderer passes through as it is;
- outputs keep only plain text and bitmap images: HTML, JavaScript, SVG,
  markdown, LaTeX and widget views of student code are replaced by a note;
- a mark that sets the direction of text (U+202E ...), which would show
  "evil" as "live", is shown as a visible ``<U+202E>`` in both.

The course's own cells (the student version's text, and locked cells, which the
grader restored) are left as they are, so their text and math show exactly
once. Code is shown as text by every renderer already.
"""

from __future__ import annotations

import re

import nh3
from nbconvert.filters.markdown import markdown2html_mistune
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from instructor.grading.preprocessors.student_version import read_student_version
from instructor.terminal import visible_bidi

#: output types a browser shows as text or as a plain picture, never as markup
SAFE_OUTPUTS = ("text/plain", "image/png", "image/jpeg", "image/gif")
#: what a sanitised student cell starts with (so a second pass only cleans again)
MARK = '<div class="student-markdown">'
#: what rendered markdown needs; nothing that runs, submits, embeds or restyles the page
TAGS = {
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "code",
    "del",
    "div",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "img",
    "li",
    "ol",
    "p",
    "pre",
    "s",
    "span",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
}
ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"alt", "title", "src"},
    "td": {"align"},
    "th": {"align"},
    "div": {"class"},
    "span": {"class"},
    "code": {"class"},
}
URL_SCHEMES = {"http", "https", "mailto", "data"}


def _attribute(tag: str, name: str, value: str) -> str | None:
    """Images only from data in the notebook: an address would make the reader's browser fetch it
    (telling the student when the page was opened, or calling the server with the reader's session)."""
    if tag == "img" and name == "src" and not value.startswith(("data:image/png", "data:image/jpeg", "data:image/gif")):
        return None
    return value


def inert_markdown(source: str) -> str:
    """``source`` (markdown, or HTML this function made) as one sanitised HTML block."""
    body = (
        source[len(MARK) : -len("</div>")]
        if source.startswith(MARK) and source.endswith("</div>")
        else markdown2html_mistune(source)
    )
    clean = nh3.clean(
        body,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
        attribute_filter=_attribute,
    )
    # one line: a markdown renderer ends an HTML block at a blank line and would parse the rest as markdown
    return MARK + clean.replace("\r", "").replace("\n", "&#10;") + "</div>"


def inert_outputs(cell) -> None:
    """Keep only :data:`SAFE_OUTPUTS` in ``cell``'s outputs; say what was left out; show direction marks."""
    for out in cell.get("outputs", []):
        data = out.get("data")
        if not data:
            continue
        dropped = sorted(k for k in data if k not in SAFE_OUTPUTS)
        for key in dropped:
            del data[key]
        if dropped and not data:
            data["text/plain"] = f"[{', '.join(dropped)} output not shown]"
        out.get("metadata", {}).clear()
    for out in cell.get("outputs", []):
        for key, value in [*out.items(), *out.get("data", {}).items()]:
            if key in ("text", "evalue", "traceback", "text/plain"):
                shown = [visible_bidi(v) for v in value] if isinstance(value, list) else visible_bidi(value)
                (out if key in out else out["data"])[key] = shown


_ATTACHMENT = re.compile(r"attachment:([^\s)\"'>]+)")


def _attachments_inline(source: str, attachments: dict) -> str:
    """``attachment:<name>`` references (a screenshot pasted into a written answer) as data the page
    holds: a PNG, JPEG or GIF stays visible to the grader; anything else becomes a note."""

    def one(m: re.Match) -> str:
        found = attachments.get(m.group(1)) or {}
        for mime in ("image/png", "image/jpeg", "image/gif"):
            data = found.get(mime)
            if isinstance(data, str) and re.fullmatch(r"[A-Za-z0-9+/=\s]*", data):
                return f"data:{mime};base64,{''.join(data.split())}"
        return "#attachment-not-shown"

    return _ATTACHMENT.sub(one, source)


def course_text(version) -> set[str]:
    """The markdown and raw cells of the student version, word for word (the course's own text)."""
    return {c.source for c in (version.cells if version is not None else []) if c.cell_type in ("markdown", "raw")}


def is_course_cell(cell, course: set[str]) -> bool:
    """The course's own text: a cell of the student version word for word, or a locked cell (the autograder put
    its text and metadata back from the student version before anything ran: it holds the mark scheme too)."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.source in course or bool(meta.get("locked") and not meta.get("solution"))


def make_inert(cell, course: set[str]) -> None:
    """Sanitise one cell in place (see the module doc); the course's own text stays as it is."""
    if cell.cell_type in ("markdown", "raw") and not is_course_cell(cell, course):
        text = _attachments_inline(cell.source, cell.pop("attachments", None) or {})
        source = (
            inert_markdown(text)
            if cell.cell_type == "markdown"
            else MARK + "<pre>" + nh3.clean_text(text).replace("\n", "&#10;") + "</pre></div>"
        )
        cell.cell_type, cell.source = "markdown", visible_bidi(source, html=True)
        cell.metadata.pop("format", None)
        cell.metadata.pop("raw_mimetype", None)
        cell.pop("outputs", None)
        cell.pop("execution_count", None)
    inert_outputs(cell)


class InertStudentContent(Preprocessor):
    """Sanitise the student's markup and outputs in the graded notebook (see the module doc)."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        nb.metadata.pop("course_grading", None)  # the autograder's summary (grading.record) is written after this
        course = course_text(read_student_version(self.config, resources))
        for cell in nb.cells:
            make_inert(cell, course)
        return nb, resources
