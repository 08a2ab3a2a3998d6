"""System packages the suite needs: fail under CI=true, skip (saying why) elsewhere."""

from __future__ import annotations

import os
import shutil

import pytest


def in_ci() -> bool:
    """CI=true (or any value but the false ones): what the suite needs must be there."""
    return os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no", "off"}


def missing(what: str) -> None:
    """A system package is missing: CI must have it (scripts/install-system-packages.sh)."""
    if in_ci():
        pytest.fail(f"CI must have {what} (scripts/install-system-packages.sh)")
    pytest.skip(f"not on this machine: {what} (sudo bash scripts/install-system-packages.sh)")


def require_root(why: str) -> None:
    """The test acts as root (``why``: what for): CI runs as root and must run it; another user skips it, saying
    so (the rest of the suite runs as any user)."""
    if os.geteuid() == 0:
        return
    if in_ci():
        pytest.fail(f"CI must run this test as root: {why}")
    pytest.skip(f"needs root: {why} (run the suite as root to include it)")


def require_tools(*tools: str) -> None:
    """Each command of ``tools`` on the PATH, or fail/skip as :func:`missing` says."""
    for tool in tools:
        if not shutil.which(tool):
            missing(tool)


def require_sandbox():
    """The grading sandbox's isolation, or fail/skip as :func:`missing` says."""
    from instructor import sandbox

    isolation = sandbox.detect()
    if not isolation.safe:
        require_root("the grading sandbox switches to its own users and makes cgroups")
        missing(f"the grading sandbox ({isolation.detail})")
    return isolation
