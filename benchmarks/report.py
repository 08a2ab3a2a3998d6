"""The bench's figures as one table."""

from __future__ import annotations

from benchmarks.against_torch import table as against_torch_table
from benchmarks.class_tools import table as class_tools_table
from benchmarks.classroom import table as class_table
from benchmarks.machine import blas_summary


def table(results: dict) -> str:
    """Every part that ran, then the machine."""
    lines = []
    models = results.get("models", {})
    if models:
        # speed is judged against PyTorch on the same machine (--against torch), not against fixed ms
        lines.append(f"{'model':30s} {'ms/step':>8s} {'steps':>7s} {'train s':>8s}  promise")
        for r in models.values():
            ok = "met" if r.get("reached") else "NOT met"
            lines.append(
                f"{r['model']:30s} {r['median_ms']:8.2f} {r['steps']:7d} {r['train_seconds']:8.1f}  "
                f"{r['promise']}: {ok}"
            )
            for key, value in r.items():
                if key.startswith("median_ms_"):
                    lines.append(f"{'':30s} {key[len('median_ms_') :].replace('_', ' ')}: {value:.2f} ms/step")
            if "accuracy_by_length" in r:
                acc = " ".join(f"{a:.2f}" for a in r["accuracy_by_length"])
                lines.append(f"{'':30s} accuracy by length 1-20: {acc}")
            for band, b in r.get("bands", {}).items():
                lines.append(
                    f"{'':30s} held out {band:>6s}: {b['per_character']:.4f} per character, "
                    f"{b['whole_message']:.4f} whole messages"
                )
            for band, b in r.get("own_sentences", {}).items():
                lines.append(
                    f"{'':30s} own sentences {band:>7s}: {b['per_character']:.4f} per character, "
                    f"{b['whole_right']} of {b['messages']} whole"
                )
    nbs = results.get("notebooks")
    if nbs:
        lines.append("")
        lines.append(f"{'notebook':16s} {'quick s':>8s} {'full s':>8s}")
        for name, r in nbs["per_notebook"].items():
            full = f"{r['full_seconds']:8.1f}" if "full_seconds" in r else f"{'-':>8s}"
            lines.append(f"{name:16s} {r['quick_seconds']:8.1f} {full}")
        lines.append(f"{'all, quick':16s} {nbs['total_quick_seconds']:8.1f}")
    ag = results.get("autograde")
    if ag:
        lines.append("")
        lines.append(f"{'autograde':16s} {'s/submission':>13s}")
        for name, r in ag["per_notebook"].items():
            lines.append(f"{name:16s} {r['serial_seconds_per_submission']:13.2f}")
        lines.append(f"{'all, serial':16s} {ag['serial_seconds_per_submission']:13.2f}")
        lines.append(
            f"{'no sandbox':16s} {ag['unsandboxed_seconds_per_submission']:13.2f}  "
            f"(sandbox overhead {ag['sandbox_overhead_percent']:+.1f} %, target <= 25 %)"
        )
        lines.append(f"{'all, ' + str(ag['jobs']) + ' jobs':16s} {ag['parallel_seconds_per_submission']:13.2f}")
    if results.get("class"):
        lines += class_table(results["class"])
    if results.get("class_tools"):
        lines += class_tools_table(results["class_tools"])
    if results.get("against_torch"):
        lines += against_torch_table(results["against_torch"])
    m = results["machine"]
    lines.append("")
    lines.append(
        f"machine: {m.get('cpu', 'unknown CPU')}, {m['cores']} cores, load {m['load_average_1min']}; "
        f"python {m['python']}, numpy {m['numpy']}, mygrad {m['mygrad']}, nbgrader {m['nbgrader']}"
    )
    lines.append(f"BLAS: {blas_summary(m)} (the bench uses 1 thread)")
    return "\n".join(lines)
