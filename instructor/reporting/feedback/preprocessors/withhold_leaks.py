"""Withhold any output that quotes a hidden test or the reference solution."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool, Int

from instructor.cells import hidden_lines, solution_lines
from instructor.reporting.feedback.preprocessors.hide_hidden_test_outputs import withheld

NOTE = "[output withheld: it quoted hidden tests or the reference solution]\n"


class WithholdLeaks(Preprocessor):
    """Check every output before it is written: one that contains a secret line is replaced.

    Secret lines: the hidden tests (collected by ``HideHiddenTestOutputs`` or
    read from the notebook) and the reference solution (read from the
    course's source notebook when nbgrader's course directory has it). Lines
    shorter than ``min_chars`` are too common to count (``return x``).
    """

    enabled = Bool(True).tag(config=True)
    min_chars = Int(16, help="shortest secret line that is looked for").tag(config=True)

    def _source_notebook(self, resources):
        try:
            from nbgrader.coursedir import CourseDirectory

            info = resources["nbgrader"]
            coursedir = CourseDirectory(config=self.config)
            path = (
                Path(coursedir.format_path(coursedir.source_directory, ".", info["assignment"]))
                / f"{info['notebook']}.ipynb"
            )
            return nbformat.read(str(path), as_version=4) if path.is_file() else None
        except (KeyError, OSError, ValueError):
            return None

    def preprocess(self, nb, resources):
        secrets = set(withheld(resources).hidden_lines)
        for cell in nb.cells:
            secrets.update(hidden_lines(cell.source))
        source = self._source_notebook(resources)
        if source is not None:
            for cell in source.cells:
                secrets.update(hidden_lines(cell.source))
            secrets.update(solution_lines(source))
        secrets = {s for s in secrets if len(s) >= self.min_chars}
        if not secrets:
            return nb, resources
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            outputs = []
            for out in cell.get("outputs", []):
                text = json.dumps(out, ensure_ascii=False)
                # json escapes quotes and newlines; compare against both spellings
                if any(s in text or json.dumps(s, ensure_ascii=False)[1:-1] in text for s in secrets):
                    outputs.append(new_output("stream", name="stdout", text=NOTE))
                else:
                    outputs.append(out)
            cell.outputs = outputs
        return nb, resources
