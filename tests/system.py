"""System packages the suite needs: fail under CI=true, skip (saying why) elsewhere."""

from __future__ import annotations

import os

import pytest


def missing(what: str) -> None:
    """A system package is missing: CI must have it (scripts/install-system-packages.sh)."""
    if os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no", "off"}:
        pytest.fail(f"CI must have {what} (scripts/install-system-packages.sh)")
    pytest.skip(f"not on this machine: {what} (sudo bash scripts/install-system-packages.sh)")


def require_sandbox():
    """The grading sandbox's isolation, or fail/skip as :func:`missing` says."""
    from instructor import sandbox

    isolation = sandbox.detect()
    if not isolation.safe:
        missing(f"the grading sandbox ({isolation.detail})")
    return isolation
