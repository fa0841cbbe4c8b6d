"""The Markdown report of an evaluation, with its plots."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from probesmith.eval.metrics import EDIT_METRICS
from probesmith.eval.registry import evaluation_for


def _fmt(value) -> str:
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _with_ci(value, ci) -> str:
    """An accuracy and its 95% interval: ``0.412 [0.380, 0.445]``."""
    return _fmt(value) if not ci else f"{_fmt(value)} [{ci[0]:.3f}, {ci[1]:.3f}]"


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


def _pyplot():
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
            f"| {config} | {c['n']} | {_fmt(c['chance'])} | {_with_ci(c['accuracy'], c['accuracy_ci95'])} | "
            f"{_with_ci(c['accuracy_token_norm'], c['accuracy_token_norm_ci95'])} | "
            f"{_with_ci(c['accuracy_char_norm'], c['accuracy_char_norm_ci95'])} | {c['clusters']} | "
            f"{_with_ci(c['strict_cluster_accuracy'], c['strict_cluster_accuracy_ci95'])} | "
            f"{_fmt(c['strict_cluster_chance'])} |"
        )
    cells = m["hop_distractor"]
    rows = sorted({(c["config"], c["hops"]) for c in cells})
    columns = ["all", *sorted({c["distractor_type"] for c in cells} - {"all"})]
    grid = np.full((len(rows), len(columns)), np.nan)
    for c in cells:
        grid[rows.index((c["config"], c["hops"])), columns.index(c["distractor_type"])] = c["accuracy"]
    plt = _pyplot()
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


def _bars(
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
    plt = _pyplot()
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


def relations_section(m: dict, folder: Path) -> list[str]:
    """The section of relation sets: accuracy per relation, domain and cardinality."""
    relations = m["relations"]
    names = sorted(relations)
    _bars(
        names,
        {"accuracy": [relations[r]["accuracy"] for r in names]},
        folder / "relations.png",
        "P@1",
        intervals={"accuracy": [relations[r]["ci95"] for r in names]},
        chance=[relations[r]["chance"] for r in names],
    )
    lines = [
        f"Accuracy (P@1 within the answer space): **{_with_ci(m['accuracy'], m['accuracy_ci95'])}** micro "
        f"(95% Wilson interval; chance {_fmt(m['chance'])}), {_fmt(m['macro_accuracy'])} macro (chance "
        f"{_fmt(m['macro_chance'])}); template 0 only: "
        f"{_with_ci(m['accuracy_first_template'], m['accuracy_first_template_ci95'])}.",
        f"Template convention: {m['template_convention']}. Chance: {m['chance_convention']}.",
        "",
        "![per-relation accuracy, 95% intervals, chance dashed](relations.png)",
        "",
    ]
    for title, groups in (("domain", m["by_domain"]), ("cardinality", m["by_cardinality"])):
        lines += [f"| {title} | relations | chance | macro | micro |", "|---|---|---|---|---|"]
        lines += [
            f"| {d} | {v['relations']} | {_fmt(v['chance'])} | {_fmt(v['macro_accuracy'])} | "
            f"{_with_ci(v['micro_accuracy'], v['micro_accuracy_ci95'])} |"
            for d, v in groups.items()
        ]
        lines.append("")
    return lines


def grids_section(m: dict, folder: Path) -> list[str]:
    """The section of paraphrase grids: accuracy and rank consistency per relation."""
    relations = m["relations"]
    names = sorted(relations)
    _bars(
        names,
        {
            "original prompt": [relations[r]["original_accuracy"] for r in names],
            "backdoor-adjusted": [relations[r]["adjusted_accuracy"] for r in names],
        },
        folder / "relations.png",
        "accuracy",
        chance=[m["chance"]] * len(names) if m.get("chance") is not None else None,
    )
    lines = [
        "| metric | value |",
        "|---|---|",
        f"| accuracy (label verbalization, all patterns; 95% interval) | "
        f"{_with_ci(m['accuracy'], m['accuracy_ci95'])} |",
        f"| chance (1 / candidates) | {_fmt(m['chance'])} |",
        f"| consistency (pattern pairs) | {_fmt(m['consistency'])} |",
        f"| consistent-accuracy | {_fmt(m['consistent_accuracy'])} |",
        f"| verbalization stability | {_fmt(m['verbalization_stability'])} |",
        f"| mean per-relation spread over prompts (max − min) | {_fmt(m['mean_spread'])} |",
        f"| original-prompt accuracy | {_fmt(m['original_accuracy'])} |",
        f"| backdoor-adjusted accuracy | {_fmt(m['adjusted_accuracy'])} |",
        "",
        "| edge type | pairs | consistency |",
        "|---|---|---|",
    ]
    lines += [
        f"| {k} | {v['pairs']} | {_fmt(v['consistency'])} |" for k, v in m["consistency_by_edge_type"].items()
    ]
    return [*lines, "", "![per-relation accuracy](relations.png)"]


def edits_section(m: dict, folder: Path) -> list[str]:
    """The section of knowledge sets: edit metrics per editor."""
    editors = m["editors"]
    lines = [
        f"{m['knowledge_sets']} knowledge sets. Exact match after normalisation / alias-aware match "
        "with its 95% Wilson interval. Answers are generated, so there is no chance rate.",
        "",
        "| editor | " + " | ".join(EDIT_METRICS) + " |",
        "|---|" + "---|" * len(EDIT_METRICS),
    ]
    for editor, values in editors.items():
        cells = [
            f"{_fmt(values[k]['exact'])} / {_with_ci(values[k]['alias'], values[k].get('alias_ci95'))}"
            for k in EDIT_METRICS
        ]
        lines.append(f"| {editor} | " + " | ".join(cells) + " |")
    _bars(
        list(EDIT_METRICS),
        {e: [v[k]["alias"] or 0.0 for k in EDIT_METRICS] for e, v in editors.items()},
        folder / "edits.png",
        "accuracy (alias-aware)",
    )
    return [*lines, "", "![DepEdit metrics](edits.png)"]
