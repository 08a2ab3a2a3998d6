"""What the figures' tests share: a headless backend and the figures ``plt.show()`` was asked to show."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest


@pytest.fixture
def shown(monkeypatch):
    """The figures that ``plt.show()`` was asked to show, in order (closed after the test)."""
    figures = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: figures.append(plt.gcf()))
    yield figures
    plt.close("all")
