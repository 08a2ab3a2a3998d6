"""The bundle's README.md: what a student reads first.

Set up a venv, install the helpers, start JupyterLab, work, validate, hand
in. It speaks only of what the bundle holds
(:func:`instructor.authoring.bundle.verify_bundle` refuses it otherwise).
"""

from __future__ import annotations


def readme(names: list[str]) -> str:
    """The bundle's README: set up a venv, install (again with each new bundle), start JupyterLab, work,
    validate, hand in."""
    notebooks = [f"`{name}/{name}.ipynb`" for name in names]
    order = notebooks[0] if len(notebooks) == 1 else ", then ".join(notebooks) + ", in this order"
    return f"""# Sequence models: {", ".join(names)}

Each assignment is a folder with its notebook (and its data). `helpers/` is a small
package the notebooks import; installing it also installs JupyterLab and everything else
they need.

## Set up (once)

You need Python 3.11 or 3.12. Open a terminal in this folder and make a virtual
environment (a private set of packages, here in `.venv`), activate it, and install:

Linux and macOS:

```bash
python3 -m venv .venv
source .venv/bin/activate
pip install ./helpers
```

Windows:

```bat
py -m venv .venv
.venv\\Scripts\\activate
pip install ./helpers
```

(With several Pythons, name one: `python3.12 -m venv .venv`, or `py -3.12 -m venv .venv` on Windows.)

## Each new bundle

Each new bundle brings its own `helpers/`, with modules the earlier ones lacked. Open a
terminal in the new bundle's folder, activate your environment and install them again,
or its notebooks stop with `ModuleNotFoundError`:

```bash
pip install ./helpers
```

## Work

Each time: open a terminal in this folder, activate the environment (the `activate` line
above), and start JupyterLab:

```bash
jupyter lab
```

Open {order}. Replace every `raise NotImplementedError()` with your code, run the
self-check cell under it, then the test cells that follow.

Training cells take minutes; each prints a line every 30 s with the time left. To run a
whole notebook in seconds (short training, same
tests), start JupyterLab in quick mode: `COURSE_QUICK=1 jupyter lab` (Windows: run
`set COURSE_QUICK=1` first, or `$env:COURSE_QUICK=1` in PowerShell).

## Validate, then hand in

Click **Validate** in the notebook's toolbar. It saves the notebook and runs all of it in
a fresh kernel, as the grader will, in quick mode (short training); then it shows each
of the tests that fail, with its error, and each written answer left empty, or says
that your notebook passes all the tests. It runs the tests you can see; the grader
also runs a few hidden ones.

Hand in the notebook (`.ipynb`), under its own name, as your instructor asks.
"""
