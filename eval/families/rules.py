"""Knowledge sets (DepEdit's protocol): establish the facts, apply each update, ask every question."""

from __future__ import annotations

import logging
from collections import defaultdict
from pathlib import Path

import polars as pl
import torch.distributed as dist

from probesmith.errors import ArtifactError
from probesmith.eval import metrics as M
from probesmith.eval import report
from probesmith.eval.editors import (
    EditedLM,
    Fact,
    answer_questions,
    normalise_answer,
)
from probesmith.eval.registry import Evaluation, register_evaluation
from probesmith.eval.run import EvalContext, sample_keys
from probesmith.eval.scoring import is_distributed
from probesmith.schemas.artifact import read_table
from probesmith.schemas.results import EDIT_SCORES

log = logging.getLogger(__name__)


def _fact(row: dict) -> Fact:
    cloze = next((r for r in row["rephrasings"] if "___" in r), None)
    statement = cloze.replace("___", row["answer"]) if cloze else f"{row['question']} {row['answer']}"
    return Fact(row["subject"], row["relation"], row["object"], row["question"], row["answer"], statement)


def _metric_of(role: str, is_update: bool, establish: bool) -> str:
    if establish:
        return {"specific": "Est.S", "implication": "Est.I"}.get(role, "")
    if role == "unrelated":
        return "Cons.U"
    if role == "specific":
        return "Upd.S" if is_update else "Cons.NS"
    return "Upd.I" if is_update else "Cons.NI"


def _knowledge_sets(ctx: EvalContext, probes: Path, manifest: dict) -> None:
    if ctx.lm.kind != "causal":
        raise ArtifactError(
            "knowledge sets are answered by generation: evaluate them with a causal LM (--kind causal)"
        )
    items = read_table(probes, "knowledge_items")
    aliases: dict[str, set[str]] = defaultdict(set)
    if (probes / "aliases").is_dir():
        for entity, alias in read_table(probes, "aliases").select("entity_id", "alias").iter_rows():
            aliases[entity].add(normalise_answer(alias))
    sets = sorted(
        sample_keys(items["set_id"].unique().to_list(), ctx.options.max_items, ctx.options.seed, "sets")
    )
    rows = []
    rank, world = (dist.get_rank(), dist.get_world_size()) if is_distributed() else (0, 1)
    # under torchrun every rank runs a share of the (editor, set) pairs
    for editor, set_id in [(e, s) for e in ctx.editors for s in sets][rank::world]:
        frame = items.filter(pl.col("set_id") == set_id)
        base = EditedLM(ctx.lm)
        init = frame.filter(pl.col("variant") == "init")
        established = editor.edit(
            base, [_fact(r) for r in init.filter(pl.col("role") != "implication").iter_rows(named=True)]
        )
        rows += _answer_set(ctx, editor, established, set_id, "init", init, True, aliases)
        for variant in sorted(v for v in frame["variant"].unique().to_list() if v != "init"):
            part = frame.filter(pl.col("variant") == variant)
            updates = part.filter(pl.col("is_update") & (pl.col("role") == "specific"))
            updated = editor.edit(established, [_fact(r) for r in updates.iter_rows(named=True)])
            rows += _answer_set(ctx, editor, updated, set_id, variant, part, False, aliases)
        log.info("knowledge set %s done with editor %s", set_id, editor.name)
    if world > 1:
        shares: list = [None] * world
        dist.all_gather_object(shares, rows)
        rows = [row for share in shares for row in share]
    rows.sort(key=lambda r: (r["editor"], r["set_id"], r["variant"], r["metric"], r["question"]))
    ctx.result.statements += len(rows)
    frame = pl.from_arrow(EDIT_SCORES.from_rows(rows))
    ctx.result.tables["items"] = (EDIT_SCORES, frame)
    ctx.result.metrics.update({"editors": M.edit_metrics(frame), "knowledge_sets": len(sets)})


def _answer_set(ctx, editor, edited, set_id, variant, frame, establish, aliases) -> list[dict]:
    questions = {}
    for row in frame.iter_rows(named=True):
        metric = _metric_of(row["role"], row["is_update"], establish)
        if metric:
            questions.setdefault((metric, row["question"], row["answer"]), row)
    keys = sorted(questions)
    predictions = answer_questions(edited, [q for _, q, _ in keys])
    rows = []
    for (metric, question, answer), prediction in zip(keys, predictions, strict=True):
        row = questions[(metric, question, answer)]
        said = normalise_answer(prediction)
        exact = said == normalise_answer(answer)
        rows.append(
            {
                "editor": editor.name,
                "set_id": set_id,
                "variant": variant,
                "metric": metric,
                "question": question,
                "answer": answer,
                "object": row["object"],
                "prediction": prediction,
                "exact": exact,
                "alias": exact or said in aliases.get(row["object"], set()),
            }
        )
    return rows


register_evaluation(
    Evaluation(
        "rules",
        _knowledge_sets,
        report.edits_section,
        ("editor", "set_id", "variant", "metric", "question"),
        "alias",
        uses_editors=True,
    )
)
