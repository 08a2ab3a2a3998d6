"""Point nbgrader's feedback at the course's template (``templates/feedback/`` beside this module).

The template keeps nbgrader's name, ``feedback``, because nbgrader's API and
formgrader force ``HTMLExporter.template_name = "feedback"``; listing the
course's folder before nbgrader's own makes that name resolve to ours.
"""

from __future__ import annotations

from pathlib import Path

from traitlets.config import Config

TEMPLATES = Path(__file__).resolve().parent / "templates"


def use_feedback_template(c: Config) -> Config:
    import nbgrader

    nbgrader_templates = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
    c.HTMLExporter.extra_template_basedirs = [str(TEMPLATES), str(nbgrader_templates)]
    return c
