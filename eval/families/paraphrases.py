"""Paraphrase grids: every statement (pattern x verbalization) with the gold and sampled candidates."""

from __future__ import annotations

import logging
from pathlib import Path

import polars as pl

from probesmith.builders.text import fill_template
from probesmith.eval import metrics as M
from probesmith.eval import report
from probesmith.eval.registry import Evaluation, register_evaluation
from probesmith.eval.relation_docs import answer_spaces
from probesmith.eval.run import EvalContext, argmax, sample_instances, sample_keys
from probesmith.schemas.artifact import read_table
from probesmith.schemas.results import GRID_SCORES

log = logging.getLogger(__name__)


def _grids(ctx: EvalContext, probes: Path, manifest: dict) -> None:
    instances = sample_instances(ctx, read_table(probes, "instances"))
    spaces = answer_spaces(probes)
    labels = {rid: dict(space) for rid, space in spaces.items()}
    order = {rid: {o: i for i, (o, _) in enumerate(space)} for rid, space in spaces.items()}
    candidates = {}
    for inst in instances.iter_rows(named=True):
        rid, golds = inst["relation_id"], set(inst["gold_obj_ids"])
        others = [o for o, _ in spaces[rid] if o not in golds]
        limit = None if ctx.options.max_candidates is None else ctx.options.max_candidates - 1
        chosen = sample_keys(others, limit, ctx.options.seed, rid, inst["sub_id"]) | {inst["obj_id"]}
        candidates[(rid, inst["sub_id"])] = (sorted(chosen, key=order[rid].__getitem__), golds)
    grid = read_table(probes, "grid").join(
        instances.select("relation_id", "sub_id"), on=["relation_id", "sub_id"]
    )
    if ctx.options.max_verbalizations is not None:
        grid = grid.filter(pl.col("verbalization_rank") < ctx.options.max_verbalizations)
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
    ctx.result.metrics.update(M.grid_metrics(frame, read_table(probes, "pattern_edges")))


register_evaluation(
    Evaluation(
        "paraphrases",
        _grids,
        report.grids_section,
        ("relation_id", "sub_id", "pattern_id", "verbalization_rank"),
        "correct",
        compare=lambda runs, **options: {"rank_consistency": M.rank_consistency(runs, **options)},
    )
)
