"""Each student's own parameters of an assignment: the ``variants.json`` its release carries.

An assignment whose code calls :func:`course.draws.variant` gives every
student her own parameters (a key length, a range of digits). Her kernel
draws them from her *variant seed*, which it finds by her account name in
``variants.json`` beside the notebook; this module writes that file into
``source/<a>/`` before nbgrader generates the release, with the seed of every
student on the course directory's roster
(:func:`~instructor.coursedir.hidden_seed.variant_seed_for`: the course's
key, the assignment and the student).

The seeds are no secret (each only picks a student's parameters, which she
sees), and the autograder never reads the file: it derives the seed of the
student it grades itself. A student missing from the file (she joined after
the release) works with the author's parameters, and her kernel says so,
until the assignment is released again; her grade comes from her own code
run again with her own parameters.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from course.draws import VARIANTS_FILE
from instructor.coursedir.course_dir import CourseDir
from instructor.coursedir.hidden_seed import key_file, read_key, variant_seeds
from instructor.coursedir.roster import roster

#: a code cell that draws a variant: ``from course.draws import variant`` or ``course.draws.variant(...)``
_DRAWS_VARIANT = re.compile(r"\bfrom\s+course\.draws\s+import\b[^\n]*\bvariant\b|\bcourse\.draws\.variant\b")


def uses_variants(nb) -> bool:
    """Does notebook ``nb`` draw students' own parameters (:func:`course.draws.variant`)?"""
    return any(c.cell_type == "code" and _DRAWS_VARIANT.search(c.source) for c in nb.cells)


def write_variants(course_dir: CourseDir, assignment: str, folder: Path) -> int:
    """Write ``folder/variants.json``: the variant seed of each student on ``course_dir``'s roster in
    ``assignment``. Returns how many students it holds (0 without a roster: every kernel then says so)."""
    students = roster(course_dir) or set()
    seeds = variant_seeds(read_key(key_file(course_dir)), assignment, students) if students else {}
    text = {
        "about": (
            "Each student's own parameters of this assignment are drawn from her seed here (course.draws.variant). "
            "Editing it changes only what your own kernel shows you: the grader uses your own seed."
        ),
        "assignment": assignment,
        "students": seeds,
    }
    (folder / VARIANTS_FILE).write_text(json.dumps(text, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return len(seeds)
