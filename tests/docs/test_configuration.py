"""Does docs/configuration.md list exactly the settings the code defines, with their types and defaults?

Each table of the page follows a MyST comment naming its source in the code
(``% fields of MODULE.CLASS`` for a dataclass, ``% traits set by ...`` for the
nbgrader settings); a field or setting added to the code and not to the page,
or left on the page after the code dropped it, fails here.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path

from traitlets.config import Config

from instructor.paths import REPO_ROOT

PAGE = REPO_ROOT / "docs" / "configuration.md"


def _rows(source: str) -> list[list[str]]:
    """The table that follows ``% <source>``: its body rows, split into cells (code marks kept)."""
    lines = PAGE.read_text().splitlines()
    start = lines.index(f"% {source}")
    rows, seen_table = [], False
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            seen_table = True
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            rows.append(cells)
        elif seen_table:
            break
    return rows[2:]  # header and rule


def _code(cell: str) -> str:
    """`name` -> name."""
    return cell.strip().strip("`")


def _resolve(dotted: str):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _default(f: dataclasses.Field) -> str:
    if f.default is not dataclasses.MISSING:
        return f"`{f.default!r}`"
    if f.default_factory is not dataclasses.MISSING:
        return f"`{f.default_factory()!r}`"
    return "required"


def _dataclass_sources() -> list[str]:
    return re.findall(r"^% fields of (\S+)$", PAGE.read_text(), flags=re.M)


def test_the_page_names_its_dataclasses():
    """Does the page document the course settings, the sandbox limits and the hub's settings?"""
    assert set(_dataclass_sources()) == {
        "instructor.coursedir.directory.Settings",
        "instructor.sandbox.limits.Limits",
        "instructor.hub.config.HubSettings",
    }


def test_every_field_with_its_type_and_default():
    """Is every field of each dataclass a row (name, type, default), and every row a field?"""
    for source in _dataclass_sources():
        cls = _resolve(source)
        rows = {_code(r[0]): r for r in _rows(f"fields of {source}")}
        fields = {f.name: f for f in dataclasses.fields(cls)}
        assert set(rows) == set(fields), (
            f"{source}: in the code only {set(fields) - set(rows)}, on the page only {set(rows) - set(fields)}"
        )
        for name, f in fields.items():
            assert _code(rows[name][1]) == str(f.type), (
                f"{source}.{name}: type {rows[name][1]} on the page, {f.type} in the code"
            )
            assert rows[name][2] == _default(f), (
                f"{source}.{name}: default {rows[name][2]} on the page, {_default(f)} in the code"
            )


def _course_dir_settings(tmp_path) -> set[str]:
    """The nbgrader settings a course directory's own data gives (load_config beyond the course's fixed ones)."""
    from instructor.coursedir import directory
    from instructor.coursedir.nbgrader_settings import configure_course

    directory.init(tmp_path / "cd", exchange=tmp_path / "ex")
    loaded = directory.load_config(tmp_path / "cd")
    fixed = configure_course(Config(), tmp_path / "cd")
    return {f"{s}.{t}" for s in loaded for t in loaded[s]} - {f"{s}.{t}" for s in fixed for t in fixed[s]}


def test_every_nbgrader_setting_the_course_writes(tmp_path):
    """Is every nbgrader setting the course writes on the page once (fixed, or a course directory's own)?"""
    from instructor.settings import configure

    applied = configure(Config(), Path("/course"))
    own_data = _course_dir_settings(tmp_path)
    written = {f"{section}.{trait}" for section in applied for trait in applied[section]} | own_data
    fixed = {
        _code(r[0])
        for r in _rows("traits set by instructor.settings.configure and instructor.coursedir.directory.load_config")
    }
    own = {_code(r[3]) for r in _rows("fields of instructor.coursedir.directory.Settings")}
    assert not fixed & own, f"listed twice: {fixed & own}"
    assert fixed | own == written, (
        f"in the code only {written - fixed - own}, on the page only {(fixed | own) - written}"
    )
    assert own <= own_data, f"not written by `course init`: {own - own_data}"


def test_every_option_named_exists():
    """Does every `course <verb> --option` of the page exist in the parser?"""
    from tests.docs.test_commands_named import unknown_options

    assert unknown_options(PAGE) == []


def test_the_hub_options_exist():
    """Is every option the hub's table names one that `course hub` accepts?"""
    from tests.docs.test_commands_named import verbs

    named = {_code(r[3]) for r in _rows("fields of instructor.hub.config.HubSettings")}
    assert {o for o in named if o.startswith("--")} - verbs()["hub"] == set()


def test_the_hub_collects_limits():
    """Is every setting of the hub's collect (a trait of OwnedCollect itself) a row with its type and default?"""
    from instructor.hub.collect import OwnedCollect

    own = {name: trait for name, trait in OwnedCollect.class_own_traits().items() if trait.metadata.get("config")}
    rows = {_code(r[0]): r for r in _rows("traits of instructor.hub.collect.OwnedCollect")}
    assert set(rows) == set(own), f"in the code only {set(own) - set(rows)}, on the page only {set(rows) - set(own)}"
    for name, trait in own.items():
        assert _code(rows[name][1]) == type(trait).__name__, name
        assert rows[name][2] == f"`{trait.default_value!r}`", name
