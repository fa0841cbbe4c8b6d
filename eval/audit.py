"""The artifact audit: partial-input baselines against chance, per probe x hop x distractor type.

``audit(path)`` trains every baseline on the train split of each config and scores held-out
items (test, else dev; a dataset without both gets its own split by cluster, never by question,
so that no concept's answers leak). For every cell — a config overall, per ISA hop, and per hop
x distractor type — it reports accuracy, its 95% Wilson interval and chance, and flags the cell
when the interval's lower bound exceeds chance by more than the margin.

``filter_artifacts`` removes what the choice-only baseline exploits, adversarially (as AFLite
does): every item is scored out of fold (folds by cluster), the items of flagged cells that the
baseline answers most confidently are dropped, and the baseline is trained again, until no cell
is flagged or the rounds run out.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from probesmith.builders.sampling import stable_hash
from probesmith.errors import ArtifactError
from probesmith.eval.baselines import DEFAULT_BASELINES, FeatureBaseline, make_baseline
from probesmith.eval.mcqa import load_multiple_choice
from probesmith.schemas.output import OutputFolder
from probesmith.schemas.tables import AUDIT_CELLS
from probesmith.stats import wilson_interval

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


def train_eval_split(frame: pl.DataFrame, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Train = the train split; held-out = test, else dev; else a cluster split of everything."""
    splits = set(frame["split"].unique().to_list())
    held_out = "test" if "test" in splits else "dev" if "dev" in splits else None
    if "train" in splits and held_out is not None:
        return frame.filter(pl.col("split") == "train"), frame.filter(pl.col("split") == held_out)
    in_train = pl.Series([stable_hash(seed, "audit", c) % 2 == 0 for c in frame["cluster"].to_list()])
    return frame.filter(in_train), frame.filter(~in_train)


def _sample(frame: pl.DataFrame, limit: int, seed: int) -> pl.DataFrame:
    if frame.height <= limit:
        return frame
    keys = pl.Series([stable_hash(seed, "sample", i) for i in frame["id"].to_list()], dtype=pl.UInt64)
    return frame.with_columns(_k=keys).sort("_k").head(limit).drop("_k")


def cell_table(
    items: pl.DataFrame, dataset: str, config: str, baseline: str, margin: float, min_items: int
) -> pl.DataFrame:
    """Cells from per-item ``credit``, ``hops``, ``distractor_types``, ``n_choices``."""
    items = items.with_columns(chance=1.0 / pl.col("n_choices"))
    exploded = items.with_columns(distractor_type=pl.col("distractor_types").list.unique()).explode(
        "distractor_type"
    )
    groups = [
        items.group_by(pl.lit(None, pl.Int32).alias("hops"), pl.lit("all").alias("distractor_type")),
        items.group_by(pl.col("hops").cast(pl.Int32), pl.lit("all").alias("distractor_type")),
        exploded.group_by(pl.col("hops").cast(pl.Int32), "distractor_type"),
    ]
    aggregated = pl.concat(
        [g.agg(n=pl.len(), accuracy=pl.col("credit").mean(), chance=pl.col("chance").mean()) for g in groups]
    )
    rows = []
    for row in aggregated.iter_rows(named=True):
        low, high = wilson_interval(row["accuracy"], row["n"])
        rows.append(
            {
                "dataset": dataset,
                "config": config,
                "baseline": baseline,
                "hops": row["hops"],
                "distractor_type": row["distractor_type"],
                "n": row["n"],
                "accuracy": row["accuracy"],
                "ci_low": low,
                "ci_high": high,
                "chance": row["chance"],
                "flagged": row["n"] >= min_items and low > row["chance"] + margin,
            }
        )
    return pl.DataFrame(rows, schema=_cells_schema()).sort(
        "baseline", "hops", "distractor_type", nulls_last=False
    )


def _cells_schema() -> dict:
    return dict(
        zip(
            AUDIT_CELLS.schema.names,
            [pl.from_arrow(AUDIT_CELLS.schema.empty_table()).schema[n] for n in AUDIT_CELLS.schema.names],
            strict=True,
        )
    )


def audit_frames(frames: dict[str, pl.DataFrame], dataset: str, options: AuditOptions) -> pl.DataFrame:
    """Run every baseline on every config; the cells of all of them."""
    cells = []
    for config, frame in frames.items():
        train, held_out = train_eval_split(frame, options.seed)
        train = _sample(train, options.max_train_items, options.seed)
        held_out = _sample(held_out, options.max_eval_items, options.seed)
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
    from probesmith.schemas.output import SharedReadLock, check_destination, check_unchanged

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
    from probesmith.schemas.parquet import write_parquet

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


@dataclass
class FilterReport:
    """What the artifact filter removed, and how choice-only accuracy moved."""

    margin: float
    rounds: list[dict] = field(default_factory=list)
    removed: dict[str, int] = field(default_factory=dict)
    converged: bool = False


def filter_artifacts(
    frames: dict[str, pl.DataFrame],
    margin: float = 0.05,
    max_rounds: int = 10,
    folds: int = 5,
    min_items: int = 30,
    max_train_items: int = 20_000,
    seed: int = 0,
    repeats: int = 3,
    baselines: tuple[str, ...] = ("choice_only",),
) -> tuple[dict[str, set[str]], FilterReport]:
    """Ids to remove per config so that the audit's ``baselines`` are within ``margin`` of chance.

    Each round measures what the audit measures — the baseline trained on the train split and
    scored on held-out items, cells flagged where the interval's lower bound exceeds chance +
    margin — and stops when nothing is flagged. Otherwise it scores every item out of fold
    (folds by cluster, a fresh partition per round and repeat, averaged over ``repeats``) and
    removes, from each flagged cell, the items the baseline answers most confidently: as many as
    bring the cell's accuracy down to chance + margin/2. ``baselines`` are feature baselines
    (choice_only, choice_to_choice, question_to_choice).
    """
    models = {}
    for name in baselines:
        model = make_baseline(name, seed=seed)
        if not isinstance(model, FeatureBaseline):
            from probesmith.errors import SpecError

            raise SpecError(
                f"the artifact filter takes feature baselines, not {name!r}; "
                "use choice_only, choice_to_choice or question_to_choice."
            )
        models[name] = model
    report = FilterReport(margin=margin)
    removed: dict[str, set[str]] = {config: set() for config in frames}
    encoded = {
        (name, config): model.encode(frame)
        for name, model in models.items()
        for config, frame in frames.items()
    }
    pending = {(name, config) for name in models for config in frames}
    for round_no in range(1, max_rounds + 1):
        for name, config in sorted(pending):
            frame, model = frames[config], models[name]
            index = np.flatnonzero([i not in removed[config] for i in frame["id"].to_list()])
            audit_cells, held_out_items = _held_out_cells(
                model, encoded[(name, config)], frame[index], index, margin, min_items, max_train_items, seed
            )
            overall = audit_cells.filter(pl.col("hops").is_null() & (pl.col("distractor_type") == "all"))
            flagged = audit_cells.filter(pl.col("flagged"))
            entry = {
                "round": round_no,
                "config": config,
                "baseline": name,
                "items": int(len(index)),
                "accuracy": round(overall["accuracy"][0], 4),
                "chance": round(overall["chance"][0], 4),
                "flagged_cells": flagged.height,
                "removed": 0,
            }
            if flagged.height:
                credit, confidence = _out_of_fold(
                    model,
                    encoded[(name, config)],
                    frame,
                    index,
                    folds,
                    max_train_items,
                    seed,
                    round_no,
                    repeats,
                )
                items = (
                    frame[index]
                    .select("id", "hops", "distractor_types", n_choices=pl.col("choices").list.len())
                    .with_columns(credit=pl.Series(credit), confidence=pl.Series(confidence))
                )
                # the items every partition finds easy, and those the audit's own split finds easy
                drop = _items_to_drop(items, flagged, margin / 2)
                drop |= _items_to_drop(held_out_items, flagged, margin / 2)
                removed[config] |= drop
                entry["removed"] = len(drop)
                pending |= {(other, config) for other in models}  # removal can change the others
            else:
                pending.discard((name, config))
            report.rounds.append(entry)
            log.info(
                "artifact filter round %d, %s %s: held-out %.3f (chance %.3f), %d flagged cells, "
                "removing %d items",
                round_no,
                config,
                name,
                entry["accuracy"],
                entry["chance"],
                flagged.height,
                entry["removed"],
            )
        if not pending:
            report.converged = True
            break
    report.removed = {config: len(ids) for config, ids in removed.items()}
    return removed, report


def _held_out_cells(
    baseline: FeatureBaseline,
    encoded,
    frame: pl.DataFrame,
    index: np.ndarray,
    margin: float,
    min_items: int,
    max_train: int,
    seed: int,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The audit's choice-only cells, and its held-out items with credit and gold probability.

    ``frame``'s rows are ``encoded``'s rows ``index``.
    """
    train, held_out = train_eval_split(frame.with_columns(_row=pl.Series(index)), seed)
    train = _sample(train, max_train, seed)
    model = type(baseline)(seed=seed).fit(encoded.subset(train["_row"].to_numpy()))
    credit, confidence = model.predict(encoded.subset(held_out["_row"].to_numpy()))
    items = held_out.select("id", "hops", "distractor_types", n_choices=pl.col("choices").list.len())
    items = items.with_columns(credit=pl.Series(credit), confidence=pl.Series(confidence))
    return cell_table(items, "filter", "", baseline.name, margin, min_items), items


def _out_of_fold(
    baseline: FeatureBaseline,
    encoded,
    frame: pl.DataFrame,
    index: np.ndarray,
    folds: int,
    max_train: int,
    seed: int,
    round_no: int,
    repeats: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Mean out-of-fold credit and gold probability of every item over ``repeats`` partitions.

    Each round and repeat draws a fresh partition (by cluster): removal decided against one
    fixed partition overfits to it, and a model trained on another split finds the cue again.
    """
    clusters = frame["cluster"].to_list()
    credit = np.zeros(len(index))
    confidence = np.zeros(len(index))
    for repeat in range(repeats):
        fold_of = np.array([stable_hash(seed, "fold", round_no, repeat, clusters[i]) % folds for i in index])
        for fold in range(folds):
            train_idx = index[fold_of != fold]
            if len(train_idx) > max_train:
                rng = np.random.default_rng(stable_hash(seed, "fold-sample", round_no, repeat, fold) % 2**32)
                train_idx = np.sort(rng.choice(train_idx, max_train, replace=False))
            test_pos = np.flatnonzero(fold_of == fold)
            if len(test_pos) == 0 or len(train_idx) == 0:
                continue
            model = type(baseline)(seed=seed).fit(encoded.subset(train_idx))
            fold_credit, fold_confidence = model.predict(encoded.subset(index[test_pos]))
            credit[test_pos] += fold_credit / repeats
            confidence[test_pos] += fold_confidence / repeats
    return credit, confidence


def _items_to_drop(items: pl.DataFrame, flagged: pl.DataFrame, margin: float) -> set[str]:
    drop: set[str] = set()
    for cell in flagged.iter_rows(named=True):
        members = items
        if cell["hops"] is not None:
            members = members.filter(pl.col("hops") == cell["hops"])
        if cell["distractor_type"] != "all":
            members = members.filter(pl.col("distractor_types").list.contains(cell["distractor_type"]))
        n, correct = members.height, float(members["credit"].sum())
        target = cell["chance"] + margin  # the caller aims below its margin, for headroom
        needed = math.ceil(max(0.0, (correct - target * n) / (1 - target)))
        candidates = members.filter(pl.col("credit") > 0).sort("confidence", descending=True)
        drop |= set(candidates["id"].head(needed).to_list())
    return drop
