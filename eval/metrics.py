"""The shared metrics over per-item score tables: pure functions, checkable by hand.

* multiple choice (WordNetQA, DictionaryQA): instance accuracy (raw, and length-normalised by
  tokens and by characters, as lm-evaluation-harness's acc / acc_norm), strict cluster accuracy
  (a cluster counts only if every item of it is right: WordNetQA's perturbation clusters),
  and accuracy by hops x distractor type (the gold must beat every distractor of that type);
* Wilson intervals and chance levels that every family's metrics use.

A table family's own metrics sit with its evaluation runner (``eval/families/<family>.py``): P@1
within the answer space for relation sets (BEAR), consistency over pattern pairs for paraphrase
grids (ParaRel; Cao et al. 2022), Est.S ... Cons.NI for knowledge sets (DepEdit).
"""

from __future__ import annotations

from collections import defaultdict

import polars as pl

from probesmith.stats import wilson_interval


def mean_or_none(values) -> float | None:
    """The mean of ``values``, or None when there are none."""
    values = list(values)
    return sum(values) / len(values) if values else None


def interval(correct: pl.Series) -> list[float] | None:
    """The 95% Wilson interval of the accuracy of a boolean column (None when empty)."""
    return list(wilson_interval(correct.mean(), correct.len())) if correct.len() else None


def choice_chance(frame: pl.DataFrame) -> float | None:
    """A uniform guess's accuracy over multiple-choice items: the mean of 1 / choices."""
    return frame["scores"].list.len().cast(pl.Float64).pow(-1).mean() if frame.height else None


def with_intervals(frame: pl.DataFrame, chance: float | None) -> dict:
    """Raw and normalised multiple-choice accuracies, each with its 95% interval, n and chance."""
    result: dict = {"n": frame.height, "chance": chance}
    for name, column in (
        ("accuracy", "correct"),
        ("accuracy_token_norm", "correct_token_norm"),
        ("accuracy_char_norm", "correct_char_norm"),
    ):
        result[name] = frame[column].mean()
        result[f"{name}_ci95"] = interval(frame[column])
    return result


# ---------------------------------------------------------------- multiple choice


def multiple_choice_metrics(items: pl.DataFrame) -> dict:
    """Per config: n, accuracy (raw / token-normalised / char-normalised), strict cluster accuracy.

    Every accuracy carries its 95% Wilson interval (``*_ci95``) and the chance rate it is to be
    read against: ``chance`` (mean of 1 / choices) and ``strict_cluster_chance`` (a uniform
    guess right on every item of a cluster). ``items`` has the columns of ``mc_scores``.
    """
    result = {}
    for config in sorted(items["config"].unique().to_list()):
        frame = items.filter(pl.col("config") == config).with_columns(
            guess=pl.col("scores").list.len().cast(pl.Float64).pow(-1)
        )
        clusters = frame.group_by("cluster").agg(pl.col("correct").all(), pl.col("guess").product())
        result[config] = {
            **with_intervals(frame, frame["guess"].mean()),
            "clusters": clusters.height,
            "strict_cluster_accuracy": clusters["correct"].mean(),
            "strict_cluster_accuracy_ci95": interval(clusters["correct"]),
            "strict_cluster_chance": clusters["guess"].mean(),
        }
    return result


def hop_distractor_accuracy(items: pl.DataFrame) -> pl.DataFrame:
    """Accuracy by (config, hops, distractor type); type ``all`` is instance accuracy.

    For a type t, an item counts as right when its gold's score beats every distractor of type t
    in it (distractor types follow the choices in order, the gold skipped).
    """
    cells: dict[tuple[str, int, str], list[bool]] = defaultdict(list)
    for row in items.iter_rows(named=True):
        scores, gold = row["scores"], row["answer_index"]
        distractors = [s for i, s in enumerate(scores) if i != gold]
        cells[(row["config"], row["hops"], "all")].append(row["correct"])
        by_type: dict[str, list[float]] = defaultdict(list)
        for kind, score in zip(row["distractor_types"], distractors, strict=True):
            by_type[kind].append(score)
        for kind, values in by_type.items():
            cells[(row["config"], row["hops"], kind)].append(scores[gold] > max(values))
    return pl.DataFrame(
        [
            {
                "config": c,
                "hops": h,
                "distractor_type": t,
                "n": len(v),
                "accuracy": sum(v) / len(v),
                "ci95": list(wilson_interval(sum(v) / len(v), len(v))),
            }
            for (c, h, t), v in sorted(cells.items())
        ],
        schema={
            "config": pl.String,
            "hops": pl.Int32,
            "distractor_type": pl.String,
            "n": pl.Int64,
            "accuracy": pl.Float64,
        },
    )
