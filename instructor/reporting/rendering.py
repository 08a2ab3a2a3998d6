"""Template filters of the pages people read (feedback, the formgrader's submission view).

- :func:`mathml`: the math of rendered markdown as MathML, made here, so
  formulas show with no script and no network (no MathJax from a CDN);
- :func:`content_security_policy`: the policy of a page whose own inline
  scripts are named by their hashes, taken from its template's text (never
  from the rendered page, where a student's name or markup could add one);
- :func:`without_font_faces`: inlined CSS without its ``@font-face`` rules
  (their fonts are files the page cannot load under its policy).

Registered as ``HTMLExporter.filters`` by :mod:`instructor.reporting.feedback.template`, which
names the templates that use them (the feedback page and the formgrader's submission view).
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import html
import re
from functools import cache
from pathlib import Path

import nh3
from latex2mathml.converter import convert

#: what latex2mathml writes; nothing else survives in a formula (no href, no event handler)
MATH_TAGS = {
    "math",
    "mi",
    "mo",
    "mn",
    "ms",
    "mtext",
    "mrow",
    "msub",
    "msup",
    "msubsup",
    "mfrac",
    "msqrt",
    "mroot",
    "munder",
    "mover",
    "munderover",
    "mtable",
    "mtr",
    "mtd",
    "mspace",
    "mstyle",
    "mpadded",
    "mphantom",
    "menclose",
    "merror",
}
MATH_ATTRIBUTES = {
    tag: {
        "xmlns",
        "display",
        "mathvariant",
        "stretchy",
        "fence",
        "separator",
        "lspace",
        "rspace",
        "columnalign",
        "columnspacing",
        "rowspacing",
        "displaystyle",
        "scriptlevel",
        "width",
        "height",
        "depth",
        "accent",
        "accentunder",
        "movablelimits",
        "form",
        "linethickness",
        "minsize",
        "maxsize",
        "symmetric",
        "largeop",
        "notation",
        "mathcolor",
        "mathsize",
    }
    for tag in MATH_TAGS
}

#: code and preformatted text keep their dollars; then display math, then inline math (one line, no markup inside)
_TOKENS = re.compile(
    r"(?P<keep><(?P<tag>pre|code|script|style)\b.*?</(?P=tag)>)"
    r"|\$\$(?P<block>[^<>]+?)\$\$"
    r"|(?<![\\$\w])\$(?P<inline>[^$<>\n]+?)\$(?![\w$])",
    re.S | re.I,
)


def tex_to_mathml(tex: str, display: bool = False) -> str:
    """One formula (TeX, HTML-escaped as the markdown renderer leaves it) as sanitised MathML."""
    source = html.unescape(tex).strip()
    try:
        made = convert(source, display="block" if display else "inline")
    except Exception:  # latex2mathml raises several types for TeX it does not know: show the TeX itself
        return f"<code>{html.escape(source)}</code>"
    return nh3.clean(made, tags=MATH_TAGS, attributes=MATH_ATTRIBUTES)


def mathml(rendered: str) -> str:
    """Every ``$...$`` and ``$$...$$`` of rendered markdown ``rendered`` as MathML (code left alone)."""

    def one(m: re.Match) -> str:
        if m.group("keep"):
            return m.group("keep")
        if m.group("block") is not None:
            return tex_to_mathml(m.group("block"), display=True)
        return tex_to_mathml(m.group("inline"))

    return _TOKENS.sub(one, str(rendered))


#: the policy of a page that is a file on disk (feedback, the class report): no script at all, images inline
STATIC_PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

#: an inline script (no src=) of a JavaScript type: group 1 its opening tag's attributes, group 2 its text
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\ssrc=)([^>]*)>(.*?)</script>", re.S | re.I)
_DATA_TYPE = re.compile(r"""\stype\s*=\s*["']?(?!text/javascript|application/javascript|module)[^"'\s>]+""", re.I)
_HANDLER = re.compile(r"""\son[a-z]+\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_JINJA = re.compile(r"{{|{%|{#")
_JINJA_COMMENT = re.compile(r"{#.*?#}", re.S)
_FONT_FACE = re.compile(r"@font-face\s*{[^}]*}", re.I)

#: where the pages' templates are (instructor/reporting/feedback/templates/<name>/)
TEMPLATES = Path(__file__).resolve().parent / "feedback" / "templates"


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def template_scripts(text: str, name: str = "template") -> tuple[set[str], set[str]]:
    """The hashes of a template's own inline scripts and event handlers, read from its source ``text``.

    Raises ValueError if one of them holds template code: its rendered text would
    depend on data (a name, an id), and a hash taken after rendering would trust
    whatever that data put there.
    """
    text = _JINJA_COMMENT.sub("", text)  # a comment is never rendered
    scripts = [body for attributes, body in _INLINE_SCRIPT.findall(text) if not _DATA_TYPE.search(attributes)]
    handlers = [html.unescape(a or b) for a, b in _HANDLER.findall(text)]
    for code in scripts + handlers:
        if _JINJA.search(code):
            raise ValueError(
                f"{name}: an inline script or handler holds template code ({code.strip()[:60]!r}): "
                "pass data through a JSON block, not into script text"
            )
    return {_sha256(s) for s in scripts}, {_sha256(h) for h in handlers}


@cache
def _policy(templates: Path) -> str:
    scripts, handlers = set(), set()
    for template in sorted(templates.glob("*.j2")):
        s, h = template_scripts(template.read_text(encoding="utf-8"), template.name)
        scripts |= s
        handlers |= h
    script_src = " ".join(["'self'", *(["'unsafe-hashes'"] if handlers else []), *sorted(scripts | handlers)])
    return (
        "default-src 'self'; "
        f"script-src {script_src}; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
        "base-uri 'none'; form-action 'self'"
    )


def content_security_policy(template: str) -> str:
    """The policy of a page made from the course's template folder ``template`` (e.g. ``"formgrade"``).

    Scripts run only from the server itself or, inline, when they are one of
    the template files' own scripts or event handlers (by hash, from the files'
    text): nothing a student's notebook or a roster name puts into the page can
    run, call an API or load from elsewhere.
    """
    return _policy(TEMPLATES / str(template))


def without_font_faces(css: str) -> str:
    """``css`` without its ``@font-face`` rules.

    nbconvert's inlined CSS names Font Awesome's and Glyphicons' files by paths
    relative to a folder no course page has (``../components/...``): on a feedback
    page the policy forbids them and on the formgrader's the server has none, so
    each was an error in the reader's console. The feedback page shows no icon;
    the formgrader's icons come from the Bootstrap stylesheet it links.
    """
    return _FONT_FACE.sub("", str(css))


def side_by_side(before: str, after: str) -> list[tuple[str, str, str]]:
    """``before`` and ``after`` line by line, aligned: rows of (tag, line before, line after).

    ``tag`` is difflib's: ``equal``, ``replace``, ``delete`` (a line only
    before) or ``insert`` (a line only after); the missing side is "".
    """
    a, b = str(before or "").splitlines(), str(after or "").splitlines()
    rows: list[tuple[str, str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        left, right = a[i1:i2], b[j1:j2]
        for k in range(max(len(left), len(right))):
            rows.append((tag, left[k] if k < len(left) else "", right[k] if k < len(right) else ""))
    return rows
