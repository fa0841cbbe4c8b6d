"""The artifact filter of a multiple-choice build, and the audit cells it shares with the audit.

``filter_artifacts`` removes what the choice-only baseline exploits, adversarially (as AFLite
does): every item is scored out of fold (folds by cluster), the items of flagged cells that the
baseline answers most confidently are dropped, and the baseline is trained again, until no cell
is flagged or the rounds run out. It runs inside ``probesmith build`` (``artifact_filter.enabled``),
so it sits below the build; the audit (:mod:`probesmith.eval.audit`) imports it and the cells.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from probesmith.builders.baselines import BASELINES, FeatureBaseline
from probesmith.builders.sampling import stable_hash
from probesmith.errors import SpecError
from probesmith.schemas.tables import AUDIT_CELLS
from probesmith.stats import wilson_interval

log = logging.getLogger(__name__)


def train_eval_split(frame: pl.DataFrame, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Train = the train split; held-out = test, else dev; else a cluster split of everything."""
    splits = set(frame["split"].unique().to_list())
    held_out = "test" if "test" in splits else "dev" if "dev" in splits else None
    if "train" in splits and held_out is not None:
        return frame.filter(pl.col("split") == "train"), frame.filter(pl.col("split") == held_out)
    in_train = pl.Series([stable_hash(seed, "audit", c) % 2 == 0 for c in frame["cluster"].to_list()])
    return frame.filter(in_train), frame.filter(~in_train)


def sample_rows(frame: pl.DataFrame, limit: int, seed: int) -> pl.DataFrame:
    """At most ``limit`` rows of ``frame``, drawn by a hash of (seed, id): the same rows every run."""
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
        cls = BASELINES.get(name)
        if cls is None or not issubclass(cls, FeatureBaseline):
            raise SpecError(
                f"the artifact filter takes feature baselines, not {name!r}; "
                "use choice_only, choice_to_choice or question_to_choice."
            )
        models[name] = cls(seed=seed)
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
    train = sample_rows(train, max_train, seed)
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
