"""Where a grading workspace keeps its gradebook: one function, used everywhere.

Every reader and writer of grades (``course grade``, ``export``, ``feedback``,
the preprocessors, nbgrader's own commands through the workspace's
configuration) asks :func:`url` for the database, so that SQLite in the
workspace and a shared server (PostgreSQL) are one setting apart.
"""

from __future__ import annotations

from pathlib import Path

from course.errors import CourseError

#: the default: an SQLite file inside the workspace (nbgrader's own default name)
SQLITE_NAME = "gradebook.db"


def url(workspace: Path, db: str | None = None) -> str:
    """The SQLAlchemy URL of the workspace's gradebook.

    ``db`` (``--db URL``, e.g. ``postgresql://host/seqmodels``) wins; else
    ``CourseDirectory.db_url`` of the directory's nbgrader_config.py (what
    nbgrader's own tools read there); else an SQLite file inside it.
    """
    if db:
        return db
    from course.coursedir import configured_db_url  # coursedir imports nothing from here

    return configured_db_url(Path(workspace)) or f"sqlite:///{Path(workspace) / SQLITE_NAME}"


def exists(db_url: str) -> bool:
    """False for an SQLite file not made yet (nothing graded); a server's database is taken as there."""
    return not db_url.startswith("sqlite:///") or Path(db_url[len("sqlite:///"):]).exists()


def require(workspace: Path, db: str | None = None) -> str:
    """:func:`url`, or a one-sentence error if nothing has been graded there yet."""
    db_url = url(workspace, db)
    if not exists(db_url):
        raise CourseError(f"{workspace} has no gradebook: run `course grade` first.")
    return db_url


def check_server(db: str | None) -> None:
    """For ``--db URL``: one sentence if the database cannot be opened (nothing to check for SQLite)."""
    if not db:
        return
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    try:
        shown = make_url(db).render_as_string(hide_password=True)
    except Exception:  # SQLAlchemy raises several types for a malformed URL
        raise CourseError(f"--db {db!r} is not a database URL (e.g. postgresql://user@host/seqmodels).") from None
    try:
        engine = create_engine(db)
        with engine.connect():
            pass
        engine.dispose()
    except Exception as err:  # driver errors come in many types; the first line says enough
        first = (str(err).strip().splitlines() or [type(err).__name__])[0][:160]
        raise CourseError(f"cannot open the gradebook database {shown} ({first}).") from None
