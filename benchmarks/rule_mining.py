"""Rule mining: precision and recall on synthetic graphs with planted rules; time and top rules
on the shared Wikidata slice.

    python benchmarks/rule_mining.py [--store DIR]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.builders.test_rules import PLANTED, from_planted_triangle, synthetic_facts  # noqa: E402

from probesmith.builders.families.rules import TierSpec, mine_rules  # noqa: E402


def synthetic() -> None:
    print("planted rules: born_in ∧ city_in ⇒ citizen_of, lives_in ∧ city_in ⇒ resides_in")
    print("precision: kept rules (tier likely or better) from a planted triangle, any orientation;")
    print("recall: planted rules kept")
    print(
        f"{'missing':>8} {'noise':>6} {'seed':>5} {'kept rules':>10} {'precision':>9} {'recall':>7} {'seconds':>8}"
    )
    for missing, noise in ((0.0, 0.0), (0.15, 0.05), (0.3, 0.1), (0.5, 0.2)):
        for seed in (0, 1, 2):
            facts = synthetic_facts(seed, missing, noise)
            started = time.perf_counter()
            rules = mine_rules(facts, TierSpec(), max_join_degree=10_000, min_support=20)
            seconds = time.perf_counter() - started
            kept = set(rules.filter(pl.col("tier").is_in(["must_be_true", "likely"]))["rule_id"])
            precision = sum(map(from_planted_triangle, kept)) / len(kept) if kept else 0.0
            recall = len(kept & PLANTED) / len(PLANTED)
            print(
                f"{missing:>8} {noise:>6} {seed:>5} {len(kept):>10} {precision:>9.2f} {recall:>7.2f} {seconds:>8.2f}"
            )


def slice_rules(store: str | None) -> None:
    from probesmith.builders.build import build
    from probesmith.builders.registry import load_spec

    spec = load_spec("rules")
    source = store or spec.wikidata.source
    spec = type(spec)(**{**spec.__dict__, "wikidata": type(spec.wikidata)(source=source, cache_mode="off")})
    started = time.perf_counter()
    result = build(spec, Path(tempfile.mkdtemp()) / "rules")
    print(
        f"\nslice: {len(spec.relations) - len(spec.exclude_relations)} relations mined in "
        f"{time.perf_counter() - started:.1f} s (queries, mining, knowledge sets, write)"
    )
    rules = pl.read_parquet(result.out / "rules" / "*.parquet")
    print(
        f"{rules.height} rules with support >= {spec.min_support}; tiers:",
        dict(rules.group_by("tier").len().iter_rows()),
    )
    print(
        "\n| # | rule | support | std conf | PCA conf | head cov | Wilson (PCA) | tier |\n|---|---|---:|---:|---:|---:|---:|---|"
    )
    for i, r in enumerate(rules.head(20).iter_rows(named=True), 1):
        print(
            f"| {i} | {r['pattern']} | {r['support']} | {r['std_confidence']:.3f} | {r['pca_confidence']:.3f} | "
            f"{r['head_coverage']:.3f} | {r['wilson_lower']:.3f} | {r['tier']} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--store")
    args = parser.parse_args()
    synthetic()
    slice_rules(args.store)
