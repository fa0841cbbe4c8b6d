r"""The evaluation of every multiple-choice family (and of AI2 multiple-choice JSONL).

Each item's choices are scored after ``"{question}\nAnswer:"`` (causal: given the question;
masked: as a span in context), with lm-evaluation-harness's length normalisations beside the raw
score. Registered once under the kind ``multiple_choice``: a new multiple-choice family needs no
evaluation code. Each table family registers its own, in ``eval/families/<family>.py``.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from probesmith.builders.registry import MULTIPLE_CHOICE_KIND
from probesmith.builders.sampling import stable_hash
from probesmith.errors import ArtifactError
from probesmith.eval import metrics as M
from probesmith.eval import report, review
from probesmith.eval.mcqa import load_build, load_multiple_choice
from probesmith.eval.registry import Evaluation, register_evaluation
from probesmith.eval.run import EvalContext, argmax
from probesmith.eval.scoring import StatementTooLong
from probesmith.schemas.results import MC_SCORES


def _multiple_choice(ctx: EvalContext, probes: Path, manifest: dict) -> None:
    frames = load_build(probes, (ctx.options.split,)) if manifest else load_multiple_choice(probes)
    items, statements, starts = [], [], []
    for config, frame in sorted(frames.items()):
        frame = frame.filter(pl.col("split") == ctx.options.split)
        if ctx.options.max_items is not None:
            clusters, kept, total = frame["cluster"].unique().to_list(), set(), 0
            sizes = dict(frame.group_by("cluster").len().iter_rows())
            for c in sorted(clusters, key=lambda c: stable_hash(ctx.options.seed, "eval", config, c)):
                if total >= ctx.options.max_items:
                    break
                kept.add(c)
                total += sizes[c]
            frame = frame.filter(pl.col("cluster").is_in(sorted(kept)))
        for row in frame.iter_rows(named=True):
            context = f"{row['question']}\nAnswer:"
            for choice in row["choices"]:
                statements.append(f"{context} {choice}")
                starts.append(len(context))
            items.append({**row, "config": config})
    if not items:
        raise ArtifactError(f"{probes} has no items in split {ctx.options.split!r}; pass another split")
    try:
        scores, counts = ctx.score(statements, starts)
    except StatementTooLong as exc:  # name the item the statement came from
        owners = [item for item in items for _ in item["choices"]]
        raise exc.naming(f"item {owners[exc.index]['id']!r} of {probes}") from None
    rows, at = [], 0
    for item in items:
        n = len(item["choices"])
        s, tokens = scores[at : at + n], counts[at : at + n]
        at += n
        chars = [len(c) for c in item["choices"]]  # lm-evaluation-harness's acc_norm
        by_token = [v / max(t, 1) for v, t in zip(s, tokens, strict=True)]
        by_char = [v / c for v, c in zip(s, chars, strict=True)]
        gold = item["answer_index"]
        predictions = (argmax(s), argmax(by_token), argmax(by_char))
        rows.append(
            {
                "id": item["id"],
                "config": item["config"],
                "cluster": item["cluster"],
                "hops": item["hops"],
                "distractor_types": item["distractor_types"],
                "answer_index": gold,
                "scores": s,
                "answer_tokens": tokens,
                "answer_chars": chars,
                "predicted": predictions[0],
                "predicted_token_norm": predictions[1],
                "predicted_char_norm": predictions[2],
                "correct": predictions[0] == gold,
                "correct_token_norm": predictions[1] == gold,
                "correct_char_norm": predictions[2] == gold,
            }
        )
    frame = pl.from_arrow(MC_SCORES.from_rows(rows))
    ctx.result.tables["items"] = (MC_SCORES, frame)
    cells = M.hop_distractor_accuracy(frame)
    ctx.result.metrics.update(
        {
            "configs": M.multiple_choice_metrics(frame),
            **M.with_intervals(frame, M.choice_chance(frame)),
            "hop_distractor": cells.to_dicts(),
        }
    )


def _register() -> None:
    register_evaluation(
        Evaluation(
            MULTIPLE_CHOICE_KIND,
            _multiple_choice,
            report.multiple_choice_section,
            ("id",),
            "correct",
            review_rows=review.multiple_choice_review_rows,
        )
    )


_register()
