"""A new gradebook's schema version (instructor/coursedir/gradebook.py): nbgrader's, read without a process."""

from __future__ import annotations

import sqlite3
import subprocess
import sysconfig
from pathlib import Path

import nbgrader.api
import pytest
from nbgrader.dbutil import write_alembic_ini

from instructor.coursedir import gradebook


def _alembic_heads(tmp_path: Path) -> str:
    """What nbgrader itself would stamp: the first word of ``alembic heads`` on its migrations."""
    ini = tmp_path / "alembic.ini"
    write_alembic_ini(str(ini), f"sqlite:///{tmp_path / 'unused.db'}")
    alembic = Path(sysconfig.get_path("scripts")) / "alembic"
    done = subprocess.run([str(alembic), "-c", str(ini), "heads"], capture_output=True, text=True, check=True)
    return done.stdout.split()[0]


def test_a_new_gradebook_gets_nbgraders_version_without_an_alembic_process(tmp_path, monkeypatch):
    """Is a gradebook that nbgrader's Gradebook makes stamped with what `alembic heads` says, and is no process
    started for it (nbgrader's way: 2.5 s of CPU for every new gradebook)?"""
    expected = _alembic_heads(tmp_path)
    started = []
    monkeypatch.setattr(nbgrader.api.sp, "check_output", lambda *a, **k: started.append(a) or b"wrong\n")
    db = tmp_path / "gradebook.db"
    with nbgrader.api.Gradebook(f"sqlite:///{db}") as gb:
        gb.add_student("amy")
    with sqlite3.connect(db) as conn:
        assert conn.execute("select version_num from alembic_version").fetchall() == [(expected,)]
    assert started == []
    assert gradebook.schema_version() == expected


def test_no_migrations_is_a_broken_install_in_one_sentence(monkeypatch, tmp_path):
    """Without nbgrader's migration scripts, does the course say so, not stamp a gradebook with None?"""
    from instructor.errors import CourseError

    gradebook.schema_version.cache_clear()
    monkeypatch.setattr(gradebook, "ALEMBIC_DIR", str(tmp_path))
    (tmp_path / "versions").mkdir()
    try:
        with pytest.raises(CourseError, match=r"^nbgrader's gradebook migrations were not found in .*reinstall"):
            gradebook.schema_version()
    finally:
        gradebook.schema_version.cache_clear()
