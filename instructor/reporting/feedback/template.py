"""Point nbgrader's pages at the course's templates (``templates/`` beside this module).

Two templates, each keeping nbgrader's name because nbgrader forces
``HTMLExporter.template_name`` (its API and formgrader):

- ``feedback``: the students' page: no script at all (its policy forbids
  any), math as MathML, student markup inert;
- ``formgrade``: the formgrader's view of one submission, nbgrader's own
  template with its head replaced: a Content-Security-Policy that lets only
  the formgrader's own scripts run (by hash), math as MathML, no CDN.

Listing the course's folder before nbgrader's makes those names resolve to
ours; nbgrader's formgrader package folder is a template path too, so ours can
extend nbgrader's as ``templates/formgrade/index.html.j2``. The course
directory's ``nbgrader_config.py`` reaches the formgrader's exporter (it
is loaded from the folder the formgrader starts in), so this applies there.

nbgrader makes a new exporter for every student's feedback page, and with it a
new jinja environment that would compile the same templates again (about a
tenth of a page's time): :class:`FeedbackExporter` keeps the compiled
templates for the process, in jinja's own bytecode cache.
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from nbconvert.exporters import HTMLExporter
from traitlets.config import Config

TEMPLATES = Path(__file__).resolve().parent / "templates"
FILTERS = {
    "mathml": "instructor.reporting.rendering.mathml",
    "content_security_policy": "instructor.reporting.rendering.content_security_policy",
    "without_font_faces": "instructor.reporting.rendering.without_font_faces",
    "side_by_side": "instructor.reporting.rendering.side_by_side",
}


class CompiledTemplates(BytecodeCache):
    """Compiled templates kept in memory for the life of the process, by jinja's key (a template's name and
    file; jinja checks the source's checksum before it uses them)."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


#: one for every feedback exporter of the process
COMPILED = CompiledTemplates()


class FeedbackExporter(HTMLExporter):
    """nbconvert's HTML exporter whose templates are compiled once per process (:data:`COMPILED`)."""

    @property
    def environment(self):
        environment = super().environment
        environment.bytecode_cache = COMPILED
        return environment


def use_course_templates(c: Config) -> Config:
    import nbgrader

    formgrader = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
    c.HTMLExporter.extra_template_basedirs = [str(TEMPLATES), str(formgrader / "templates")]
    c.HTMLExporter.extra_template_paths = [str(formgrader)]  # "templates/formgrade/index.html.j2" is nbgrader's
    c.HTMLExporter.filters = dict(FILTERS)
    # the formgrader's view carries the course's figures as data; generate_feedback runs this list
    # first and then its own chain, which holds the same step again (a no-op by then: the second
    # pass finds no figures/ reference left; both stay so either page works alone)
    c.HTMLExporter.preprocessors = ["instructor.reporting.feedback.preprocessors.inline_figures.InlineFigures"]
    c.GenerateFeedback.exporter_class = FeedbackExporter
    return c
