"""The Markdown report of an evaluation, with its plots."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from probesmith.eval.registry import evaluation_for


def fmt(value) -> str:
    """A number for a report table: three decimals, or a dash for none."""
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def with_ci(value, ci) -> str:
    """An accuracy and its 95% interval: ``0.412 [0.380, 0.445]``."""
    return fmt(value) if not ci else f"{fmt(value)} [{ci[0]:.3f}, {ci[1]:.3f}]"


def render_report(result, folder: Path) -> str:
    """Markdown for ``result`` (an ``EvalResult``); plots are written into ``folder``."""
    m = result.metrics
    run = m.get("run", {})
    lines = [
        f"# Evaluation of `{result.model}` on `{result.probes}`",
        "",
        f"Family **{result.family}**, {run.get('kind', '')} LM; {result.statements} statements or questions "
        f"in {result.seconds:.1f} s ({run.get('statements_per_second')} /s). Per-item scores: "
        "`items.parquet`; every number below: `metrics.json`.",
        "",
    ]

    lines += evaluation_for(result.family).report(m, folder)
    return "\n".join(lines) + "\n"


def pyplot():
    """The pyplot module without a display (imported here: it is slow to import)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def multiple_choice_section(m: dict, folder: Path) -> list[str]:
    """The section of multiple-choice builds and AI2 JSONL: accuracies per config, heatmap of hops x type."""
    lines = [
        "Accuracies with their 95% Wilson intervals; chance is a uniform guess (1 / choices; for "
        "strict cluster accuracy, right on every item of the cluster).",
        "",
        "| config | n | chance | acc | acc (÷tokens) | acc (÷chars) | clusters | strict cluster acc | "
        "its chance |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for config, c in m["configs"].items():
        lines.append(
            f"| {config} | {c['n']} | {fmt(c['chance'])} | {with_ci(c['accuracy'], c['accuracy_ci95'])} | "
            f"{with_ci(c['accuracy_token_norm'], c['accuracy_token_norm_ci95'])} | "
            f"{with_ci(c['accuracy_char_norm'], c['accuracy_char_norm_ci95'])} | {c['clusters']} | "
            f"{with_ci(c['strict_cluster_accuracy'], c['strict_cluster_accuracy_ci95'])} | "
            f"{fmt(c['strict_cluster_chance'])} |"
        )
    cells = m["hop_distractor"]
    rows = sorted({(c["config"], c["hops"]) for c in cells})
    columns = ["all", *sorted({c["distractor_type"] for c in cells} - {"all"})]
    grid = np.full((len(rows), len(columns)), np.nan)
    for c in cells:
        grid[rows.index((c["config"], c["hops"])), columns.index(c["distractor_type"])] = c["accuracy"]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(1.6 + 1.1 * len(columns), 1.0 + 0.35 * len(rows)))
    image = ax.imshow(grid, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(columns)), columns, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), [f"{c} h{h}" for c, h in rows], fontsize=8)
    for (i, j), value in np.ndenumerate(grid):
        if not np.isnan(value):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7, color="w")
    fig.colorbar(image, ax=ax, label="accuracy (gold beats every distractor of the type)")
    fig.savefig(folder / "hop_distractor.png", dpi=120, bbox_inches="tight")
    plt.close(fig)
    return [
        *lines,
        "",
        "## Accuracy by hops x distractor type",
        "",
        "A cell counts an item as right when the gold's score beats every distractor of that type; "
        "`all` is instance accuracy.",
        "",
        "![hops x distractor type](hop_distractor.png)",
    ]


def bar_chart(
    names: list[str],
    series: dict[str, list[float]],
    path: Path,
    ylabel: str,
    intervals: dict[str, list] | None = None,
    chance: list[float] | None = None,
) -> None:
    """Grouped bars with 95% intervals as error bars and chance as a dashed mark.

    ``intervals`` maps a series to one [low, high] per bar; ``chance`` has one rate per name.
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(max(4.0, 0.35 * len(names) * len(series)), 3.2))
    width = 0.8 / len(series)
    for k, (label, values) in enumerate(series.items()):
        ci = (intervals or {}).get(label)
        errors = None
        if ci:
            errors = np.array(
                [[max(0.0, v - lo), max(0.0, hi - v)] for v, (lo, hi) in zip(values, ci, strict=True)]
            ).T
        ax.bar(np.arange(len(names)) + k * width, values, width, label=label, yerr=errors, capsize=2)
    if chance is not None:
        for i, c in enumerate(chance):
            label = "chance" if i == 0 else None
            ax.hlines(c, i - width / 2, i + 0.8 - width / 2, colors="k", linestyles="dashed", label=label)
    ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2, names, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1)
    if len(series) > 1 or chance is not None:
        ax.legend(fontsize=7)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
