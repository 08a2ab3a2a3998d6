"""Template filters of the pages people read (feedback, the formgrader's submission view).

- :func:`mathml`: the math of rendered markdown as MathML, made here, so
  formulas show with no script and no network (no MathJax from a CDN);
- :func:`content_security_policy`: the policy of a page whose own inline
  scripts are named by their hashes, so no other script can run in it.

Registered as ``HTMLExporter.filters`` by :mod:`instructor.reporting.feedback.template`, which
names the templates that use them (the feedback page and the formgrader's submission view).
"""

from __future__ import annotations

import base64
import hashlib
import html
import re

import nh3
from latex2mathml.converter import convert

#: what latex2mathml writes; nothing else survives in a formula (no href, no event handler)
MATH_TAGS = {"math", "mi", "mo", "mn", "ms", "mtext", "mrow", "msub", "msup", "msubsup", "mfrac", "msqrt",
             "mroot", "munder", "mover", "munderover", "mtable", "mtr", "mtd", "mspace", "mstyle", "mpadded",
             "mphantom", "menclose", "merror"}
MATH_ATTRIBUTES = {tag: {"xmlns", "display", "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace",
                         "columnalign", "columnspacing", "rowspacing", "displaystyle", "scriptlevel", "width",
                         "height", "depth", "accent", "accentunder", "movablelimits", "form", "linethickness",
                         "minsize", "maxsize", "symmetric", "largeop", "notation", "mathcolor", "mathsize"}
                   for tag in MATH_TAGS}

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

_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>(.*?)</script>", re.S | re.I)
_HANDLER = re.compile(r"""\son[a-z]+\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def content_security_policy(*trusted: str) -> str:
    """A policy for a page whose trusted parts are ``trusted`` (HTML the page itself wrote).

    Scripts run only from the server itself or, inline, when they are one of
    the trusted parts' own scripts or event handlers (by hash): nothing a
    student's notebook puts into the page can run, call an API or load from
    elsewhere.
    """
    fragments = [str(t) for t in trusted]
    scripts = {_sha256(s) for f in fragments for s in _INLINE_SCRIPT.findall(f)}
    handlers = {_sha256(html.unescape(a or b)) for f in fragments for a, b in _HANDLER.findall(f)}
    script_src = " ".join(["'self'", *(["'unsafe-hashes'"] if handlers else []), *sorted(scripts | handlers)])
    return ("default-src 'self'; " f"script-src {script_src}; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
            "base-uri 'none'; form-action 'self'")
