"""Relation sets (BEAR's convention): every template x every answer of the space, as whole statements."""

from __future__ import annotations

import logging
from pathlib import Path

import polars as pl

from probesmith.errors import ArtifactError
from probesmith.eval import harness, report, review
from probesmith.eval import metrics as M
from probesmith.eval.registry import Evaluation, register_evaluation
from probesmith.eval.relation_docs import answer_spaces, statement_documents, templates_by_relation
from probesmith.eval.run import EvalContext, argmax, sample_instances
from probesmith.schemas.artifact import read_table
from probesmith.schemas.results import RELATION_SCORES

log = logging.getLogger(__name__)


def _relation_info(probes: Path, manifest: dict) -> dict[str, dict]:
    """What the build decided about each relation (cardinality, domains), from its own table."""
    if "relation_info/test" not in manifest.get("tables", {}):
        raise ArtifactError(
            f"{probes} has no relation_info table: it was built before builds recorded each "
            "relation's cardinality and domains. Rebuild it (`probesmith build relations`) or import "
            "it again (`probesmith import bear`)."
        )
    info = read_table(probes, "relation_info", manifest=manifest)
    return {
        row["relation_id"]: {"domains": list(row["domains"]), "cardinality": row["cardinality"]}
        for row in info.iter_rows(named=True)
    }


def _relation_sets(ctx: EvalContext, probes: Path, manifest: dict) -> None:
    instances = read_table(probes, "instances")
    spaces = answer_spaces(probes)
    keys, statements = [], []
    for inst, index, template, filled in statement_documents(
        sample_instances(ctx, instances), spaces, templates_by_relation(probes)
    ):
        keys.append((inst, index, template["pattern_id"]))
        statements += filled
    scores, _ = ctx.score(statements)
    rows, at = [], 0
    for inst, index, pattern in keys:
        space = spaces[inst["relation_id"]]
        s = scores[at : at + len(space)]
        at += len(space)
        predicted = space[argmax(s)][0]
        golds = set(inst["gold_obj_ids"])
        rows.append(
            {
                "relation_id": inst["relation_id"],
                "sub_id": inst["sub_id"],
                "pattern_id": pattern,
                "template_index": index,
                "obj_id": inst["obj_id"],
                "predicted_obj_id": predicted,
                "correct": predicted in golds,
                "scores": s,
                "chance": sum(obj in golds for obj, _ in space) / len(space),
            }
        )
    frame = pl.from_arrow(RELATION_SCORES.from_rows(rows))
    ctx.result.tables["items"] = (RELATION_SCORES, frame)
    ctx.result.metrics.update(M.relation_set_metrics(frame, _relation_info(probes, manifest)))


register_evaluation(
    Evaluation(
        "relations",
        _relation_sets,
        report.relations_section,
        ("relation_id", "sub_id", "template_index"),
        "correct",
        review_rows=review.relation_review_rows,
        lm_eval_tasks=harness.relation_set_tasks,
    )
)
