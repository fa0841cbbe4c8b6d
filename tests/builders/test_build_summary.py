"""The card's summary (builders/build.py: summarize): items per config x hops x distractor type."""

from __future__ import annotations

from collections import Counter

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from probesmith.builders.build import summarize

from ..conftest import needs_wordnet


def _counted_row_by_row(tables: dict[tuple[str, str], pa.Table]) -> Counter:
    counts: Counter = Counter()
    for (config, _split), table in tables.items():
        for row in table.select(["hops", "distractor_types"]).to_pylist():
            for kind in set(row["distractor_types"]):  # an item without distractors counts under no type
                counts[(config, row["hops"], kind)] += 1
    return counts


@needs_wordnet
def test_summary_counts_each_item_once_per_type_over_every_row_of_a_build(small_wordnet_build):
    tables = {
        (path.parent.name, path.name.split("-")[0]): pq.read_table(path)
        for path in sorted(small_wordnet_build.out.glob("*/*.parquet"))
    }
    summary = summarize(tables)
    assert summary.schema == {
        "config": pl.String,
        "hops": pl.Int32,
        "distractor_type": pl.String,
        "items": pl.UInt32,
    }
    got = {(c, h, t): n for c, h, t, n in summary.iter_rows()}
    assert got == _counted_row_by_row(tables) and sum(got.values()) > 3_000
    keys = [(c, h, t) for c, h, t, _ in summary.iter_rows()]
    assert keys == sorted(keys)  # one row per key, in order


def test_summary_of_items_spread_over_splits_and_without_distractors():
    def table(hops, types):
        return pa.table({"hops": pa.array(hops, pa.int32()), "distractor_types": types})

    tables = {
        ("a", "train"): table([1, 1, 2], [["sister", "sister", "random"], ["random"], []]),
        ("a", "test"): table([1], [["random", "sister"]]),
        ("b", "test"): table([0], [["popular"]]),
    }
    got = {(c, h, t): n for c, h, t, n in summarize(tables).iter_rows()}
    assert (
        got
        == _counted_row_by_row(tables)
        == {
            ("a", 1, "random"): 3,
            ("a", 1, "sister"): 2,
            ("b", 0, "popular"): 1,
        }
    )
    assert summarize({}).is_empty()
