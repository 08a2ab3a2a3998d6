"""Explorers: small ipywidgets panels to play with a trained model (ungraded).

Each explorer takes plain callables, so a notebook wires it to its own model
in a few lines and this module knows nothing about MyGrad or the models:

- :func:`sequence_explorer` (03_attention): pick a number of digits, see a
  fresh sequence decoded and the decoder's attention over the source;
- :func:`cipher_explorer` (04_transformer): type a message, see it encrypted,
  decrypted by the model, and the attention of one layer and head (or the
  mean over layers or heads) for it.

Where nobody watches (grading, CI, quick mode outside JupyterLab:
``course.runtime.is_headless()``) or ipywidgets is missing, an explorer prints
one line, shows nothing and returns None. Otherwise it returns the widget, so
that it shows as the value of the cell.

Attention is drawn by the course's one heat map
(:func:`course.figures.attention.draw_attention`), off screen with Agg and
sent as PNG, so the explorers do not depend on the notebook's matplotlib
backend.
"""

from __future__ import annotations

import html
import importlib.util
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from course.figures.attention import draw_attention, figure_size
from course.figures.display import figure_png
from course.runtime import is_headless

__all__ = ["sequence_explorer", "cipher_explorer", "skip_reason"]

MEAN = "mean"  # the choice that averages over all layers, or all heads


def skip_reason() -> str | None:
    """Why an explorer would not show here, or None when it can."""
    if is_headless():
        return "nobody watches this run (grading, CI, or quick mode outside JupyterLab)"
    if importlib.util.find_spec("ipywidgets") is None:
        return "ipywidgets is not installed (pip install ipywidgets)"
    return None


def _skipped(name: str) -> bool:
    reason = skip_reason()
    if reason is not None:
        print(f"{name} skipped: {reason}.")  # stdout: graded runs score stderr as failure
    return reason is not None


def _squeeze_batch(a, ndim: int) -> np.ndarray:
    """Drop trailing axes of size 1 (a batch of one) until ``a`` has ``ndim`` axes."""
    a = np.asarray(a)
    while a.ndim > ndim and a.shape[-1] == 1:
        a = a[..., 0]
    if a.ndim != ndim:
        raise ValueError(f"expected {ndim} axes (plus a batch axis of 1), got shape {a.shape}")
    return a


def _attention_png(weights, queries, keys, title: str, query_axis: str, key_axis: str) -> bytes:
    """The course's heat map of attention weights (t, T) as a PNG (:func:`course.figures.attention.draw_attention`)."""
    fig = Figure(figsize=figure_size(weights), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    image = draw_attention(ax, weights, queries, keys, title=title, query_axis=query_axis, key_axis=key_axis)
    fig.colorbar(image, ax=ax, shrink=0.8, label="weight")
    return figure_png(fig, dpi=90)


def _marked(text: str, reference: str) -> str:
    """HTML for ``text`` with every character that differs from ``reference`` in red."""
    out = []
    for i, ch in enumerate(text):
        shown = html.escape(ch if ch != " " else "\u2423")  # ␣: spaces stay visible
        wrong = i >= len(reference) or ch != reference[i]
        out.append(f'<span style="color:#c62828;font-weight:bold">{shown}</span>' if wrong else shown)
    return "".join(out)


def _NATURAL_SIZE():
    """A layout that shows a picture at its own size (a VBox would stretch it to the full width)."""
    import ipywidgets as widgets

    return widgets.Layout(align_self="flex-start", max_width="100%")


def _row(label: str, value_html: str) -> str:
    return f"<tr><td style='padding-right:1em'><b>{label}</b></td><td><code>{value_html}</code></td></tr>"


def _right(guess, truth) -> int:
    """How many positions of ``guess`` hold the symbol of ``truth`` (a guess may be shorter or longer)."""
    return sum(a == b for a, b in zip(guess, truth, strict=False))


def _score(guess: str, truth: str) -> str:
    return f"{_right(guess, truth)} of {len(truth)} right" + (" \u2714" if guess == truth else "")


def sequence_explorer(
    make_sequence: Callable[[int], tuple],
    decode: Callable[[np.ndarray], np.ndarray],
    attention: Callable[[np.ndarray], np.ndarray],
    token_names: Sequence[str],
    lengths: Sequence[int] = range(1, 21),
    length: int = 12,
):
    """Pick a number of digits; see a fresh sequence, the model's output and its attention map.

    Parameters
    ----------
    make_sequence : Callable[[int], Tuple[numpy.ndarray, numpy.ndarray]]
        L -> (x, target): a fresh one-hot source of L tokens plus the end
        token, shape=(T, 1, C) with T = L + 1, and its target tokens,
        shape=(T, 1) or (T,).
    decode : Callable[[numpy.ndarray], numpy.ndarray]
        x -> the model's output tokens, shape=(t, 1) or (t,).
    attention : Callable[[numpy.ndarray], numpy.ndarray]
        x -> the attention weights, shape=(t, T, 1) or (t, T): row i holds the
        weights that decoder step i puts on the T encoder steps.
    token_names : Sequence[str]
        The name of every token index, e.g. ``[*"0123456789", "<S>", "<E>"]``.
    lengths : Sequence[int]
        The numbers of digits the slider offers.
    length : int
        The number of digits shown first.

    Returns
    -------
    Optional[ipywidgets.VBox]
        The explorer, or None where it is skipped (see :func:`skip_reason`).
    """
    if _skipped("The sequence explorer"):
        return None
    import ipywidgets as widgets

    lengths = list(lengths)
    slider = widgets.IntSlider(
        value=min(max(length, lengths[0]), lengths[-1]),
        min=lengths[0],
        max=lengths[-1],
        description="digits",
        continuous_update=False,
    )
    again = widgets.Button(description="new sequence", icon="refresh")
    text = widgets.HTML()
    picture = widgets.Image(format="png", layout=_NATURAL_SIZE())
    text.add_class("course-explorer-text")
    picture.add_class("course-explorer-image")

    def name(tokens) -> list[str]:
        return [token_names[int(i)] for i in tokens]

    def show(*_):
        try:
            x, target = make_sequence(int(slider.value))
            source = name(np.asarray(x).argmax(axis=-1).reshape(-1))
            truth = name(_squeeze_batch(target, 1))
            guess = name(_squeeze_batch(decode(x), 1))
            weights = _squeeze_batch(attention(x), 2)
            ok = guess == truth
            text.value = (
                "<table>"
                + "".join(
                    [
                        _row("source", html.escape(" ".join(source))),
                        _row("target", html.escape(" ".join(truth))),
                        _row(
                            "output",
                            " ".join(
                                _marked(g, g if i < len(truth) and g == truth[i] else "") for i, g in enumerate(guess)
                            ),
                        ),
                        _row(
                            "",
                            "all right \u2714" if ok else f"{_right(guess, truth)} of {len(truth)} tokens right",
                        ),
                    ]
                )
                + "</table>"
            )
            picture.value = _attention_png(
                weights,
                guess[: weights.shape[0]],
                source[: weights.shape[1]],
                "attention weights of every decoder step",
                "decoder step (the token it writes)",
                "source token (encoder step)",
            )
        except Exception as error:  # show it where the student looks, not in the browser's log
            text.value = f"<b style='color:#c62828'>{html.escape(type(error).__name__)}: {html.escape(str(error))}</b>"

    slider.observe(show, names="value")
    again.on_click(show)
    show()
    box = widgets.VBox([widgets.HBox([slider, again]), text, picture])
    box.add_class("course-explorer")
    box.parts = {"length": slider, "again": again, "text": text, "picture": picture, "refresh": show}
    return box


def _panels(found: Mapping) -> dict[str, tuple[np.ndarray, list[str] | None, list[str] | None]]:
    """Normalise the attention callable's answer to {panel: (weights (L, h, t, T), rows, columns)}."""
    panels = {}
    for panel, value in found.items():
        rows = columns = None
        if isinstance(value, tuple):
            value, rows, columns = value
        weights = np.asarray(value, dtype=np.float32)
        if weights.ndim != 4:
            raise ValueError(f"{panel}: expected weights of shape (layers, heads, t, T), got {weights.shape}")
        panels[panel] = (weights, None if rows is None else list(rows), None if columns is None else list(columns))
    if not panels:
        raise ValueError("the attention function returned no attention weights")
    return panels


def cipher_explorer(
    encrypt: Callable[[str], str],
    decrypt: Callable[[str], str],
    attention: Callable[[str], Mapping],
    message: str = "meet me by the old mill",
):
    """Type a message; see it encrypted, decrypted by the model, and one head's attention for it.

    Parameters
    ----------
    encrypt : Callable[[str], str]
        message -> cipher text, as long as the message (e.g. ``cipher(m, KEY)``).
    decrypt : Callable[[str], str]
        cipher text -> the model's plain text (e.g. ``decrypt_with_model(c, model)``).
    attention : Callable[[str], Mapping[str, weights]]
        cipher text -> {panel name: weights}, one entry per kind of attention
        (e.g. "encoder self-attention"). ``weights`` is an array of
        shape=(L, h, t, T): L layers, h heads, t queries, T keys; or a tuple
        ``(array, query_labels, key_labels)`` with t and T labels.
    message : str
        The message shown first.

    Returns
    -------
    Optional[ipywidgets.VBox]
        The explorer, or None where it is skipped (see :func:`skip_reason`).
    """
    if _skipped("The cipher explorer"):
        return None
    import ipywidgets as widgets

    typed = widgets.Text(
        value=message, description="message", continuous_update=False, layout=widgets.Layout(width="32em")
    )
    panel = widgets.Dropdown(description="attention", options=[])
    layer = widgets.Dropdown(description="layer", options=[MEAN])
    head = widgets.Dropdown(description="head", options=[MEAN])
    text = widgets.HTML()
    picture = widgets.Image(format="png", layout=_NATURAL_SIZE())
    text.add_class("course-explorer-text")
    picture.add_class("course-explorer-image")
    state: dict[str, dict] = {"panels": {}}
    busy = {"now": False}  # options change while we rebuild them: draw once, at the end

    def draw(*_):
        if busy["now"] or not state["panels"] or panel.value not in state["panels"]:
            return
        try:
            weights, rows, columns = state["panels"][panel.value]
            w = weights.mean(axis=0) if layer.value == MEAN else weights[layer.value]
            w = w.mean(axis=0) if head.value == MEAN else w[head.value]
            t, T = w.shape
            rows = rows if rows is not None and len(rows) == t else [str(i) for i in range(t)]
            columns = columns if columns is not None and len(columns) == T else [str(j) for j in range(T)]
            which = f"layer {layer.value}" if layer.value != MEAN else "mean of the layers"
            which += f", head {head.value}" if head.value != MEAN else ", mean of the heads"
            picture.value = _attention_png(w, rows, columns, f"{panel.value}: {which}", "query", "key")
        except Exception as error:
            text.value += (
                f"<br><b style='color:#c62828'>{html.escape(type(error).__name__)}: {html.escape(str(error))}</b>"
            )

    def choices(n: int) -> list:
        return [MEAN, *range(n)]

    def run(*_):
        try:
            secret = encrypt(typed.value)
            guess = decrypt(secret)
            text.value = (
                "<table>"
                + _row("encrypted", _marked(secret, secret))
                + _row("decrypted", _marked(guess, typed.value))
                + _row("", _score(guess, typed.value))
                + "</table>"
            )
            state["panels"] = _panels(attention(secret))
        except Exception as error:  # e.g. a character outside the alphabet: say so in the panel
            state["panels"] = {}
            text.value = f"<b style='color:#c62828'>{html.escape(type(error).__name__)}: {html.escape(str(error))}</b>"
            return
        busy["now"] = True
        try:
            names = list(state["panels"])
            if list(panel.options) != names:
                panel.options = names
            if panel.value not in names:
                panel.value = names[0]
            weights = state["panels"][panel.value][0]
            for box, n in ((layer, weights.shape[0]), (head, weights.shape[1])):
                if list(box.options) != choices(n):
                    kept = box.value
                    box.options = choices(n)
                    box.value = kept if kept in box.options else MEAN
        finally:
            busy["now"] = False
        draw()

    typed.observe(run, names="value")
    for box in (panel, layer, head):
        box.observe(draw, names="value")
    run()
    box = widgets.VBox([typed, widgets.HBox([panel, layer, head]), text, picture])
    box.add_class("course-explorer")
    box.parts = {"message": typed, "panel": panel, "layer": layer, "head": head, "text": text, "picture": picture}
    return box
