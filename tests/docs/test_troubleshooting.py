"""Is every message docs/troubleshooting.md quotes one that the code can still print?

The page quotes messages in ``text`` code blocks, as the command prints them
(``course <verb>: ``, ``not graded: `` or ``flagged for review: `` before
the sentence), with ``<...>`` where a value goes. A quoted message matches
a string the code builds when it is that string whole, each of the
f-string's values standing for one word (a path) or one ``<...>``.
A message reworded in the code and not on the page fails here.
"""

from __future__ import annotations

import ast
import functools
import re

from instructor.paths import REPO_ROOT

PAGE = REPO_ROOT / "docs" / "troubleshooting.md"
#: what the command (or the staff's privileged path, `course-privileged`) or the grade table puts before the sentence
PREFIX = re.compile(r"^(course [a-z-]+|course-privileged|not graded|flagged for review): ")
GAP = "\x00"


def quoted() -> list[str]:
    """Every message of the page's ``text`` blocks, prefix removed."""
    blocks = re.findall(r"```text\n(.*?)```", PAGE.read_text(), flags=re.S)
    return [PREFIX.sub("", line) for block in blocks for line in block.splitlines() if line.strip()]


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else GAP for v in node.values)
    return None


@functools.lru_cache(maxsize=1)
def strings() -> tuple[str, ...]:
    """Every string and f-string of instructor/ (an f-string's values as gaps)."""
    found = []
    for path in sorted((REPO_ROOT / "instructor").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            text = _text(node)
            if text and len(text) > 3:
                found.append(text)
    return tuple(dict.fromkeys(found))


@functools.cache
def _pattern(code: str) -> tuple[re.Pattern, int]:
    """``code`` as a pattern (each gap one word: no space), and the length of its own words."""
    code = re.sub(r"<[^<>]*>", "_", code)  # a placeholder the code prints itself reads as the page's
    return re.compile(r"\S*?".join(re.escape(part) for part in code.split(GAP))), len(code.replace(GAP, ""))


def matches(message: str, code: str) -> bool:
    """True if ``message`` is ``code`` whole, each gap of ``code`` standing for one word or one ``<...>``.

    The code's own words must make at least half of the message's (outside
    ``<...>``): a string of little but gaps (``f"{a}: {b}"``) matches nothing.
    """
    pattern, words = _pattern(code)
    shown = re.sub(r"<[^<>]*>", "_", message)  # a value the page leaves open: one word
    return words * 2 >= len(shown) - shown.count("_") and pattern.fullmatch(shown) is not None


def test_the_page_quotes_messages():
    """Does the page quote a fair number of messages (so a broken pattern cannot pass it empty)?"""
    assert len(quoted()) >= 50


def test_matching_needs_the_whole_string():
    """Does a message match only the whole string, with any text in its gaps?"""
    code = f"{GAP} is not a course directory yet: run `course init {GAP}` first."
    assert matches("<dir> is not a course directory yet: run `course init <dir>` first.", code)
    assert matches("/srv/grading is not a course directory yet: run `course init /srv/grading` first.", code)
    assert not matches("<dir> is not a course folder yet: run `course init <dir>` first.", code)
    assert not matches("<dir> is not a course directory yet", code)
    assert not matches("<dir> has no gradebook: run `course grade` first.", f"{GAP}: {GAP}")


def test_every_quoted_message_is_in_the_code():
    """Is every message the page quotes built somewhere in instructor/?"""
    every = strings()
    missing = [m for m in quoted() if not any(matches(m, s) for s in every)]
    assert missing == []


def test_a_changed_word_no_longer_matches():
    """Does each quoted message fail to match once one of its words is changed (the check is not vacuous)?"""
    every = strings()
    for message in quoted():
        words = list(re.finditer(r"(?<=\s)[a-z]{4,}(?=[\s,.;:)])", message))
        if not words:
            continue
        last = words[-1]  # the end of a sentence is the code's own words more often than its start
        changed = message[: last.end()] + "x" + message[last.end() :]
        assert not any(matches(changed, s) for s in every), changed
