"""The paraphrases family's evaluation: paraphrase grids (ParaRel, Cao et al.), as one unit.

Every statement (pattern x verbalization) with the gold and sampled candidates: the runner, the
result schema (``grid_scores``), the metrics (consistency, spread, backdoor-adjusted accuracy, rank
consistency across models) and the report section, registered together below.
"""

from __future__ import annotations

import itertools
import logging
import random
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow as pa

from probesmith.builders.sampling import stable_hash
from probesmith.builders.text import fill_template
from probesmith.eval import metrics as M
from probesmith.eval.registry import Evaluation, register_evaluation
from probesmith.eval.report import bar_chart, fmt, with_ci
from probesmith.eval.run import EvalContext, argmax, sample_instances, sample_keys
from probesmith.eval.statements import answer_spaces
from probesmith.probes.spec import spec_field
from probesmith.schemas.artifact import read_table
from probesmith.schemas.tables import TableSchema

log = logging.getLogger(__name__)

GRID_SCORES = TableSchema(
    name="grid_scores",
    version=1,
    description="One grid statement (instance x pattern x verbalization) scored over its candidates.",
    schema=pa.schema(
        [
            pa.field("relation_id", pa.string(), nullable=False),
            pa.field("sub_id", pa.string(), nullable=False),
            pa.field("obj_id", pa.string(), nullable=False),
            pa.field("pattern_id", pa.string(), nullable=False),
            pa.field("verbalization_rank", pa.int32(), nullable=False),
            pa.field("candidates", pa.list_(pa.string()), nullable=False),
            pa.field("scores", pa.list_(pa.float64()), nullable=False),
            pa.field("predicted_obj_id", pa.string(), nullable=False),
            pa.field("correct", pa.bool_(), nullable=False),
        ],
        metadata={"candidates": "object ids scored: the gold and distractors from the answer space"},
    ),
)


@dataclass(frozen=True)
class GridOptions:
    """The paraphrase family's own ``probesmith eval`` options (``--option NAME=VALUE``)."""

    max_candidates: int | None = spec_field(
        20, help="candidates per instance (the gold + distractors of the answer space); None: all", minimum=1
    )
    max_verbalizations: int | None = spec_field(
        None, help="verbalizations of the subject per instance; None: all", minimum=1
    )


def _grids(ctx: EvalContext, probes: Path, manifest: dict) -> None:
    instances = sample_instances(ctx, read_table(probes, "instances"))
    spaces = answer_spaces(probes)
    labels = {rid: dict(space) for rid, space in spaces.items()}
    order = {rid: {o: i for i, (o, _) in enumerate(space)} for rid, space in spaces.items()}
    candidates = {}
    for inst in instances.iter_rows(named=True):
        rid, golds = inst["relation_id"], set(inst["gold_obj_ids"])
        others = [o for o, _ in spaces[rid] if o not in golds]
        limit = None if ctx.family_options.max_candidates is None else ctx.family_options.max_candidates - 1
        chosen = sample_keys(others, limit, ctx.options.seed, rid, inst["sub_id"]) | {inst["obj_id"]}
        candidates[(rid, inst["sub_id"])] = (sorted(chosen, key=order[rid].__getitem__), golds)
    grid = read_table(probes, "grid").join(
        instances.select("relation_id", "sub_id"), on=["relation_id", "sub_id"]
    )
    if ctx.family_options.max_verbalizations is not None:
        grid = grid.filter(pl.col("verbalization_rank") < ctx.family_options.max_verbalizations)
    grid = grid.sort("relation_id", "sub_id", "pattern_id", "verbalization_rank")
    statements = []
    for row in grid.iter_rows(named=True):
        objects, _ = candidates[(row["relation_id"], row["sub_id"])]
        statements += [fill_template(row["statement"], obj=labels[row["relation_id"]][o]) for o in objects]
    scores, _ = ctx.score(statements)
    rows, at = [], 0
    for row in grid.iter_rows(named=True):
        objects, golds = candidates[(row["relation_id"], row["sub_id"])]
        s = scores[at : at + len(objects)]
        at += len(objects)
        predicted = objects[argmax(s)]
        rows.append(
            {
                "relation_id": row["relation_id"],
                "sub_id": row["sub_id"],
                "obj_id": row["obj_id"],
                "pattern_id": row["pattern_id"],
                "verbalization_rank": row["verbalization_rank"],
                "candidates": objects,
                "scores": s,
                "predicted_obj_id": predicted,
                "correct": predicted in golds,
            }
        )
    frame = pl.from_arrow(GRID_SCORES.from_rows(rows))
    ctx.result.tables["items"] = (GRID_SCORES, frame)
    ctx.result.metrics.update(grid_metrics(frame, read_table(probes, "pattern_edges")))


def edge_type(lexical: bool, syntactic: bool, determiner: bool) -> str:
    """The name of a pattern edge's type: its true flags joined with ``+``, or ``identical``."""
    flags = [n for n, v in (("lexical", lexical), ("syntactic", syntactic), ("determiner", determiner)) if v]
    return "+".join(flags) or "identical"


def grid_metrics(items: pl.DataFrame, edges: pl.DataFrame) -> dict:
    """ParaRel and Cao et al. metrics from ``grid_scores`` items and the ``pattern_edges`` table.

    Patterns are compared on the instance's first verbalization (rank 0, its label):

    * ``consistency`` — share of (edge, instance) pairs where both patterns predict the same
      object, overall and by edge type; ``consistent_accuracy`` — share of instances right under
      every pattern; ``accuracy_per_pattern``;
    * ``verbalization_stability`` — over (instance, pattern) with two or more verbalizations,
      the share of verbalization pairs with the same prediction;
    * ``spread`` — per relation, max - min and standard deviation of pattern accuracies;
    * ``adjusted_accuracy`` — per relation the mean accuracy over its (pattern, verbalization
      rank) cells (the backdoor adjustment: every prompt and verbalization weighs the same),
      macro-averaged over relations; ``original_accuracy`` is the first pattern's.
    """
    label = items.filter(pl.col("verbalization_rank") == 0)
    predicted = {
        (r["relation_id"], r["sub_id"], r["pattern_id"]): r["predicted_obj_id"]
        for r in label.select("relation_id", "sub_id", "pattern_id", "predicted_obj_id").iter_rows(named=True)
    }
    subjects = label.group_by("relation_id").agg(pl.col("sub_id").unique())
    subjects = {r["relation_id"]: sorted(r["sub_id"]) for r in subjects.iter_rows(named=True)}
    agree: dict[str, list[bool]] = defaultdict(list)
    for e in edges.iter_rows(named=True):
        kind = edge_type(e["lexical"], e["syntactic"], e["determiner"])
        for sub in subjects.get(e["relation_id"], []):
            a = predicted.get((e["relation_id"], sub, e["source_pattern_id"]))
            b = predicted.get((e["relation_id"], sub, e["target_pattern_id"]))
            if a is not None and b is not None:
                agree[kind].append(a == b)
                agree["all"].append(a == b)
    per_instance = label.group_by("relation_id", "sub_id").agg(pl.col("correct").all())
    per_pattern = label.group_by("relation_id", "pattern_id").agg(accuracy=pl.col("correct").mean())
    spread = {}
    for rid, frame in per_pattern.sort("pattern_id").group_by("relation_id"):
        accuracies = frame["accuracy"].to_list()
        spread[rid[0]] = {
            "patterns": len(accuracies),
            "range": max(accuracies) - min(accuracies),
            "std": statistics.pstdev(accuracies),
        }
    stable = []
    for _, frame in items.group_by("relation_id", "sub_id", "pattern_id"):
        predictions = frame["predicted_obj_id"].to_list()
        if len(predictions) > 1:
            pairs = list(itertools.combinations(predictions, 2))
            stable.append(sum(a == b for a, b in pairs) / len(pairs))
    adjusted = adjusted_accuracy(items)
    original = original_accuracy(items)
    return {
        "consistency": M.mean_or_none(agree["all"]),
        "consistency_by_edge_type": {
            k: {"pairs": len(v), "consistency": M.mean_or_none(v)}
            for k, v in sorted(agree.items())
            if k != "all"
        },
        "consistent_accuracy": per_instance["correct"].mean(),
        "accuracy": label["correct"].mean(),
        "accuracy_ci95": M.interval(label["correct"]),
        "chance": label["candidates"].list.len().cast(pl.Float64).pow(-1).mean() if label.height else None,
        "accuracy_per_pattern": {
            r["pattern_id"]: r["accuracy"] for r in per_pattern.sort("pattern_id").iter_rows(named=True)
        },
        "verbalization_stability": M.mean_or_none(stable),
        "spread": dict(sorted(spread.items())),
        "mean_spread": M.mean_or_none(s["range"] for s in spread.values()),
        "original_accuracy": M.mean_or_none(original.values()),
        "adjusted_accuracy": M.mean_or_none(adjusted.values()),
        "relations": {
            rid: {"original_accuracy": original[rid], "adjusted_accuracy": adjusted[rid]}
            for rid in sorted(adjusted)
        },
    }


def adjusted_accuracy(items: pl.DataFrame) -> dict[str, float]:
    """Per relation: mean accuracy over its (pattern, verbalization rank) cells."""
    cells = items.group_by("relation_id", "pattern_id", "verbalization_rank").agg(
        accuracy=pl.col("correct").mean()
    )
    per_relation = cells.group_by("relation_id").agg(pl.col("accuracy").mean())
    return dict(per_relation.sort("relation_id").iter_rows())


def original_accuracy(items: pl.DataFrame) -> dict[str, float]:
    """Per relation: accuracy of its first pattern on the label verbalization."""
    label = items.filter(pl.col("verbalization_rank") == 0)
    first = label.group_by("relation_id").agg(pl.col("pattern_id").min().alias("first"))
    frame = label.join(first, on="relation_id").filter(pl.col("pattern_id") == pl.col("first"))
    return dict(frame.group_by("relation_id").agg(pl.col("correct").mean()).sort("relation_id").iter_rows())


def _kendall_tau(a: list[str], b: list[str]) -> float:
    position = {m: i for i, m in enumerate(b)}
    pairs = list(itertools.combinations(a, 2))
    concordant = sum(position[x] < position[y] for x, y in pairs)
    return (2 * concordant - len(pairs)) / len(pairs) if pairs else 1.0


def rank_consistency(
    runs: dict[str, pl.DataFrame], n_subsets: int = 100, subset_size: int = 5, seed: int = 0
) -> dict:
    """How stably several models rank over random subsets of relations (Cao et al. 2022, §6).

    ``runs`` maps a model name to its ``grid_scores`` items (same build). For each of
    ``n_subsets`` random subsets of ``subset_size`` relations, models are ranked by their
    macro accuracy under three prompt choices: ``original`` (each relation's first pattern),
    ``random`` (one random pattern per relation and subset, label verbalization) and
    ``adjusted`` (backdoor-adjusted accuracy). Reported per choice: the share of subsets whose
    ranking equals the most frequent ranking, and the mean Kendall tau over pairs of subsets.
    """
    if len(runs) < 2:
        raise ValueError("rank consistency needs the grid scores of two or more models")
    names = sorted(runs)
    relations = sorted(set.intersection(*(set(f["relation_id"].unique().to_list()) for f in runs.values())))
    if len(relations) < subset_size:
        raise ValueError(f"{len(relations)} relations in common, fewer than subset_size={subset_size}")
    original = {m: original_accuracy(runs[m]) for m in names}
    adjusted = {m: adjusted_accuracy(runs[m]) for m in names}
    per_pattern = {
        m: {
            (r["relation_id"], r["pattern_id"]): r["accuracy"]
            for r in runs[m]
            .filter(pl.col("verbalization_rank") == 0)
            .group_by("relation_id", "pattern_id")
            .agg(accuracy=pl.col("correct").mean())
            .iter_rows(named=True)
        }
        for m in names
    }
    patterns = defaultdict(set)
    for m in names:
        for rid, pid in per_pattern[m]:
            patterns[rid].add(pid)
    rng = random.Random(seed)
    rankings: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for _ in range(n_subsets):
        subset = rng.sample(relations, subset_size)
        chosen = {rid: rng.choice(sorted(patterns[rid])) for rid in subset}
        scores = {
            "original": {m: M.mean_or_none(original[m][r] for r in subset) for m in names},
            "random": {
                m: M.mean_or_none(per_pattern[m].get((r, chosen[r]), 0.0) for r in subset) for m in names
            },
            "adjusted": {m: M.mean_or_none(adjusted[m][r] for r in subset) for m in names},
        }
        for scheme, by_model in scores.items():
            rankings[scheme].append(tuple(sorted(names, key=lambda m: (-by_model[m], m))))
    result = {"models": names, "n_subsets": n_subsets, "subset_size": subset_size}
    for scheme, ranks in rankings.items():
        modal, count = Counter(ranks).most_common(1)[0]
        taus = [_kendall_tau(list(a), list(b)) for a, b in itertools.combinations(ranks, 2)]
        result[scheme] = {
            "agreement": count / len(ranks),
            "modal_ranking": list(modal),
            "mean_kendall_tau": M.mean_or_none(taus),
        }
    return result


def grids_section(m: dict, folder: Path) -> list[str]:
    """The section of paraphrase grids: accuracy and rank consistency per relation."""
    relations = m["relations"]
    names = sorted(relations)
    bar_chart(
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
        f"{with_ci(m['accuracy'], m['accuracy_ci95'])} |",
        f"| chance (1 / candidates) | {fmt(m['chance'])} |",
        f"| consistency (pattern pairs) | {fmt(m['consistency'])} |",
        f"| consistent-accuracy | {fmt(m['consistent_accuracy'])} |",
        f"| verbalization stability | {fmt(m['verbalization_stability'])} |",
        f"| mean per-relation spread over prompts (max − min) | {fmt(m['mean_spread'])} |",
        f"| original-prompt accuracy | {fmt(m['original_accuracy'])} |",
        f"| backdoor-adjusted accuracy | {fmt(m['adjusted_accuracy'])} |",
        "",
        "| edge type | pairs | consistency |",
        "|---|---|---|",
    ]
    lines += [
        f"| {k} | {v['pairs']} | {fmt(v['consistency'])} |" for k, v in m["consistency_by_edge_type"].items()
    ]
    return [*lines, "", "![per-relation accuracy](relations.png)"]


def pattern_template_rows(
    folder: str | Path, per_template: int = 3, seed: int = 0
) -> list[tuple[str, str, str, list[str]]]:
    """Every pattern of a paraphrase build, each filled with ``per_template`` grid statements' golds.

    The statements (the subject's first verbalization) are drawn per pattern (seeded) and filled
    with the gold's label as the evaluation fills them (``fill_template(statement, obj=label)``).
    """
    folder = Path(folder)
    spaces = read_table(folder, "answer_spaces").select("relation_id", "obj_id", "obj_label")
    labels = {(r, o): label for r, o, label in spaces.iter_rows()}
    grid = (
        read_table(folder, "grid")
        .filter(pl.col("verbalization_rank") == 0)
        .select("relation_id", "pattern_id", "sub_id", "obj_id", "statement")
    )
    by_pattern = {pid: frame.to_dicts() for (pid,), frame in grid.group_by("pattern_id")}
    rows = []
    for pattern in read_table(folder, "patterns").sort("relation_id", "pattern_id").iter_rows(named=True):
        drawn = sorted(
            by_pattern.get(pattern["pattern_id"], []),
            key=lambda r: stable_hash(seed, "templates", pattern["pattern_id"], r["sub_id"]),
        )[:per_template]
        fills = [fill_template(r["statement"], obj=labels[(r["relation_id"], r["obj_id"])]) for r in drawn]
        rows.append((pattern["pattern_id"], pattern["relation_id"], pattern["template"], fills))
    return rows


register_evaluation(
    Evaluation(
        "paraphrases",
        _grids,
        grids_section,
        ("relation_id", "sub_id", "pattern_id", "verbalization_rank"),
        "correct",
        compare=lambda runs, **options: {"rank_consistency": rank_consistency(runs, **options)},
        options=GridOptions,
        template_rows=pattern_template_rows,
    )
)
