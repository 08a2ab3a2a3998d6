"""Show student HTML, scripts and SVG as text in feedback, never as markup."""

from __future__ import annotations

import html

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

#: output types a browser renders as text or as a plain image, never as markup
SAFE = ("text/plain", "image/png", "image/jpeg", "image/gif")


class EscapeStudentHTML(Preprocessor):
    """Escape markdown and raw cells; keep only plain text and bitmap images in outputs.

    A ``<script>``, an ``onerror=`` attribute or a fake score banner in a
    markdown cell or a ``text/html`` output would otherwise reach the feedback
    page as live markup. Locked course cells are escaped too: the feedback
    page loses some formatting, never safety.
    """

    enabled = Bool(True).tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type in ("markdown", "raw"):
            cell.source = html.escape(cell.source, quote=False)
            cell.pop("attachments", None)  # an SVG attachment can hold a script
            if cell.cell_type == "raw":
                cell.metadata.pop("format", None)
                cell.metadata.pop("raw_mimetype", None)
        for out in cell.get("outputs", []):
            data = out.get("data")
            if not data:
                continue
            dropped = [k for k in data if k not in SAFE]
            for key in dropped:
                del data[key]
            if dropped and not data:
                data["text/plain"] = f"[{', '.join(sorted(dropped))} output not shown]"
            out.get("metadata", {}).clear()
        return cell, resources


