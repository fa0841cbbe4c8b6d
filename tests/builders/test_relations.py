"""Balanced relation sets from the real Wikidata slice, end to end."""

import json
from collections import Counter

import polars as pl
import pytest

from probesmith.builders.bear import read_bear, write_bear
from probesmith.builders.build import build
from probesmith.builders.registry import load_spec
from probesmith.builders.relations import export_bear
from probesmith.errors import SpecError
from probesmith.schemas.parquet import read_parquet

from ..conftest import FIXTURES, SHARED_DATA

pytestmark = pytest.mark.integration
BEAR = SHARED_DATA / "bear" / "BEAR"


def table(result, config):
    return pl.concat([pl.from_arrow(read_parquet(p)) for p in sorted(result.out.glob(f"{config}/*.parquet"))])


def test_every_answer_is_gold_exactly_k_times(small_relations_build):
    instances = table(small_relations_build, "instances")
    answers = table(small_relations_build, "answer_spaces")
    assert set(instances["relation_id"]) == {"P36", "P19", "P463", "P1412", "P1303"}
    for pid in instances["relation_id"].unique():
        rows = instances.filter(pl.col("relation_id") == pid)
        counts = Counter(rows["obj_id"].to_list())
        assert len(set(counts.values())) == 1, (pid, counts)  # exact balance
        space = answers.filter(pl.col("relation_id") == pid)
        assert set(counts) == set(space["obj_id"]) and len(space) <= 10
        assert rows["sub_id"].n_unique() == len(rows)  # subjects unique within a relation
        assert len(set(space["obj_label"].str.to_lowercase())) == len(space)  # no two options alike
        for row in rows.iter_rows(named=True):
            assert row["obj_id"] in row["gold_obj_ids"] and row["sub_id"] != row["obj_id"]
            assert row["obj_label"].lower() not in row["sub_label"].lower() or len(row["obj_label"]) < 3
            assert space.filter(pl.col("answer_idx") == row["answer_idx"])["obj_id"][0] == row["obj_id"]
    capital = instances.filter(pl.col("relation_id") == "P36")
    assert (capital["gold_obj_ids"].list.len() == 1).all()  # N-1: one object per subject
    assert (instances.filter(pl.col("relation_id") == "P1412")["gold_obj_ids"].list.len() > 1).any()
    assert instances["popularity"].null_count() == 0 and (instances["popularity"] > 0).all()
    assert (instances["sub_aliases"].list.len() > 0).any()


def test_templates_and_manifest_record_the_queries(small_relations_build):
    templates = table(small_relations_build, "templates")
    assert (templates.group_by("relation_id").len()["len"] >= 3).all()
    assert templates.filter(pl.col("template") == "[X] was born in [Y].")["object_final"].to_list() == [True]
    manifest = small_relations_build.manifest
    assert manifest["queries"] and all(len(q["query_sha256"]) == 64 for q in manifest["queries"])
    assert manifest["sources"]["wikidata"]["store"]
    assert any("subject label contains object label" in reason for reason in manifest["dropped"])


def test_deterministic_and_replayable_offline(small_relations_build, tmp_path):
    manifest = small_relations_build.manifest
    cache = manifest["spec"]["wikidata"]["cache"]
    spec_path = tmp_path / "replay.yaml"
    # replay: the cache only; the store is still named but every answer comes from the cache
    spec_path.write_text(
        f"include: {FIXTURES / 'relations_small.yaml'}\nwikidata:\n  source: {manifest['spec']['wikidata']['source']}\n"
        f"  cache: {cache}\n  cache_mode: replay\n"
    )
    again = build(load_spec(spec_path), tmp_path / "again")
    assert again.logical_hash == small_relations_build.logical_hash
    assert all(q["cached"] for q in again.manifest["queries"])


def test_lm_pub_quiz_loads_our_export(small_relations_build, tmp_path):
    lm_pub_quiz = pytest.importorskip("lm_pub_quiz")
    out = export_bear(small_relations_build.out, tmp_path / "bear")
    dataset = lm_pub_quiz.Dataset.from_path(str(out))
    assert len(dataset) == 5
    relation = next(r for r in dataset if r.relation_code == "P36")
    assert relation.templates[0] == "The capital of [X] is [Y]." or "[X]" in relation.templates[0]
    assert len(relation.answer_space) == len(
        table(small_relations_build, "answer_spaces").filter(pl.col("relation_id") == "P36")
    )


def test_bear_import_export_round_trip_is_identical(tmp_path):
    if not BEAR.is_dir():
        pytest.skip("shared BEAR data not present")
    relations = read_bear(BEAR)
    assert len(relations) == 60 and sum(len(r["instances"]) for r in relations.values()) == 7731
    out = write_bear(tmp_path / "bear", relations)
    for path in sorted(BEAR.glob("P*.jsonl")):
        original = [json.loads(line) for line in path.read_text().splitlines()]
        again = [json.loads(line) for line in (out / path.name).read_text().splitlines()]
        assert original == again, path.name
    assert json.loads((out / "metadata_relations.json").read_text()) == json.loads(
        (BEAR / "metadata_relations.json").read_text()
    )


def test_unknown_relation_is_named(tmp_path):
    spec_path = tmp_path / "bad.yaml"
    spec_path.write_text(f"include: {FIXTURES / 'relations_small.yaml'}\nrelations: [P36, P99999]\n")
    with pytest.raises(SpecError, match=r"\['P99999'\] are not in the catalog"):
        build(load_spec(spec_path), tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_popularity_stratified_sampling_spreads_subjects(small_relations_build, wikidata_store, tmp_path):
    spec_path = tmp_path / "strata.yaml"
    spec_path.write_text(
        f"include: {FIXTURES / 'relations_small.yaml'}\nname: strata\nrelations: [P19]\npopularity_strata: 2\n"
        f"wikidata:\n  source: {wikidata_store}\n  cache_mode: 'off'\n"
    )
    stratified = table(build(load_spec(spec_path), tmp_path / "out"), "instances")
    plain = table(small_relations_build, "instances").filter(pl.col("relation_id") == "P19")
    assert Counter(stratified["obj_id"].to_list()) == Counter(plain["obj_id"].to_list())  # same balance
    median = plain["popularity"].median()
    # round-robin over two strata: each answer gets subjects from both halves where it has them
    per_answer = stratified.group_by("obj_id").agg(low=(pl.col("popularity") <= median).sum())
    assert (per_answer["low"] > 0).sum() >= (per_answer["low"] > 0).len() // 2
    assert stratified["sub_id"].to_list() != plain["sub_id"].to_list()


def test_import_then_export_gives_identical_records(tmp_path):
    if not BEAR.is_dir():
        pytest.skip("shared BEAR data not present")
    from probesmith.cli import main

    assert main(["-q", "import", "bear", str(BEAR), "--out", str(tmp_path / "ours")]) == 0
    assert main(["-q", "export", "bear", str(tmp_path / "ours"), "--out", str(tmp_path / "back")]) == 0
    for path in sorted(BEAR.glob("P*.jsonl")):
        original = [json.loads(line) for line in path.read_text().splitlines()]
        again = [json.loads(line) for line in (tmp_path / "back" / path.name).read_text().splitlines()]
        assert original == again, path.name
    assert json.loads((tmp_path / "back" / "metadata_relations.json").read_text()) == json.loads(
        (BEAR / "metadata_relations.json").read_text()
    )
