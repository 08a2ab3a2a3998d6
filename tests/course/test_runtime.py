"""Quick mode, whether anybody watches, and the process settings for MyGrad training."""

from __future__ import annotations

import gc
import os
import platform
import subprocess
import sys

import pytest

from course import runtime


@pytest.mark.parametrize(
    "env, headless",
    [
        ({}, False),
        ({"COURSE_QUICK": "1"}, True),
        ({"COURSE_QUICK": "1", "JPY_SESSION_NAME": "01_rnn/01_rnn.ipynb"}, False),
        ({"JPY_SESSION_NAME": "01_rnn/01_rnn.ipynb", "CI": "true"}, True),
        ({"JPY_SESSION_NAME": "01_rnn/01_rnn.ipynb", "NBGRADER_EXECUTION": "validate"}, True),
        ({"NBGRADER_EXECUTION": "autograde"}, True),
        ({"CI": "true"}, True),
    ],
)
def test_headless_switch(monkeypatch, env, headless):
    """Is a run headless when graded, in CI, or quick outside a JupyterLab session?"""
    for name in ("COURSE_QUICK", "NBGRADER_EXECUTION", "CI", "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert runtime.is_headless() is headless


@pytest.mark.parametrize(
    "env, quick",
    [
        ({}, False),
        ({"COURSE_QUICK": "1"}, True),
        ({"COURSE_QUICK": "0"}, False),
        ({"NBGRADER_EXECUTION": "autograde"}, True),
        ({"NBGRADER_EXECUTION": "validate"}, True),
    ],
)
def test_quick_mode_switch(monkeypatch, env, quick):
    """Does COURSE_QUICK, or autograding, select the quick values?"""
    for name in ("COURSE_QUICK", "NBGRADER_EXECUTION", "CI"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert runtime.is_quick() is quick
    assert runtime.pick(full=10_000, quick=30) == (30 if quick else 10_000)


# --- process settings for MyGrad training: glibc's allocator and Python's garbage collector ---


@pytest.fixture
def fresh_allocator_flag(monkeypatch):
    monkeypatch.setattr(runtime, "_allocator_tuned", None)  # forget the call made at import
    monkeypatch.delenv(runtime.NO_MALLOC_TUNING, raising=False)


def test_allocator_tuning_is_glibc_only_and_never_fails(fresh_allocator_flag, monkeypatch):
    """mallopt on glibc; elsewhere (or switched off) a quiet False."""
    expected = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert runtime.tune_allocator() is expected
    assert runtime.tune_allocator() is expected  # once: the answer is remembered
    monkeypatch.setattr(runtime, "_allocator_tuned", None)
    monkeypatch.setattr(runtime.platform, "libc_ver", lambda *a, **k: ("musl", "1.2"))
    assert runtime.tune_allocator() is False


def test_allocator_tuning_can_be_switched_off(fresh_allocator_flag, monkeypatch):
    monkeypatch.setenv(runtime.NO_MALLOC_TUNING, "1")
    assert runtime.tune_allocator() is False


def test_allocator_tuning_survives_a_missing_libc(fresh_allocator_flag, monkeypatch):
    def no_library(*args, **kwargs):
        raise OSError("no libc.so.6 here")

    monkeypatch.setattr(runtime.platform, "system", lambda: "Linux")
    monkeypatch.setattr(runtime.platform, "libc_ver", lambda *a, **k: ("glibc", "2.36"))
    monkeypatch.setattr(runtime.ctypes, "CDLL", no_library)
    assert runtime.tune_allocator() is False


@pytest.fixture
def saved_gc(monkeypatch):
    threshold = gc.get_threshold()
    monkeypatch.setattr(runtime, "_gc_tuned", False)  # forget the call made at import
    yield
    gc.set_threshold(*threshold)


def test_gc_tuning_freezes_and_raises_the_young_threshold(saved_gc, monkeypatch):
    monkeypatch.delenv(runtime.NO_GC_TUNING, raising=False)
    gc.set_threshold(700, 10, 10)
    assert runtime.tune_gc() is True
    assert gc.get_threshold() == (runtime.GC_YOUNG_THRESHOLD, 10, 10)
    frozen = gc.get_freeze_count()
    assert frozen > 0
    built_later = [[i] for i in range(1000)]  # what a notebook builds after the import
    assert runtime.tune_gc() is True and gc.get_freeze_count() == frozen, "a second call must not freeze again"
    del built_later
    monkeypatch.setattr(runtime, "_gc_tuned", False)
    gc.set_threshold(0, 10, 10)  # a disabled collector stays disabled
    runtime.tune_gc()
    assert gc.get_threshold()[0] == 0


def test_gc_tuning_can_be_switched_off(saved_gc, monkeypatch):
    monkeypatch.setenv(runtime.NO_GC_TUNING, "1")
    gc.set_threshold(700, 10, 10)
    assert runtime.tune_gc() is False
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize("switched_off", [False, True])
def test_importing_course_tunes_the_process(switched_off):
    """``import course`` applies both settings once; the two variables keep Python's and glibc's defaults."""
    env = {k: v for k, v in os.environ.items() if k not in (runtime.NO_GC_TUNING, runtime.NO_MALLOC_TUNING)}
    if switched_off:
        env.update({runtime.NO_GC_TUNING: "1", runtime.NO_MALLOC_TUNING: "1"})
    probe = "import gc, course, course.runtime as r; print(gc.get_threshold()[0], r.tune_allocator())"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    young, tuned = out.stdout.split()
    glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert int(young) == (700 if switched_off else runtime.GC_YOUNG_THRESHOLD)
    assert tuned == str(glibc and not switched_off)
    assert out.stderr == ""


#: what a probe prints: the BLAS libraries' thread counts as threadpoolctl reads them
_BLAS_PROBE = "import threadpoolctl; print(sorted({i['num_threads'] for i in threadpoolctl.threadpool_info()}))"


def _blas_threads(first: str, **env: str) -> str:
    """The BLAS thread counts of a fresh process that runs ``first`` (an import order) then the probe."""
    clean = {k: v for k, v in os.environ.items() if k != runtime.BLAS_THREADS and k not in runtime._BLAS_VARIABLES}
    done = subprocess.run(
        [sys.executable, "-c", f"{first}; {_BLAS_PROBE}"], env={**clean, **env}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("first", ["import course, numpy", "import numpy, course"])
def test_importing_course_keeps_blas_to_one_thread(first):
    """One BLAS thread by default, whether NumPy was imported before ``course`` (threadpoolctl) or after (the
    library's own variable); the library's default is a thread per core, so on one core this shows nothing."""
    assert _blas_threads(first) == "[1]"
    if (os.cpu_count() or 1) > 1:
        assert _blas_threads("import numpy") != "[1]"


@pytest.mark.parametrize("first", ["import course, numpy", "import numpy, course"])
def test_blas_threads_are_the_users_to_set(first):
    """``COURSE_BLAS_THREADS=2`` gives two, ``0`` the library's own count, and a variable the user set for the
    library (``OPENBLAS_NUM_THREADS``) wins over the course's default."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: the library gives one thread whatever is asked")
    own = _blas_threads("import numpy")
    assert _blas_threads(first, COURSE_BLAS_THREADS="2") == "[2]"
    assert _blas_threads(first, COURSE_BLAS_THREADS="0") == own
    assert _blas_threads(first, OPENBLAS_NUM_THREADS="2") == "[2]"


def test_a_wrong_blas_thread_count_is_named():
    """``COURSE_BLAS_THREADS=two`` stops ``import course`` with one sentence that names the variable."""
    env = {**os.environ, runtime.BLAS_THREADS: "two"}
    done = subprocess.run([sys.executable, "-c", "import course"], env=env, capture_output=True, text=True)
    assert done.returncode == 1
    assert "COURSE_BLAS_THREADS must be a whole number of threads, 0 for the library's own, not 'two'" in done.stderr
