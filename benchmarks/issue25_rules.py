"""Issue 25 numbers of rules builds: tiers, must_be_true rules' held-out Wilson bound, update
objects that are states (historical, not sovereign), and items whose answer or subject class does
not fit the relation — recomputed from the shared slice's TSV, not from the builder.

    probesmith build rules --out /tmp/rules
    python3 benchmarks/issue25_rules.py /tmp/rules [/tmp/other-rules ...]
"""

from __future__ import annotations

import glob
import gzip
import sys
from collections import Counter, defaultdict
from pathlib import Path

import polars as pl

from probesmith.stats import wilson_interval

SLICE_FACTS = Path(__file__).resolve().parents[2] / "shared" / "data" / "wikidata_slice" / "facts.tsv.gz"
STATES = {"Q6256", "Q3624078", "Q3024240", "Q28171280", "Q7275"}
FORMER = {"Q3024240", "Q28171280"}


def slice_facts() -> dict[str, dict[str, set[str]]]:
    """``{relation: {subject: {objects}}}`` from the slice's TSV."""
    facts: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    with gzip.open(SLICE_FACTS, "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            s, p, o = line.split("\t")[:3]
            facts[p][s].add(o)
    return facts


def expected_classes(facts, classes, relation: str) -> tuple[set[str], set[str]]:
    """Usual subject classes (10%+) and dominant answer classes (30%+ of the top one's count)."""
    subjects = [classes[s] for s in facts[relation] if s in classes]
    objects = [classes[o] for o in {o for v in facts[relation].values() for o in v} if o in classes]
    object_counts = Counter(c for cs in objects for c in cs)
    subject_counts = Counter(c for cs in subjects for c in cs)
    top = max(object_counts.values())
    return (
        {c for c, n in subject_counts.items() if n >= 0.1 * len(subjects)},
        {c for c, n in object_counts.items() if n >= 0.3 * top},
    )


def report(build: str, facts, classes) -> None:
    """Print one build's numbers."""
    rules = pl.read_parquet(glob.glob(f"{build}/rules/*.parquet"))
    items = pl.read_parquet(glob.glob(f"{build}/knowledge_items/*.parquet"))
    print(f"== {build}")
    print(f"tiers {dict(Counter(rules['tier']))}; sets {items['set_id'].n_unique()}, items {items.height}")
    for row in rules.filter(pl.col("tier") == "must_be_true").iter_rows(named=True):
        n = row["heldout_predictions"]
        print(
            f"  must_be_true {row['rule_id']}: {n} held-out, Wilson {wilson_interval(row['heldout_precision'], n)[0]:.3f}"
        )
    updates = items.filter(pl.col("is_update")).select("relation", "object").unique()
    states = [o for o in updates["object"] if classes.get(o, set()) & STATES]
    former = sum(bool(classes[o] & FORMER) for o in states)
    not_sovereign = sum("Q3624078" not in classes[o] for o in states)
    print(
        f"update (relation, object) pairs {updates.height}: {len(states)} states, {former} historical, "
        f"{not_sovereign} not sovereign"
    )
    expected = {r: expected_classes(facts, classes, r) for r in set(items["relation"])}
    misfits: Counter = Counter()
    for row in items.iter_rows(named=True):
        subject_classes, object_classes = expected[row["relation"]]
        if not classes.get(row["object"], set()) & object_classes:
            misfits["answer class"] += 1
        elif (
            subject_classes and classes.get(row["subject"]) and not classes[row["subject"]] & subject_classes
        ):
            misfits["subject class"] += 1
    print(f"items whose class does not fit: {dict(misfits)} of {items.height}")


def main(builds: list[str]) -> None:
    """Print the numbers of every build named."""
    facts = slice_facts()
    classes = facts["P31"]
    for build in builds:
        report(build, facts, classes)


if __name__ == "__main__":
    main(sys.argv[1:])
