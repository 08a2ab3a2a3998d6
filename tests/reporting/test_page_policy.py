"""The formgrader's submission view: its policy comes from its template's text, and no name is markup.

Rendered without a browser (the browser tests in tests/browser/test_formgrader.py
open the same page in Chromium): a roster name holding a script is text in the
page, and no hash in the page's policy is that of a script a name could add.
"""

from __future__ import annotations

import nbformat
import pytest
from nbconvert import HTMLExporter
from traitlets.config import Config

from instructor.paths import NOTEBOOKS, notebook_path
from instructor.reporting.feedback.template import use_course_templates
from instructor.reporting.rendering import (
    _INLINE_SCRIPT,
    _sha256,
    content_security_policy,
    side_by_side,
    template_scripts,
    without_font_faces,
)

FIRST = "<script>window.pwned = 1</script>"
LAST = '<img src=x onerror="window.pwned = 2">'


def _render(first: str, last: str) -> str:
    c = Config()
    use_course_templates(c)
    c.HTMLExporter.template_name = "formgrade"
    c.HTMLExporter.preprocessors = []
    nb = nbformat.read(str(notebook_path("01_rnn", NOTEBOOKS)), as_version=4)
    resources = {
        "assignment_id": "01_rnn",
        "notebook_id": "01_rnn",
        "submission_id": "s1",
        "index": 0,
        "total": 1,
        "base_url": "",
        "student": "eve",
        "last_name": last,
        "first_name": first,
        "notebook_path": "autograded/eve/01_rnn/01_rnn.ipynb",
    }
    page, _ = HTMLExporter(config=c).from_notebook_node(nb, resources=resources)
    return page


def test_a_roster_name_is_text_and_its_script_is_not_trusted():
    """Is a name's <script> and <img onerror> escaped in the page, and are the trusted hashes the same
    whatever the names (so none is a name's), while each of the template's own scripts is trusted?"""
    page = _render(FIRST, LAST)
    assert FIRST not in page and LAST not in page
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in page
    policy = content_security_policy("formgrade")
    assert policy == content_security_policy("formgrade")  # from the files, not from a page
    own = [body for attrs, body in _INLINE_SCRIPT.findall(page) if "application/json" not in attrs]
    assert own and all(_sha256(body) in policy for body in own)
    assert _sha256("window.pwned = 1") not in policy and _sha256("window.pwned = 2") not in policy


def test_a_template_script_that_holds_data_is_refused():
    """Would a template whose inline script or handler interpolates a value (whose rendered text, and so
    hash, a name could set) be refused rather than hashed?"""
    with pytest.raises(ValueError, match="template code"):
        template_scripts('<script>var who = "{{ resources.first_name }}";</script>')
    with pytest.raises(ValueError, match="template code"):
        template_scripts('<span onclick="show({{ resources.index }})"></span>')
    scripts, handlers = template_scripts(
        '{# <script>{{ x }}</script> #}<script type="application/json">{{ x }}'
        '</script><script>go();</script><b onclick="go();"></b>'
    )
    assert scripts == {_sha256("go();")} and handlers == {_sha256("go();")}


def test_autograded_cells_have_no_full_credit_button():
    """Does every autograded test cell lack "Full credit" (and carry the mark that asks before an override),
    while each written answer keeps it?"""
    page = _render("Eve", "Example")
    nb = nbformat.read(str(notebook_path("01_rnn", NOTEBOOKS)), as_version=4)
    meta = [c.metadata.get("nbgrader", {}) for c in nb.cells]
    tests = sum(1 for m in meta if m.get("grade") and not m.get("solution") and not m.get("task"))
    written = sum(1 for m in meta if m.get("grade") and m.get("solution"))
    assert tests > 0 and page.count('data-autograded="true"') == tests
    assert page.count("full-credit") == written


def test_font_faces_are_left_out_and_edits_line_up():
    assert without_font_faces("a{b:c} @font-face { font-family: X; src: url('../f.woff') } d{e:f}") == "a{b:c}  d{e:f}"
    assert side_by_side("a\nb\nc", "a\nB\nc\n# a comment") == [
        ("equal", "a", "a"),
        ("replace", "b", "B"),
        ("equal", "c", "c"),
        ("insert", "", "# a comment"),
    ]
