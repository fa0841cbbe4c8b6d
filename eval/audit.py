"""The artifact audit: partial-input baselines against chance, per probe x hop x distractor type.

``audit(path)`` trains every baseline on the train split of each config and scores held-out
items (test, else dev; a dataset without both gets its own split by cluster, never by question,
so that no concept's answers leak). For every cell — a config overall, per ISA hop, and per hop
x distractor type — it reports accuracy, its 95% Wilson interval and chance, and flags the cell
when the interval's lower bound exceeds chance by more than the margin.

The artifact filter a multiple-choice build runs (``filter_artifacts``) and the cell table it
shares with the audit live below the build, in :mod:`probesmith.builders.artifact_filter`; they
are re-exported here.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from probesmith.builders.artifact_filter import (
    cell_table,
    filter_artifacts,
    sample_rows,
    train_eval_split,
)
from probesmith.errors import ArtifactError
from probesmith.eval.baselines import DEFAULT_BASELINES, make_baseline
from probesmith.eval.mcqa import load_multiple_choice
from probesmith.schemas.output import OutputFolder, SharedReadLock, check_destination, check_unchanged
from probesmith.schemas.parquet import write_parquet
from probesmith.schemas.tables import AUDIT_CELLS

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AuditOptions:
    """How an audit runs."""

    baselines: tuple[str, ...] = DEFAULT_BASELINES
    margin: float = 0.05
    min_items: int = 30
    max_train_items: int = 20_000
    max_eval_items: int = 20_000
    seed: int = 0
    encoder_model: str = "tiny"


@dataclass
class AuditResult:
    """Cells of an audit, and where it came from."""

    dataset: str
    cells: pl.DataFrame
    options: AuditOptions
    source_logical_hash: str | None = None

    @property
    def flagged(self) -> pl.DataFrame:
        """The flagged cells, largest excess over chance first."""
        return self.cells.filter(pl.col("flagged")).sort(pl.col("ci_low") - pl.col("chance"), descending=True)


def audit_frames(frames: dict[str, pl.DataFrame], dataset: str, options: AuditOptions) -> pl.DataFrame:
    """Run every baseline on every config; the cells of all of them."""
    cells = []
    for config, frame in frames.items():
        train, held_out = train_eval_split(frame, options.seed)
        train = sample_rows(train, options.max_train_items, options.seed)
        held_out = sample_rows(held_out, options.max_eval_items, options.seed)
        if train.height == 0 or held_out.height == 0:
            log.warning(
                "%s/%s: too few items to audit (train %d, held-out %d)",
                dataset,
                config,
                train.height,
                held_out.height,
            )
            continue
        items = held_out.select("hops", "distractor_types", n_choices=pl.col("choices").list.len())
        for name in options.baselines:
            extra = {"model": options.encoder_model} if name == "encoder_choice_only" else {}
            baseline = make_baseline(name, seed=options.seed, **extra).fit(train)
            credit = baseline.credits(held_out)
            log.info(
                "%s/%s %s: accuracy %.3f on %d held-out items (trained on %d)",
                dataset,
                config,
                name,
                credit.mean(),
                held_out.height,
                train.height,
            )
            cells.append(
                cell_table(
                    items.with_columns(credit=pl.Series(credit)),
                    dataset,
                    config,
                    name,
                    options.margin,
                    options.min_items,
                )
            )
    if not cells:
        raise ArtifactError(f"{dataset}: no config had both train and held-out items to audit.")
    return pl.concat(cells)


def audit(path: str | Path, options: AuditOptions | None = None) -> AuditResult:
    """Audit a build folder or AI2 JSONL (file or folder)."""
    options = options or AuditOptions()
    path = Path(path)
    frames = load_multiple_choice(path)
    source_hash = None
    if (path / "manifest.json").is_file():
        source_hash = json.loads((path / "manifest.json").read_text())["logical_hash"]
    name = path.stem if path.is_file() else path.name
    return AuditResult(name, audit_frames(frames, name, options), options, source_hash)


def default_audit_folder(path: str | Path) -> Path:
    """Where an audit of ``path`` goes by default: ``BUILD/audit`` beside a build, else ``audit-<name>``."""
    path = Path(path)
    if (path / "manifest.json").is_file():
        return path / "audit"
    return Path(f"audit-{path.stem if path.is_file() else path.name}")


def run_audit(
    path: str | Path,
    options: AuditOptions | None = None,
    *,
    out: str | Path | None = None,
    with_filter: bool = False,
    force: bool = False,
) -> tuple[AuditResult, Path, Any]:
    """What ``probesmith audit`` does: audit ``path``, optionally run the filter, write the report.

    ``out`` defaults to :func:`default_audit_folder` and is checked before any baseline runs.
    With ``with_filter`` the artifact filter runs too and its removals go into ``filter.json``.
    Returns the audit, the report folder and the filter's report (None without the filter).
    """
    options = options or AuditOptions()
    out = Path(out) if out is not None else default_audit_folder(path)
    check_destination(out, "audit", folder=True, force=force)
    # the build's shared lock for the whole run: a rebuild meanwhile is refused, and the report is
    # written only if the build is still the one audited
    with SharedReadLock(path, "audit"):
        result = audit(path, options)
        extra, report = {}, None
        if with_filter:
            removed, report = filter_artifacts(load_multiple_choice(Path(path)), margin=options.margin)
            extra["filter.json"] = {
                "report": vars(report),
                "removed_ids": {c: sorted(ids) for c, ids in removed.items()},
            }
        if result.source_logical_hash is not None or (Path(path) / "manifest.json").exists():
            check_unchanged(path, result.source_logical_hash, "audit")
        write_audit(result, out, extra, force=force)
    return result, out, report


def write_audit(
    result: AuditResult, out: str | Path, extra_json: dict[str, Any] | None = None, *, force: bool = False
) -> Path:
    """Write cells.parquet, report.md, heatmap.png and audit.json into ``out``, atomically.

    ``extra_json`` adds JSON files (name -> data) to the same folder, e.g. the filter's
    ``filter.json``. ``out`` may hold an earlier audit; anything else is refused (see
    :class:`~probesmith.schemas.output.OutputFolder`), and a failure leaves it as it was.
    """
    out = Path(out)
    with OutputFolder(out, "audit", force=force) as staging:
        write_parquet(
            result.cells.to_arrow().cast(AUDIT_CELLS.schema.remove_metadata()),
            staging / "cells.parquet",
            AUDIT_CELLS,
            f"{result.dataset} audit",
        )
        plot_heatmap(result.cells, staging / "heatmap.png")
        (staging / "report.md").write_text(render_report(result))
        summary = {
            "dataset": result.dataset,
            "source_logical_hash": result.source_logical_hash,
            "options": asdict(result.options),
            "flagged_cells": result.flagged.height,
            "flagged": result.flagged.select(
                "config", "baseline", "hops", "distractor_type", "accuracy", "ci_low", "chance"
            ).to_dicts(),
        }
        (staging / "audit.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
        for name, data in (extra_json or {}).items():
            (staging / name).write_text(json.dumps(data, indent=1, default=list) + "\n")
    log.info("audit of %s: %d flagged cells; report in %s", result.dataset, result.flagged.height, out)
    return out


def render_report(result: AuditResult) -> str:
    """A Markdown report: overall accuracy per config x baseline, then every flagged cell."""
    cells = result.cells
    overall = cells.filter(pl.col("hops").is_null() & (pl.col("distractor_type") == "all"))
    lines = [
        f"# Artifact audit: {result.dataset}",
        "",
        f"Baselines trained on train and scored on held-out items; margin {result.options.margin:.2f}"
        f" above chance; cells with fewer than {result.options.min_items} items are not flagged.",
        "",
        "## Overall accuracy (95% interval) vs chance",
        "",
        "| config | baseline | n | accuracy | 95% interval | chance | flagged |",
        "|---|---|---:|---:|---|---:|---|",
    ]
    for r in overall.sort("config", "baseline").iter_rows(named=True):
        lines.append(
            f"| {r['config']} | {r['baseline']} | {r['n']:,} | {r['accuracy']:.3f} | "
            f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {r['chance']:.3f} | "
            f"{'**yes**' if r['flagged'] else 'no'} |"
        )
    flagged = result.flagged
    lines += ["", f"## Flagged cells ({flagged.height})", ""]
    if flagged.height:
        lines += [
            "| config | baseline | hops | distractor type | n | accuracy | interval low | chance |",
            "|---|---|---|---|---:|---:|---:|---:|",
        ]
        for r in flagged.iter_rows(named=True):
            hops = "all" if r["hops"] is None else r["hops"]
            lines.append(
                f"| {r['config']} | {r['baseline']} | {hops} | {r['distractor_type']} | "
                f"{r['n']:,} | {r['accuracy']:.3f} | {r['ci_low']:.3f} | {r['chance']:.3f} |"
            )
    else:
        lines.append("None: no baseline beats chance by more than the margin.")
    lines += ["", "![accuracy minus chance](heatmap.png)", ""]
    return "\n".join(lines)


def plot_heatmap(cells: pl.DataFrame, path: Path) -> None:
    """One panel per baseline: rows config x hops, columns distractor type, colour = acc - chance."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    baselines = sorted(cells["baseline"].unique().to_list())
    detail = cells.with_columns(row=pl.col("config") + " h" + pl.col("hops").cast(pl.String).fill_null("*"))
    rows = sorted(detail["row"].unique().to_list())
    columns = ["all", *sorted(set(detail["distractor_type"].to_list()) - {"all"})]
    flagged = {
        (r["baseline"], r["row"], r["distractor_type"])
        for r in detail.filter(pl.col("flagged")).iter_rows(named=True)
    }
    fig, axes = plt.subplots(
        1,
        len(baselines),
        figsize=(2.2 + 1.1 * len(columns) * len(baselines), 1.2 + 0.32 * len(rows)),
        squeeze=False,
    )
    for ax, baseline in zip(axes[0], baselines, strict=True):
        grid = np.full((len(rows), len(columns)), np.nan)
        sub = detail.filter(pl.col("baseline") == baseline)
        for r in sub.iter_rows(named=True):
            grid[rows.index(r["row"]), columns.index(r["distractor_type"])] = r["accuracy"] - r["chance"]
        image = ax.imshow(grid, cmap="RdBu_r", vmin=-0.5, vmax=0.5, aspect="auto")
        ax.set_xticks(range(len(columns)), columns, rotation=45, ha="right", fontsize=7)
        ax.set_yticks(range(len(rows)), rows if ax is axes[0][0] else [""] * len(rows), fontsize=7)
        ax.set_title(baseline, fontsize=9)
        for (i, j), value in np.ndenumerate(grid):
            if not np.isnan(value):
                mark = "*" if (baseline, rows[i], columns[j]) in flagged else ""
                ax.text(j, i, f"{value:+.2f}{mark}", ha="center", va="center", fontsize=6)
    fig.colorbar(image, ax=axes[0].tolist(), label="accuracy − chance (* flagged)", shrink=0.8)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
