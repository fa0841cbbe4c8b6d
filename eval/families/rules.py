"""The rules family's evaluation: knowledge sets (DepEdit's protocol), as one unit.

Establish the facts, apply each update, ask every question: the runner, the result schema
(``edit_scores``), the metrics per editor and the report section, registered together below.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow as pa
import torch.distributed as dist

from probesmith.builders.families.rules import fill_cloze
from probesmith.builders.sampling import stable_hash
from probesmith.errors import ArtifactError
from probesmith.eval import metrics as M
from probesmith.eval.editors import (
    EditedLM,
    Fact,
    answer_questions,
    normalise_answer,
)
from probesmith.eval.registry import Evaluation, register_evaluation
from probesmith.eval.report import bar_chart, fmt, with_ci
from probesmith.eval.run import EDITORS, EvalContext, sample_keys
from probesmith.eval.scoring import is_distributed
from probesmith.probes.spec import spec_field
from probesmith.schemas.artifact import read_table
from probesmith.schemas.tables import TableSchema

log = logging.getLogger(__name__)

EDIT_METRICS = ("Est.S", "Est.I", "Upd.S", "Cons.NS", "Cons.U", "Upd.I", "Cons.NI")

EDIT_SCORES = TableSchema(
    name="edit_scores",
    version=1,
    description="One knowledge-set question after an edit: the model's answer and its matches.",
    schema=pa.schema(
        [
            pa.field("editor", pa.string(), nullable=False),
            pa.field("set_id", pa.string(), nullable=False),
            pa.field("variant", pa.string(), nullable=False),
            pa.field("metric", pa.string(), nullable=False),
            pa.field("question", pa.string(), nullable=False),
            pa.field("answer", pa.string(), nullable=False),
            pa.field("object", pa.string(), nullable=False),
            pa.field("prediction", pa.string(), nullable=False),
            pa.field("exact", pa.bool_(), nullable=False),
            pa.field("alias", pa.bool_(), nullable=False),
        ],
        metadata={
            "metric": "Est.S, Est.I, Upd.S, Cons.NS, Cons.U, Upd.I or Cons.NI",
            "exact": "normalised prediction equals the normalised answer",
            "alias": "normalised prediction equals a normalised alias of the answer entity",
        },
    ),
)


@dataclass(frozen=True)
class KnowledgeSetOptions:
    """The rules family's own ``probesmith eval`` options (``--option NAME=VALUE``)."""

    editors: tuple[str, ...] = spec_field(
        ("in_context", "fine_tune"), help="the knowledge editors to run: in_context, fine_tune"
    )

    def __post_init__(self) -> None:
        unknown = [name for name in self.editors if name not in EDITORS]
        if unknown or not self.editors:
            raise ValueError(f"editors {list(self.editors)}: give one or more of {sorted(EDITORS)}")


def _fact(row: dict) -> Fact:
    """The item's fact as an editor is given it: its ``statement``.

    Builds before knowledge_items v2 have none: their first cloze with the blank filled by
    :func:`cloze_answer` (the bare answer in those builds, whose clozes still held the article).
    """
    statement = row.get("statement")
    if not statement:
        cloze = next((r for r in row["rephrasings"] if "___" in r), None)
        statement = fill_cloze(cloze, cloze_answer(row)) if cloze else f"{row['question']} {row['answer']}"
    return Fact(row["subject"], row["relation"], row["object"], row["question"], row["answer"], statement)


def cloze_answer(row: dict) -> str:
    """What an item's cloze blank stands for, and what a cloze is scored on.

    Its ``cloze_answer``, article and all ("the United States of America", "a cartoonist"); the bare answer
    in builds before knowledge_items v3.
    """
    return row.get("cloze_answer") or row["answer"]


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
    ctx.result.metrics.update({"editors": edit_metrics(frame), "knowledge_sets": len(sets)})


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


def edit_metrics(items: pl.DataFrame) -> dict:
    """Per editor and metric: accuracy under exact match and alias-aware match, n and 95% intervals.

    ``items`` has the columns of ``edit_scores``; each metric is the mean over its questions
    (all knowledge sets and update variants together). Answers are generated, not chosen, so
    there is no chance rate (``chance`` is None).
    """
    result = {}
    for editor in sorted(items["editor"].unique().to_list()):
        frame = items.filter(pl.col("editor") == editor)
        result[editor] = {}
        for metric in EDIT_METRICS:
            rows = frame.filter(pl.col("metric") == metric)
            result[editor][metric] = {
                "n": rows.height,
                "exact": rows["exact"].mean() if rows.height else None,
                "alias": rows["alias"].mean() if rows.height else None,
                "exact_ci95": M.interval(rows["exact"]),
                "alias_ci95": M.interval(rows["alias"]),
                "chance": None,
            }
    return result


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
            f"{fmt(values[k]['exact'])} / {with_ci(values[k]['alias'], values[k].get('alias_ci95'))}"
            for k in EDIT_METRICS
        ]
        lines.append(f"| {editor} | " + " | ".join(cells) + " |")
    bar_chart(
        list(EDIT_METRICS),
        {e: [v[k]["alias"] or 0.0 for k in EDIT_METRICS] for e, v in editors.items()},
        folder / "edits.png",
        "accuracy (alias-aware)",
    )
    return [*lines, "", "![DepEdit metrics](edits.png)"]


def question_form_rows(
    folder: str | Path, per_template: int = 3, seed: int = 0
) -> list[tuple[str, str, str, list[str]]]:
    """Every question form of a knowledge-set build, each shown by ``per_template`` stored items.

    A form is a relation's question or one of its cloze rephrasings, by position (``P140/question``,
    ``P140/rephrasing-1``); the items are stored filled, so each fill is an item's text as stored,
    with its answer after an arrow: a question's bare answer, a cloze's :func:`cloze_answer` (the
    answer with the article its blank needs) and the cloze filled with it after it. Items are drawn per
    form (seeded).
    """
    items = read_table(Path(folder), "knowledge_items")
    by_form: dict[tuple[str, int], dict[str, str]] = defaultdict(dict)
    for row in items.iter_rows(named=True):
        for position, text in enumerate([row["question"], *row["rephrasings"]]):
            shown = row["answer"]
            if "___" in text:
                shown = f"{cloze_answer(row)} ({fill_cloze(text, cloze_answer(row))})"
            by_form[(row["relation"], position)].setdefault(text, shown)
    rows = []
    for (relation, position), texts in sorted(by_form.items()):
        form_id = f"{relation}/" + ("question" if position == 0 else f"rephrasing-{position}")
        drawn = sorted(texts, key=lambda text: stable_hash(seed, "templates", form_id, text))[:per_template]
        kind = "the question" if position == 0 else f"cloze rephrasing {position}"
        rows.append((form_id, relation, f"{relation}, {kind}", [f"{t} -> {texts[t]}" for t in drawn]))
    return rows


register_evaluation(
    Evaluation(
        "rules",
        _knowledge_sets,
        edits_section,
        ("editor", "set_id", "variant", "metric", "question"),
        "alias",
        uses_editors=True,
        options=KnowledgeSetOptions,
        template_rows=question_form_rows,
    )
)
