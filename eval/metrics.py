"""The literature's metrics over per-item score tables: pure functions, checkable by hand.

* multiple choice (WordNetQA, DictionaryQA): instance accuracy (raw, and length-normalised by
  tokens and by characters, as lm-evaluation-harness's acc / acc_norm), strict cluster accuracy
  (a cluster counts only if every item of it is right: WordNetQA's perturbation clusters),
  and accuracy by hops x distractor type (the gold must beat every distractor of that type);
* relation sets (BEAR): P@1 within the answer space, micro and macro, per relation, domain and
  cardinality, per template and averaged over templates;
* paraphrase grids (ParaRel; Cao et al. 2022): consistency over pattern pairs by edge type,
  consistent-accuracy, accuracy per pattern, verbalization stability, per-relation spread over
  prompts, backdoor-adjusted accuracy, and rank consistency of several models;
* knowledge sets (DepEdit): Est.S, Est.I, Upd.S, Cons.NS, Cons.U, Upd.I, Cons.NI.
"""

from __future__ import annotations

import itertools
import random
import statistics
from collections import Counter, defaultdict

import polars as pl

from probesmith.stats import wilson_interval

EDIT_METRICS = ("Est.S", "Est.I", "Upd.S", "Cons.NS", "Cons.U", "Upd.I", "Cons.NI")


def _mean(values) -> float | None:
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


# ---------------------------------------------------------------- relation sets


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
                "macro_accuracy": _mean(relations[r]["accuracy"] for r in rids),
                "micro_accuracy": chosen["correct"].mean(),
                "micro_accuracy_ci95": interval(chosen["correct"]),
                "chance": chosen["chance"].mean(),
            }
        return result

    return {
        "template_convention": "mean over each relation's templates (every instance x template once); "
        "accuracy_first_template uses template 0 only",
        "accuracy": items["correct"].mean(),
        "accuracy_ci95": interval(items["correct"]),
        "chance": items["chance"].mean(),
        "chance_convention": "a uniform guess in each answer space: golds in the space / its size",
        "micro_accuracy": items["correct"].mean(),
        "macro_accuracy": _mean(r["accuracy"] for r in relations.values()),
        "macro_chance": _mean(r["chance"] for r in relations.values()),
        "accuracy_first_template": first["correct"].mean(),
        "accuracy_first_template_ci95": interval(first["correct"]),
        "by_domain": grouped("domains"),
        "by_cardinality": grouped("cardinality"),
        "relations": relations,
    }


# ---------------------------------------------------------------- paraphrase grids


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
        "consistency": _mean(agree["all"]),
        "consistency_by_edge_type": {
            k: {"pairs": len(v), "consistency": _mean(v)} for k, v in sorted(agree.items()) if k != "all"
        },
        "consistent_accuracy": per_instance["correct"].mean(),
        "accuracy": label["correct"].mean(),
        "accuracy_ci95": interval(label["correct"]),
        "chance": label["candidates"].list.len().cast(pl.Float64).pow(-1).mean() if label.height else None,
        "accuracy_per_pattern": {
            r["pattern_id"]: r["accuracy"] for r in per_pattern.sort("pattern_id").iter_rows(named=True)
        },
        "verbalization_stability": _mean(stable),
        "spread": dict(sorted(spread.items())),
        "mean_spread": _mean(s["range"] for s in spread.values()),
        "original_accuracy": _mean(original.values()),
        "adjusted_accuracy": _mean(adjusted.values()),
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
            "original": {m: _mean(original[m][r] for r in subset) for m in names},
            "random": {m: _mean(per_pattern[m].get((r, chosen[r]), 0.0) for r in subset) for m in names},
            "adjusted": {m: _mean(adjusted[m][r] for r in subset) for m in names},
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
            "mean_kendall_tau": _mean(taus),
        }
    return result


# ---------------------------------------------------------------- knowledge sets


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
                "exact_ci95": interval(rows["exact"]),
                "alias_ci95": interval(rows["alias"]),
                "chance": None,
            }
    return result
