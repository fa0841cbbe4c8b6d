"""The relations family's evaluation: relation sets (BEAR's convention), as one unit.

Every template x every answer of the space, as whole statements: the runner, the result schema
(``relation_scores``), the metrics (P@1 per relation, domain and cardinality), the report section,
the review sheet's rows and the lm-evaluation-harness tasks, registered together below.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from probesmith.builders.sampling import stable_hash
from probesmith.builders.text import fill_template
from probesmith.errors import ArtifactError, UsageError
from probesmith.eval import harness, review
from probesmith.eval import metrics as M
from probesmith.eval.registry import Evaluation, register_evaluation
from probesmith.eval.report import bar_chart, fmt, with_ci
from probesmith.eval.run import EvalContext, argmax, sample_instances
from probesmith.eval.statements import answer_spaces, statement_documents, templates_by_relation
from probesmith.schemas.artifact import read_table
from probesmith.schemas.parquet import write_parquet
from probesmith.schemas.tables import TableSchema
from probesmith.stats import wilson_interval

log = logging.getLogger(__name__)

RELATION_SCORES = TableSchema(
    name="relation_scores",
    version=2,
    description="One (instance, template) of a relation set: the answer space scored, the prediction.",
    schema=pa.schema(
        [
            pa.field("relation_id", pa.string(), nullable=False),
            pa.field("sub_id", pa.string(), nullable=False),
            pa.field("pattern_id", pa.string(), nullable=False),
            pa.field("template_index", pa.int32(), nullable=False),
            pa.field("obj_id", pa.string(), nullable=False),
            pa.field("predicted_obj_id", pa.string(), nullable=False),
            pa.field("correct", pa.bool_(), nullable=False),
            pa.field("scores", pa.list_(pa.float64()), nullable=False),
            pa.field("chance", pa.float64(), nullable=False),
        ],
        metadata={
            "scores": "statement score of every answer, in answer_idx order",
            "chance": "the accuracy of a uniform guess: golds in the answer space / its size",
        },
    ),
)


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
    ctx.result.metrics.update(relation_set_metrics(frame, _relation_info(probes, manifest)))


def relation_set_metrics(items: pl.DataFrame, relation_info: dict[str, dict]) -> dict:
    """BEAR-style P@1 within each relation's answer space.

    ``items`` has the columns of ``relation_scores``; ``relation_info`` maps a relation id to
    ``{"domains": [...], "cardinality": "N-1" | "N-M" | "1-1"}``. Convention of the headline
    ``accuracy``: every (instance, template) pair counts once, so it is the mean over a
    relation's templates of the per-template accuracy (lm-pub-quiz with all template indices);
    ``accuracy_first_template`` is the template-0 score.
    """
    per_relation = (
        items.group_by("relation_id")
        .agg(
            n=pl.len(),
            instances=pl.col("sub_id").n_unique(),
            accuracy=pl.col("correct").mean(),
            chance=pl.col("chance").mean(),
        )
        .sort("relation_id")
    )
    first = items.filter(pl.col("template_index") == 0)
    per_template = (
        items.group_by("relation_id", "template_index")
        .agg(accuracy=pl.col("correct").mean())
        .sort("relation_id", "template_index")
    )
    relations = {}
    for row in per_relation.iter_rows(named=True):
        rid = row["relation_id"]
        info = relation_info.get(rid, {})
        relations[rid] = {
            "n": row["n"],
            "instances": row["instances"],
            "accuracy": row["accuracy"],
            "ci95": list(wilson_interval(row["accuracy"], row["n"])),
            "chance": row["chance"],
            "per_template": per_template.filter(pl.col("relation_id") == rid)["accuracy"].to_list(),
            "domains": list(info.get("domains", [])),
            "cardinality": info.get("cardinality", "unknown"),
        }

    def grouped(key):
        groups: dict[str, list[str]] = defaultdict(list)
        for rid, r in relations.items():
            for value in r[key] if isinstance(r[key], list) else [r[key]]:
                groups[value].append(rid)
        result = {}
        for g, rids in sorted(groups.items()):
            chosen = items.filter(pl.col("relation_id").is_in(rids))
            result[g] = {
                "relations": len(rids),
                "macro_accuracy": M.mean_or_none(relations[r]["accuracy"] for r in rids),
                "micro_accuracy": chosen["correct"].mean(),
                "micro_accuracy_ci95": M.interval(chosen["correct"]),
                "chance": chosen["chance"].mean(),
            }
        return result

    return {
        "template_convention": "mean over each relation's templates (every instance x template once); "
        "accuracy_first_template uses template 0 only",
        "accuracy": items["correct"].mean(),
        "accuracy_ci95": M.interval(items["correct"]),
        "chance": items["chance"].mean(),
        "chance_convention": "a uniform guess in each answer space: golds in the space / its size",
        "micro_accuracy": items["correct"].mean(),
        "macro_accuracy": M.mean_or_none(r["accuracy"] for r in relations.values()),
        "macro_chance": M.mean_or_none(r["chance"] for r in relations.values()),
        "accuracy_first_template": first["correct"].mean(),
        "accuracy_first_template_ci95": M.interval(first["correct"]),
        "by_domain": grouped("domains"),
        "by_cardinality": grouped("cardinality"),
        "relations": relations,
    }


def relations_section(m: dict, folder: Path) -> list[str]:
    """The section of relation sets: accuracy per relation, domain and cardinality."""
    relations = m["relations"]
    names = sorted(relations)
    bar_chart(
        names,
        {"accuracy": [relations[r]["accuracy"] for r in names]},
        folder / "relations.png",
        "P@1",
        intervals={"accuracy": [relations[r]["ci95"] for r in names]},
        chance=[relations[r]["chance"] for r in names],
    )
    lines = [
        f"Accuracy (P@1 within the answer space): **{with_ci(m['accuracy'], m['accuracy_ci95'])}** micro "
        f"(95% Wilson interval; chance {fmt(m['chance'])}), {fmt(m['macro_accuracy'])} macro (chance "
        f"{fmt(m['macro_chance'])}); template 0 only: "
        f"{with_ci(m['accuracy_first_template'], m['accuracy_first_template_ci95'])}.",
        f"Template convention: {m['template_convention']}. Chance: {m['chance_convention']}.",
        "",
        "![per-relation accuracy, 95% intervals, chance dashed](relations.png)",
        "",
    ]
    for title, groups in (("domain", m["by_domain"]), ("cardinality", m["by_cardinality"])):
        lines += [f"| {title} | relations | chance | macro | micro |", "|---|---|---|---|---|"]
        lines += [
            f"| {d} | {v['relations']} | {fmt(v['chance'])} | {fmt(v['macro_accuracy'])} | "
            f"{with_ci(v['micro_accuracy'], v['micro_accuracy_ci95'])} |"
            for d, v in groups.items()
        ]
        lines.append("")
    return lines


def relation_review_rows(folder: str | Path, n: int = 200, seed: int = 0) -> tuple[list[str], list[list]]:
    """A relations build's sheet: ``n`` instances spread evenly over relations (seeded).

    Each row is the instance's statement from its relation's first template with the object left
    blank, the gold, every gold the build lists, and the answer space: the reviewer marks whether
    the gold is right and names any other option of the space that is also right.
    """
    folder = Path(folder)
    instances = read_table(folder, "instances")
    answers = read_table(folder, "answer_spaces").sort("relation_id", "answer_idx")
    templates = read_table(folder, "templates").sort("relation_id", "pattern_id")
    first_template = dict(
        templates.group_by("relation_id", maintain_order=True)
        .first()
        .select("relation_id", "template")
        .iter_rows()
    )
    spaces = {pid: frame["obj_label"].to_list() for (pid,), frame in answers.group_by("relation_id")}
    labels = dict(zip(answers["obj_id"], answers["obj_label"], strict=True))
    strata: dict[str, list[dict]] = defaultdict(list)
    for row in instances.iter_rows(named=True):
        strata[row["relation_id"]].append(row)
    for rows in strata.values():
        rows.sort(key=lambda r: stable_hash(seed, "review", r["relation_id"], r["sub_id"]))
    chosen: list[dict] = []
    while len(chosen) < n and any(strata.values()):
        for pid in sorted(strata):
            if strata[pid] and len(chosen) < n:
                chosen.append(strata[pid].pop(0))
    header = ["item_id", "config", "question", "gold", "all_golds", "answer_space", *review.REVIEW_COLUMNS]
    rows = [
        [
            f"{r['relation_id']}:{r['sub_id']}",
            r["relation_id"],
            fill_template(first_template[r["relation_id"]], r["sub_label"], "___"),
            r["obj_label"],
            "; ".join(labels.get(o, f"{o} (outside the space)") for o in r["gold_obj_ids"]),
            "; ".join(spaces[r["relation_id"]]),
            "",
            "",
            "",
            "",
        ]
        for r in sorted(chosen, key=lambda r: (r["relation_id"], r["sub_id"]))
    ]
    return header, rows


def relation_template_rows(
    folder: str | Path, per_template: int = 3, seed: int = 0
) -> list[tuple[str, str, str, list[str]]]:
    """Every template of a relations build, each filled with ``per_template`` instances and their gold.

    The instances are drawn per template (seeded), and filled as the evaluation fills a statement
    (:func:`probesmith.eval.statements.statement_documents`): the template with the subject's and
    the gold's labels.
    """
    folder = Path(folder)
    instances = read_table(folder, "instances").select("relation_id", "sub_id", "sub_label", "obj_label")
    by_relation = {pid: frame.to_dicts() for (pid,), frame in instances.group_by("relation_id")}
    rows = []
    for template in read_table(folder, "templates").sort("relation_id", "pattern_id").iter_rows(named=True):
        drawn = sorted(
            by_relation.get(template["relation_id"], []),
            key=lambda r: stable_hash(seed, "templates", template["pattern_id"], r["sub_id"]),
        )[:per_template]
        fills = [fill_template(template["template"], r["sub_label"], r["obj_label"]) for r in drawn]
        rows.append((template["pattern_id"], template["relation_id"], template["template"], fills))
    return rows


STATEMENT_DOCS = TableSchema(
    name="lm_eval_statement_docs",
    version=1,
    description="One (instance, template) of a relation set as a harness document: every answer's "
    "statement, and the indices of the gold ones.",
    schema=pa.schema(
        [
            pa.field("id", pa.string(), nullable=False),
            pa.field("relation_id", pa.string(), nullable=False),
            pa.field("sub_id", pa.string(), nullable=False),
            pa.field("template_index", pa.int32(), nullable=False),
            pa.field("text_options", pa.list_(pa.string()), nullable=False),
            pa.field("gold_indices", pa.list_(pa.int32()), nullable=False),
        ],
        metadata={
            "text_options": "the template filled with the subject and each answer of the relation's "
            "answer space, in answer_idx order",
            "gold_indices": "every answer of the space that is a gold of the subject",
        },
    ),
)


def relation_set_tasks(build, manifest, staging, prefix) -> dict:
    """lm-eval tasks of a relation-set build: BEAR-style statement documents, every gold listed."""
    instances = read_table(build, "instances", manifest=manifest).sort("relation_id", "sub_id")
    spaces = answer_spaces(build, manifest)
    templates = templates_by_relation(build, manifest)
    missing = sorted(set(instances["relation_id"].to_list()) - set(templates))
    if missing:
        raise UsageError(f"{build}: relations without templates {missing[:5]}; the build is incomplete.")
    rows = []
    for inst, index, _, statements in statement_documents(instances, spaces, templates):
        golds = set(inst["gold_obj_ids"])
        rows.append(
            {
                "id": f"{inst['relation_id']}:{inst['sub_id']}:{index}",
                "relation_id": inst["relation_id"],
                "sub_id": inst["sub_id"],
                "template_index": index,
                "text_options": statements,
                "gold_indices": [i for i, (obj, _) in enumerate(spaces[inst["relation_id"]]) if obj in golds],
            }
        )
    table = STATEMENT_DOCS.from_rows(rows)
    (staging / "data").mkdir()
    write_parquet(table, staging / "data" / "statements.parquet", STATEMENT_DOCS, where="lm-eval statements")
    first = table.filter(pc.equal(table["template_index"], 0))
    write_parquet(
        first, staging / "data" / "statements_template0.parquet", STATEMENT_DOCS, where="lm-eval statements"
    )
    tasks = {}
    for task, data, documents in (
        (prefix, "data/statements.parquet", table.num_rows),
        (f"{prefix}_template0", "data/statements_template0.parquet", first.num_rows),
    ):
        body = {
            "task": task,
            "tag": ["probesmith"],
            "test_split": "test",
            "output_type": "multiple_choice",
            "doc_to_text": "",
            "doc_to_choice": "text_options",
            "doc_to_target": "gold_indices",
            "target_delimiter": "",
            "should_decontaminate": False,
            "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
            "metadata": harness.task_metadata(manifest),
        }
        harness.write_task(staging, body, {"files": [data]})
        tasks[task] = {"documents": documents}
    return {
        "group": prefix,
        "tasks": tasks,
        "convention": "whole statements, empty context (the harness's BEAR task)",
        "numbers": [
            "acc (the harness: whole statements after its prefix token)",
            "the same acc (accuracy, accuracy_first_template): BOS first",
        ],
        "relations": instances["relation_id"].n_unique(),
    }


register_evaluation(
    Evaluation(
        "relations",
        _relation_sets,
        relations_section,
        ("relation_id", "sub_id", "template_index"),
        "correct",
        review_rows=relation_review_rows,
        template_rows=relation_template_rows,
        lm_eval_tasks=relation_set_tasks,
    )
)
