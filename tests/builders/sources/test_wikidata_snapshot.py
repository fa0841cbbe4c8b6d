"""Every Wikidata build names its snapshot and date, and marks relations whose truth changes with time."""

import datetime
import gzip
import json

import polars as pl
import pytest

from probesmith.builders.sources.wikidata_snapshot import (
    END_TIME_QUALIFIER,
    KNOWN_SNAPSHOTS,
    TIME_DEPENDENT_RELATIONS,
    describe_snapshot,
    snapshot_sidecar,
)
from probesmith.schemas.parquet import read_parquet

from ...conftest import SHARED_DATA

SLICE = SHARED_DATA / "wikidata_slice" / "wikidata_slice.nt.gz"


def test_a_dump_is_dated_by_its_sidecar_its_dump_id_or_said_to_be_unknown(tmp_path):
    dated = tmp_path / "wikidata-20240101-truthy-BETA.nt.gz"
    assert describe_snapshot(dump=dated)["snapshot_date"] == "2024-01-01"
    undated = tmp_path / "my-slice.nt"
    unknown = describe_snapshot(dump=undated)
    assert unknown["snapshot_date"] == "unknown" and "my-slice.nt.snapshot.json" in unknown["snapshot_note"]
    snapshot_sidecar(undated).write_text(json.dumps({"name": "mine", "date": "2023-05-02", "dump_id": "x"}))
    assert describe_snapshot(dump=undated)["snapshot_date"] == "2023-05-02"
    live = describe_snapshot(endpoint="https://query.wikidata.org/sparql", today=datetime.date(2026, 1, 2))
    assert live["snapshot_date"].startswith("2026-01-02") and "query.wikidata.org" in live["snapshot"]


@pytest.mark.integration
def test_the_slice_has_no_end_time_qualifiers_and_its_dates_are_its_readmes():
    """Read from the raw file: no statement qualifier at all, so the card's 'no end times' is true."""
    if not SLICE.is_file():
        pytest.skip("shared Wikidata slice not present")
    with gzip.open(SLICE, "rt", encoding="utf-8") as fh:
        assert not any("/prop/qualifier/" in line or END_TIME_QUALIFIER in line for line in fh)
    readme = (SLICE.parent / "README.md").read_text()
    assert "2017" in readme and "2024" in readme  # the dates KNOWN_SNAPSHOTS gives the slice
    (known,) = KNOWN_SNAPSHOTS.values()
    assert "2017" in known["date"] and "2024" in known["date"]


def _table(build, config: str) -> pl.DataFrame:
    return pl.concat([pl.from_arrow(read_parquet(p)) for p in build.out.glob(f"{config}/*.parquet")])


@pytest.mark.integration
@pytest.mark.parametrize("fixture", ["small_relations_build", "small_paraphrases_build", "small_rules_build"])
def test_every_wikidata_build_names_its_snapshot_and_what_true_means(fixture, request):
    build = request.getfixturevalue(fixture)
    source = build.manifest["sources"]["wikidata"]
    assert source["dump_sha256"] in KNOWN_SNAPSHOTS
    assert source["snapshot_date"] == KNOWN_SNAPSHOTS[source["dump_sha256"]]["date"]
    assert source["end_time_qualifiers"] == "absent"
    card = (build.out / "README.md").read_text()
    assert "## Snapshot and time" in card and source["snapshot_date"] in card
    assert 'What "true" means' in card and "no statement qualifiers" in card
    relations = set()
    for config in ("instances", "knowledge_items", "rules", "patterns"):
        if any(build.out.glob(f"{config}/*.parquet")):
            table = _table(build, config)
            for column in ("relation_id", "relation", "r1", "r2", "r3"):
                if column in table.columns:
                    relations |= {r.removesuffix("^-1") for r in table[column].to_list()}
    changing = sorted(r for r in relations if r in TIME_DEPENDENT_RELATIONS)
    assert changing, "the small builds hold relations that change with time"
    for pid in changing:  # every one of them is named in the card with its reason
        assert f"- {pid}" in card and TIME_DEPENDENT_RELATIONS[pid] in card


@pytest.mark.integration
def test_relation_info_marks_every_relation_that_changes_with_time(small_relations_build):
    info = _table(small_relations_build, "relation_info")
    assert info.height > 0
    for row in info.iter_rows(named=True):
        assert row["changes_over_time"] == (row["relation_id"] in TIME_DEPENDENT_RELATIONS), row


@pytest.mark.integration
def test_a_frozen_snapshot_carries_its_source_and_date_and_keeps_a_sidecar_of_a_person(
    wikidata_store, tmp_path
):
    from probesmith.builders.registry import load_spec
    from probesmith.builders.sources import snapshot_wikidata

    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text(
        f"include: relations\nrelations: [P36]\nwikidata:\n  source: {wikidata_store}\n  cache_mode: 'off'\n"
    )
    out = tmp_path / "frozen.nt.gz"
    snapshot_wikidata(load_spec(spec_path), out)
    frozen = describe_snapshot(dump=out)
    assert frozen["snapshot_date"] == "2017 to 2024 (mixed snapshots)"  # the slice's, carried over
    assert str(wikidata_store) in frozen["snapshot"]
    snapshot_sidecar(out).write_text(json.dumps({"name": "mine", "date": "1999-01-01"}))
    snapshot_wikidata(load_spec(spec_path), out, force=True)
    assert describe_snapshot(dump=out)["snapshot_date"] == "1999-01-01"  # a person's sidecar stays


def test_the_relations_the_reads_found_changing_are_declared():
    """The twenty-second read: the relations card left out P137 (operator: 8 instances with gold Union Army),
    P115 (home venue) and P466 (occupant, P115 seen from the venue); every catalog relation was checked and
    official languages (P37), connecting lines (P81) and twinnings (P190) join them."""
    for pid in ("P37", "P81", "P115", "P137", "P190", "P466"):
        assert pid in TIME_DEPENDENT_RELATIONS
