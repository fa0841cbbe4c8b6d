"""``probesmith eval-compare``: several models' results on one build, paired item by item."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from probesmith.errors import ArtifactError, UsageError
from probesmith.eval.registry import evaluated, evaluation_for
from probesmith.schemas.parquet import read_parquet
from probesmith.stats import paired_bootstrap

#: Options that change what an evaluation measures: runs compared must agree on them.
COMPARABLE_OPTIONS = ("family", "max_items", "seed", "split")  # family: the build family's own options


def load_runs_for_comparison(
    folders: list[Path], *, force: bool = False
) -> tuple[str, dict[str, pl.DataFrame]]:
    """The family and per-item tables of several evaluations, keyed by model, checked to be comparable.

    At least two runs, each a ``probesmith eval`` result; all of one family, of the same build
    (logical hash) and with the same sampling options, unless ``force``.
    """
    if len(folders) < 2:
        raise UsageError("eval-compare needs the results of at least two models; pass two or more folders.")
    models, settings, families = {}, {}, set()
    for folder in folders:
        path = Path(folder) / "metrics.json"
        try:
            metrics = json.loads(path.read_text())
        except (OSError, ValueError):
            metrics = {}
        run = metrics.get("run", {}) if isinstance(metrics, dict) else {}
        if not evaluated(run.get("family")):
            raise ArtifactError(
                f"{folder} is not a `probesmith eval` result (no metrics.json naming an evaluated "
                "family); pass results folders of `probesmith eval`."
            )
        if run["model"] in models.values():
            raise UsageError(f"{folder} evaluates {run['model']} again; pass one run per model.")
        models[folder] = run["model"]
        families.add(run["family"])
        options = run.get("options", {})
        settings[folder] = (run.get("build_hash"), {k: options.get(k) for k in COMPARABLE_OPTIONS})
    if len(families) > 1:
        raise UsageError(
            f"the runs are of different families ({sorted(families)}); compare runs of one build."
        )
    if len(set(map(repr, settings.values()))) > 1 and not force:
        lines = "; ".join(f"{f}: build {h and h[:12]}, {o}" for f, (h, o) in settings.items())
        raise UsageError(
            f"the runs are of different builds or settings ({lines}); their scores are not comparable. "
            "Evaluate every model on the same build with the same options, or pass --force."
        )
    runs = {
        model: pl.from_arrow(read_parquet(Path(folder) / "items.parquet")) for folder, model in models.items()
    }
    return families.pop(), runs


def compare_runs(
    family: str,
    runs: dict[str, pl.DataFrame],
    *,
    resamples: int = 2000,
    seed: int = 0,
    subsets: int = 100,
    subset_size: int = 5,
) -> dict:
    """Each model against the first on the items both scored: accuracy difference, 95% bootstrap CI.

    The bootstrap resamples items, the same ones for both models (a paired test): the interval
    is for the difference between these models on this build, not for either accuracy alone.
    A family may add its own comparison (grids: rank consistency over ``subsets`` random subsets
    of ``subset_size`` relations).
    """
    evaluation = evaluation_for(family)
    keys, outcome = evaluation.item_keys, evaluation.outcome
    names = list(runs)
    baseline = names[0]
    first = runs[baseline].select(*keys, pl.col(outcome).cast(pl.Float64).alias("a"))
    comparisons = []
    for name in names[1:]:
        other = runs[name].select(*keys, pl.col(outcome).cast(pl.Float64).alias("b"))
        paired = first.join(other, on=list(keys), how="inner").sort(list(keys))
        result = paired_bootstrap(
            paired["b"].to_list(), paired["a"].to_list(), resamples=resamples, seed=seed
        )
        comparisons.append(
            {
                "model": name,
                "against": baseline,
                "items": paired.height,
                "accuracy": {baseline: paired["a"].mean(), name: paired["b"].mean()},
                "difference": result["difference"],
                "ci95": result["ci95"],
                "resamples": resamples,
                "excludes_zero": result["ci95"][0] > 0 or result["ci95"][1] < 0,
            }
        )
    result = {"family": family, "outcome": outcome, "comparisons": comparisons}
    if evaluation.compare is not None:
        result.update(evaluation.compare(runs, n_subsets=subsets, subset_size=subset_size, seed=seed))
    return result
