"""Balanced relation sets from the real Wikidata slice, end to end."""

import gzip
import json
import re
from collections import Counter, defaultdict

import polars as pl
import pytest

from probesmith.builders.build import build
from probesmith.builders.families.bear import read_bear, write_bear
from probesmith.builders.families.relations import BODY_INITIALISM, export_bear
from probesmith.builders.names import name_key, name_leak
from probesmith.builders.registry import load_spec
from probesmith.builders.text import english_lexicon, fill_template
from probesmith.errors import SpecError
from probesmith.schemas.parquet import read_parquet

from ...conftest import FIXTURES, SHARED_DATA, build_default_spec_of, write_filled_sheet

pytestmark = pytest.mark.integration
BEAR = SHARED_DATA / "bear" / "BEAR"


def table(result, config):
    return pl.concat([pl.from_arrow(read_parquet(p)) for p in sorted(result.out.glob(f"{config}/*.parquet"))])


SLICE = SHARED_DATA / "wikidata_slice"
CONTAINMENT = {"P361", "P131", "P279", "P171", "P17", "P30", "P127", "P749"}


@pytest.fixture(scope="module")
def slice_facts():
    """The slice's facts read straight from its TSV, not through SPARQL or the builder."""
    facts = defaultdict(lambda: defaultdict(set))
    with gzip.open(SLICE / "facts.tsv.gz", "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            s, p, o = line.split("\t")[:3]
            facts[p][s].add(o)
    return facts


@pytest.fixture(scope="module")
def slice_names():
    """Label and English aliases of every entity, read straight from the slice's TSV."""
    names = {}
    with gzip.open(SLICE / "entities.tsv.gz", "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            qid, label, aliases = line.rstrip("\n").split("\t")
            names[qid] = ([label] if label else []) + json.loads(aliases)
    return names


def containers_of(entity, facts, seen=None):
    """Every container of an entity through the containment relations, transitively."""
    seen = set() if seen is None else seen
    for p in CONTAINMENT:
        for parent in facts[p].get(entity, ()):
            if parent not in seen:
                seen.add(parent)
                containers_of(parent, facts, seen)
    return seen


def build_relations(tmp_path_factory, wikidata_store, name: str, relations) -> object:
    """A relations build of the default spec restricted to ``relations``, against the local store, cache off."""
    return build_default_spec_of(tmp_path_factory, wikidata_store, "relations", name, relations)


def test_every_answer_is_gold_exactly_k_times(small_relations_build):
    instances = table(small_relations_build, "instances")
    answers = table(small_relations_build, "answer_spaces")
    assert set(instances["relation_id"]) == {"P36", "P19", "P30", "P463", "P1412", "P1303"}
    for pid in instances["relation_id"].unique():
        rows = instances.filter(pl.col("relation_id") == pid)
        counts = Counter(rows["obj_id"].to_list())
        assert len(set(counts.values())) == 1, (pid, counts)  # exact balance
        space = answers.filter(pl.col("relation_id") == pid)
        assert set(counts) == set(space["obj_id"]) and len(space) <= (60 if pid == "P36" else 10)
        assert rows["sub_id"].n_unique() == len(rows)  # subjects unique within a relation
        assert len(set(space["obj_label"].str.to_lowercase())) == len(space)  # no two options alike
        for row in rows.iter_rows(named=True):
            assert row["obj_id"] in row["gold_obj_ids"] and row["sub_id"] != row["obj_id"]
            assert space.filter(pl.col("answer_idx") == row["answer_idx"])["obj_id"][0] == row["obj_id"]
    capital = instances.filter(pl.col("relation_id") == "P36")
    assert len(capital) == 60 and set(Counter(capital["obj_id"]).values()) == {1}  # 1-1: BEAR's 60 x 1
    assert (instances.filter(pl.col("relation_id") == "P1412")["gold_obj_ids"].list.len() > 1).any()
    assert instances["popularity"].null_count() == 0 and (instances["popularity"] > 0).all()
    assert (instances["sub_aliases"].list.len() > 0).any()


def test_golds_agree_with_an_independent_reading_of_the_slice(
    small_relations_build, slice_facts, slice_names
):
    """Every object the slice gives a subject is a gold, and so is every answer containing one or
    bearing one's name (label or alias); no answer space nests one answer in another; 1-1 subjects
    are countries."""
    instances = table(small_relations_build, "instances")
    answers = table(small_relations_build, "answer_spaces")
    for pid in instances["relation_id"].unique().to_list():
        space = set(answers.filter(pl.col("relation_id") == pid)["obj_id"])
        for a in space:
            assert not (containers_of(a, slice_facts) & space), (pid, a)  # nested_answers: drop
        for row in instances.filter(pl.col("relation_id") == pid).iter_rows(named=True):
            direct = slice_facts[pid][row["sub_id"]]
            implied = {c for o in direct for c in containers_of(o, slice_facts)} & space
            keys = {name_key(n) for g in direct | implied for n in slice_names.get(g, [])} - {""}
            alike = {a for a in space if {name_key(n) for n in slice_names.get(a, [])} & keys}
            assert set(row["gold_obj_ids"]) == direct | implied | alike, (pid, row["sub_label"])
    continents = set(answers.filter(pl.col("relation_id") == "P30")["obj_label"])
    assert "Europe" in continents and "Eurasia" not in continents  # Europe is part of Eurasia
    countries = {"Q6256", "Q3624078"}
    for sub in instances.filter(pl.col("relation_id") == "P36")["sub_id"]:
        assert slice_facts["P31"][sub] & countries, sub


def test_no_subject_gives_its_answer_away_and_no_constant_guess_pays(small_relations_build):
    """Checked with a word-prefix rule written here, not the builder's: no subject label or alias
    shares a 5-letter word start with the object label; no constant beats 1/A + 0.05."""
    generic = {"unive", "natio", "inter", "compa", "assoc", "socie", "acade", "insti", "repub", "kingd"}

    def starts(text):
        return {w.lower()[:5] for w in re.findall(r"[^\W\d_]{4,}", text)} - generic

    instances = table(small_relations_build, "instances")
    answers = table(small_relations_build, "answer_spaces")
    for row in instances.iter_rows(named=True):
        subject = set().union(*(starts(t) for t in [row["sub_label"], *row["sub_aliases"]]))
        assert not subject & starts(row["obj_label"]), (row["sub_label"], row["obj_label"])
    for pid in instances["relation_id"].unique().to_list():
        rows = instances.filter(pl.col("relation_id") == pid)
        space = answers.filter(pl.col("relation_id") == pid)["obj_id"].to_list()
        best = max(sum(a in golds for golds in rows["gold_obj_ids"]) / len(rows) for a in space)
        assert best <= 1 / len(space) + 0.05 + 1e-9, (pid, best)
    validity = json.loads((small_relations_build.out / "validity.json").read_text())
    assert all(n == 0 for n in validity["totals"].values()), validity["totals"]
    assert len(validity["coverage"]) == 60
    readme = (small_relations_build.out / "README.md").read_text()
    assert "Coverage of BEAR's 60 relations" in readme and "**not** a popularity measure" in readme


def test_templates_and_manifest_record_the_queries(small_relations_build):
    templates = table(small_relations_build, "templates")
    assert (templates.group_by("relation_id").len()["len"] >= 3).all()
    assert templates.filter(pl.col("template") == "[X] was born in [Y].")["object_final"].to_list() == [True]
    manifest = small_relations_build.manifest
    assert manifest["queries"] and all(len(q["query_sha256"]) == 64 for q in manifest["queries"])
    assert manifest["sources"]["wikidata"]["store"]
    assert any("shares a name token" in reason for reason in manifest["dropped"])


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


def test_lm_pub_quiz_loads_our_export_and_no_gold_is_lost(small_relations_build, tmp_path):
    lm_pub_quiz = pytest.importorskip("lm_pub_quiz")
    out = export_bear(small_relations_build.out, tmp_path / "bear")
    dataset = lm_pub_quiz.Dataset.from_path(str(out))
    assert len(dataset) == 6
    relation = next(r for r in dataset if r.relation_code == "P36")
    assert relation.templates[0] == "The capital of [X] is [Y]." or "[X]" in relation.templates[0]
    answers = table(small_relations_build, "answer_spaces")
    assert len(relation.answer_space) == len(answers.filter(pl.col("relation_id") == "P36"))
    # every record carries its golds; a record whose space holds a second gold is left out, counted
    instances = table(small_relations_build, "instances")
    report = json.loads((out / "probesmith_export.json").read_text())
    for pid in instances["relation_id"].unique().to_list():
        space = set(answers.filter(pl.col("relation_id") == pid)["obj_id"])
        rows = instances.filter(pl.col("relation_id") == pid)
        second = sum(len(set(g) & space) > 1 for g in rows["gold_obj_ids"])
        records = [json.loads(line) for line in (out / f"{pid}.jsonl").read_text().splitlines()]
        assert report["left_out_second_gold_in_space"][pid] == second
        assert len(records) == len(rows) - second
        assert all(
            len(set(r["gold_obj_ids"]) & space) == 1 and r["obj_id"] in r["gold_obj_ids"] for r in records
        )


def test_bear_export_templates_read_right_when_a_bear_scorer_fills_them(small_relations_build, tmp_path):
    """lm-pub-quiz fills [Y] by plain replacement: an exported template must read as probesmith's fill
    (no "a actor", no "the The ...") for every answer, unless its relation has no other template
    (the small build's templates are the catalog's, none imported from BEAR)."""
    out = export_bear(small_relations_build.out, tmp_path / "bear")
    meta = json.loads((out / "metadata_relations.json").read_text())
    report = json.loads((out / "probesmith_export.json").read_text())
    templates = table(small_relations_build, "templates")
    for pid, relation in meta.items():
        own = templates.filter(pl.col("relation_id") == pid)["template"].to_list()
        left_out = report["left_out_templates_needing_agreement"].get(pid, [])
        assert sorted(relation["templates"] + left_out) == sorted(own) and relation["templates"]
        if left_out:  # only where another template is kept, and every kept one reads right
            assert all(
                t.replace("[Y]", a) == fill_template(t, None, a)
                for t in relation["templates"]
                for a in relation["answer_space_labels"]
            )
            assert all(
                any(t.replace("[Y]", a) != fill_template(t, None, a) for a in relation["answer_space_labels"])
                for t in left_out
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
        # BEAR's records come back unchanged, each with the one gold BEAR gives it written beside
        assert [{**r, "gold_obj_ids": [r["obj_id"]]} for r in original] == again, path.name
    assert json.loads((tmp_path / "back" / "metadata_relations.json").read_text()) == json.loads(
        (BEAR / "metadata_relations.json").read_text()
    )


def test_review_sheet_of_a_relations_build_spreads_over_relations(small_relations_build, tmp_path):
    import csv
    import shutil

    from probesmith.eval.review import read_review_sheet, write_review_sheet

    build = tmp_path / "build"
    shutil.copytree(small_relations_build.out, build)
    sheet = write_review_sheet(build, n=24, seed=1)
    rows = list(csv.DictReader(open(sheet, encoding="utf-8")))
    assert len(rows) == 24 and Counter(r["config"] for r in rows) == {
        pid: 4 for pid in ("P1303", "P1412", "P19", "P30", "P36", "P463")
    }
    for row in rows:  # the statement leaves the object blank; the gold is one of the space's options
        assert "___" in row["question"] and row["gold"] in row["answer_space"].split("; ")
        assert row["gold"] in row["all_golds"].split("; ")
    for i, row in enumerate(rows):
        row["gold_is_correct"] = "y"
        row["other_correct"] = "Europe" if i == 0 else ""
    filled = tmp_path / "filled.csv"
    write_filled_sheet(filled, rows)
    result = read_review_sheet(build, filled)
    assert result["overall"]["reviewed"] == 24 and result["overall"]["validated_accuracy"] == round(
        23 / 24, 4
    )


def test_the_build_records_what_it_decided_about_each_relation(small_relations_build, slice_facts):
    """relation_info: the cardinality balanced as (the catalog's, or the 90% rule on the slice's own
    facts), the catalog's domains and the set's size; evaluation reads it instead of a catalog."""
    from probesmith.builders.sources.catalog import load_catalog

    catalog = load_catalog(small_relations_build.manifest["spec"]["catalog"])
    info = table(small_relations_build, "relation_info")
    instances, answers = (
        table(small_relations_build, "instances"),
        table(small_relations_build, "answer_spaces"),
    )
    assert sorted(info["relation_id"]) == sorted(instances["relation_id"].unique())
    for row in info.iter_rows(named=True):
        pid = row["relation_id"]
        assert row["instances"] == instances.filter(pl.col("relation_id") == pid).height
        assert row["answers"] == answers.filter(pl.col("relation_id") == pid).height
        assert row["domains"] == list(catalog[pid].domains)
        expected = catalog[pid].cardinality
        if expected == "auto":
            subjects = slice_facts[pid]
            single = sum(len(objs) == 1 for objs in subjects.values()) / len(subjects)
            per_object = Counter(o for objs in subjects.values() for o in objs)
            unique = sum(n == 1 for n in per_object.values()) / len(per_object)
            expected = ("1-1" if unique >= 0.9 else "N-1") if single >= 0.9 else "N-M"
        assert row["cardinality"] == expected, pid


def test_no_name_token_leak_and_no_answer_named_like_a_gold_left_wrong(
    small_relations_build, slice_facts, slice_names
):
    """Over every instance, with names read from the slice's TSV (not the builder's lookups): the
    subject shares no name token with a gold of its space (function words and the relation's
    generic tokens aside); every answer of the space named like one of the subject's objects (label
    or alias, case and diacritics aside) is a gold; no two answers of a space share a name."""
    instances = table(small_relations_build, "instances")
    answers = table(small_relations_build, "answer_spaces")
    validity = json.loads((small_relations_build.out / "validity.json").read_text())
    assert validity["totals"]["no_leak"] == validity["totals"]["equal_answers"] == 0

    def keys(entity):
        return {name_key(n) for n in slice_names.get(entity, [])} - {""}

    checked = 0
    for pid in instances["relation_id"].unique().to_list():
        generic = frozenset(validity["relations"][pid]["generic_tokens"])
        assert not generic & {"li", "zhu", "bmw", "bbc"}  # names of identity are never generic
        space = answers.filter(pl.col("relation_id") == pid)["obj_id"].to_list()
        for i, a in enumerate(space):
            assert not any(keys(a) & keys(b) for b in space[i + 1 :]), (pid, a)
        for row in instances.filter(pl.col("relation_id") == pid).iter_rows(named=True):
            subject = slice_names[row["sub_id"]]
            for gold in set(row["gold_obj_ids"]) & set(space):
                assert not name_leak(subject, slice_names[gold], generic), (pid, row["sub_label"], gold)
            objects = set().union(*(keys(o) for o in slice_facts[pid][row["sub_id"]]))
            for a in space:
                if keys(a) & objects:
                    assert a in row["gold_obj_ids"], (pid, row["sub_label"], a)
            checked += 1
    assert checked == len(instances) > 0


def test_a_class_of_a_gold_occupation_and_a_namesake_are_golds(
    wikidata_store, tmp_path, slice_facts, slice_names
):
    """P106 and P27 with the constant-answer rule off (margin 1), so that 'Writer' stays beside poet
    and novelist: over every instance, each answer of the space that is a direct class of an object
    of the subject in the slice (P279 / P31), or is labelled with one of its names, is among the golds
    ("Russian Empire", alias "Russia", is not labelled "Russia": no gold of a citizen of Russia)."""
    spec_path = tmp_path / "classes.yaml"
    spec_path.write_text(
        f"include: {FIXTURES / 'relations_small.yaml'}\nname: classes\nrelations: [P106, P27]\n"
        f"max_answers: 20\nmax_per_answer: 5\nconstant_margin: 1\n"
        f"wikidata:\n  source: {wikidata_store}\n  cache_mode: 'off'\n"
    )
    result = build(load_spec(spec_path), tmp_path / "out")
    instances = table(result, "instances")
    answers = table(result, "answer_spaces")

    def keys(entity):
        return {name_key(n) for n in slice_names.get(entity, [])} - {""}

    marked = 0
    for pid in ("P106", "P27"):
        space = set(answers.filter(pl.col("relation_id") == pid)["obj_id"])
        label = dict(answers.select("obj_id", "obj_label").iter_rows())
        for row in instances.filter(pl.col("relation_id") == pid).iter_rows(named=True):
            direct = slice_facts[pid][row["sub_id"]]
            classes = {c for o in direct for p in ("P279", "P31") for c in slice_facts[p].get(o, ())}
            named = set().union(*(keys(o) for o in direct))
            expected = {a for a in space if (pid == "P106" and a in classes) or name_key(label[a]) in named}
            assert expected <= set(row["gold_obj_ids"]), (pid, row["sub_label"], expected)
            marked += bool((expected - direct) & space)
    writer = answers.filter((pl.col("relation_id") == "P106") & (pl.col("obj_label") == "Writer"))
    assert len(writer) == 1 and marked > 0


def test_no_subject_is_a_named_thing_its_label_would_misread(small_relations_build, slice_facts):
    """No subject is a person, work, band or taxon (its class in the slice) named like a place or a
    plural: evaluation fills templates from labels alone, which would give "The Mystic River" (a film)."""
    from probesmith.builders.sources.catalog import load_name_classes
    from probesmith.builders.text import is_plural_noun, takes_definite_article

    classes = load_name_classes()
    instances = table(small_relations_build, "instances")
    misread = [
        (row["relation_id"], row["sub_label"])
        for row in instances.iter_rows(named=True)
        if slice_facts["P31"].get(row["sub_id"], set()) & classes
        and (takes_definite_article(row["sub_label"]) or is_plural_noun(row["sub_label"]))
    ]
    assert instances.height and misread == []


def every_fill(result):
    """(instance row, answer label, sentence) for every instance x template x answer of a build."""
    instances = table(result, "instances")
    answers = table(result, "answer_spaces")
    templates = table(result, "templates")
    space = {r: g["obj_label"].to_list() for (r,), g in answers.group_by("relation_id")}
    forms = {r: g["template"].to_list() for (r,), g in templates.group_by("relation_id")}
    for row in instances.iter_rows(named=True):
        for template in forms[row["relation_id"]]:
            for answer in space[row["relation_id"]]:
                yield row, answer, fill_template(template, row["sub_label"], answer)


def test_every_fill_opens_with_a_capital(small_relations_build):
    """Over every instance x template x answer of the small build: the sentence's first letter is
    upper-case, unless its first word is written with a capital inside ("iPhone", "eBay")."""
    lower = []
    for _, _, text in every_fill(small_relations_build):
        first = text.split()[0]
        if first[:1].islower() and not any(c.isupper() for c in first[1:]):
            lower.append(text)
    assert lower == []


# names of bodies English reads without "the" (the fourth read's "a member of the Eurocontrol")
BARE_BODIES = {"Eurocontrol", "Interpol", "Europol", "UNESCO", "NATO", "Mercosur", "Deutsche Bank"}


def test_every_fill_ends_with_one_period_and_names_its_body_right(small_relations_build):
    """Over every instance x template x answer of the small build, judged apart from ``fill_template``:
    no sentence ends in ".." unless a label ends so itself ("S.O.B.", fourth read); no "the" before an
    answer whose label has its own ("the The ...") or before a name of a body that English reads bare
    (``BARE_BODIES``: "a member of the Eurocontrol"); no P413 sentence names a player's label as a position
    ("plays in the pitcher position")."""
    bad, fills = [], 0
    for row, answer, text in every_fill(small_relations_build):
        fills += 1
        if text.endswith("..") and not answer.endswith("..") and not row["sub_label"].endswith(".."):
            bad.append(text)
        if re.search(r"\bthe The\b", text) or f"the {answer}" in text and answer in BARE_BODIES:
            bad.append(text)
        if re.search(r"in the \w+ position", text):
            bad.append(text)
    assert fills and bad == []


# classes of a team or a band in the slice (relations.TEAM_CLASSES, written here apart from it)
TEAMS_AND_BANDS = {
    "Q12973014", "Q847017", "Q476028", "Q13027888", "Q17156793", "Q13393265", "Q4498974",
    "Q215380", "Q5741069", "Q2088357",
}  # fmt: skip


def test_fifth_read_subjects_and_fills(small_relations_build, slice_facts, slice_names):
    """Over every instance x template x answer of the small build, judged apart from the builder: no
    subject label with a disambiguator ("Settle (album)"); no team or band subject named in the plural
    without its own "The" ("Chicago Cubs is"); no "the" before a "Lake X" or "Mount X" ("next to the Lake
    Michigan"); a label with an appositive comma ("Edward, the Black Prince") is closed by a comma when
    the sentence goes on; no answer shown by the acronym of a society or academy its alias spells out
    ("a member of RSL")."""
    lexicon = english_lexicon()
    answers = table(small_relations_build, "answer_spaces")
    instances = table(small_relations_build, "instances")
    bad = []
    for row in instances.iter_rows(named=True):
        label = row["sub_label"]
        if re.search(r"\s\(", label):
            bad.append(("disambiguator", label))
        last = label.split()[-1].lower()
        team = slice_facts["P31"].get(row["sub_id"], set()) & TEAMS_AND_BANDS
        if team and not label.startswith("The ") and last in lexicon.plural_nouns and "&" not in label:
            bad.append(("plural team", label))
    for row, answer, text in every_fill(small_relations_build):
        if re.search(r"\bthe (Lake|Mount|Loch) (?!of\b)", text):
            bad.append(("the Lake", text))
        for name in (row["sub_label"], answer):
            at = text.find(name)
            goes_on = text[at + len(name) : at + len(name) + 2]
            appositive = re.search(r", [a-z]", name) and not re.search(r"&| and ", name)
            if appositive and at >= 0 and re.fullmatch(r" \w", goes_on):
                bad.append(("no closing comma", text))
    for (relation,), group in answers.group_by("relation_id"):
        for row in group.iter_rows(named=True):
            label = row["obj_label"]
            for alias in slice_names.get(row["obj_id"], [])[1:]:
                words = alias.split()
                initials = "".join(w[0] for w in words if w[0].isupper())
                short = "".join(w[0] for w in alias.split(" of ")[0].split() if w[0].isupper())
                if (
                    re.fullmatch(r"[A-Z]{2,5}", label)
                    and label in (initials, short)
                    and re.search(r"\b(Society|Academy|Institute)\b", alias)
                ):
                    bad.append(("acronym", relation, label, alias))
    assert instances.height and bad == []


@pytest.fixture(scope="module")
def read_relations_build(tmp_path_factory, wikidata_store):
    """The relations the seventh independent read found wrong once filled (``relations_read.yaml``), built once."""
    spec_path = tmp_path_factory.mktemp("specs") / "relations_read.yaml"
    spec_path.write_text(
        f"include: {FIXTURES / 'relations_read.yaml'}\nwikidata:\n  source: {wikidata_store}\n  cache_mode: 'off'\n"
    )
    return build(load_spec(spec_path), tmp_path_factory.mktemp("builds") / "relations-read")


# words a template may repeat beside a label without doubling it (function words)
REPEATABLE = {"the", "of", "a", "an", "in", "and", "is", "was", "to", "by", "for", "at", "on", "de"}


def doubled_words(text: str, labels: tuple[str, ...]) -> list[str]:
    """Content words (3+ letters) twice within three words of each other, not both inside one label nor one
    in each label ("The capital of South Korea is South Tarawa": the template repeats nothing)."""
    words = [w.lower() for w in re.findall(r"[^\W\d_]+", text)]
    inside = [re.findall(r"[^\W\d_]+", label.lower()) for label in labels]
    found = []
    for i, word in enumerate(words):
        for j in range(i + 1, min(i + 4, len(words))):
            in_two_labels = sum(word in label_words for label_words in inside) >= 2
            if word == words[j] and len(word) > 2 and word not in REPEATABLE and not in_two_labels:
                span = words[i : j + 1]
                if not any(
                    span == label_words[k : k + len(span)]
                    for label_words in inside
                    for k in range(len(label_words))
                ):
                    found.append(" ".join(span))
    return found


@pytest.mark.parametrize("which", ["small_relations_build", "read_relations_build"])
def test_no_template_doubles_a_word_over_every_fill(which, request):
    """The card's ``templates_read`` ("no template doubles a word") over every instance x template x answer
    of two real builds, judged apart from ``filled_problem``: no content word twice within three words
    unless the label itself has it so. The seventh read found 144 P7959 sentences "located in the historic
    county of County Leitrim" that the claim, tested on adjacent words only, let through."""
    result = request.getfixturevalue(which)
    bad, fills = [], 0
    for row, answer, text in every_fill(result):
        fills += 1
        if doubled_words(text, (row["sub_label"], answer)):
            bad.append(text)
    assert fills and bad == [], bad[:5]


def test_seventh_read_articles_number_and_tense_over_every_fill(read_relations_build, slice_facts):
    """Over every instance x template x answer of the read build, judged apart from ``fill_template``:
    "the" before "Tower of London", "United Nations" and a named prison or camp ("the Sighet prison");
    "a" before a cause of death that is one event ("a stroke", "a heart attack"); no P108/P6886 sentence in
    the present tense ("works for", "has used ... for writing"), no P176 "is produced by" (ships are built);
    every P53 answer names a house, dynasty, family or clan (not "the Chingissid"); no person as a subject
    labelled without a capital ('jokal')."""
    instances = table(read_relations_build, "instances")
    answers = table(read_relations_build, "answer_spaces")
    bad, fills = [], 0
    for _row, answer, text in every_fill(read_relations_build):
        fills += 1
        at = text.find(answer)
        before = text[:at].split()[-1:] if at > 0 else []
        needs_the = re.match(r"(Tower|Palace) of |United Nations$", answer) or re.search(
            r"^[A-Z].* (prison|camp)$", answer
        )
        if needs_the and before and before[0] not in ("the", "The"):
            bad.append(("no the", text))
        if answer in ("stroke", "heart attack") and before != ["a"]:
            bad.append(("no a", text))
        if re.search(r"\b(works for|has used|is produced by|is a product of)\b", text):
            bad.append(("tense or verb", text))
    for label in answers.filter(pl.col("relation_id") == "P53")["obj_label"]:
        if not re.search(r"\b(House|Dynasty|dynasty|Family|family|Clan|clan)\b", label):
            bad.append(("family", label))
    for row in instances.iter_rows(named=True):
        humans = "Q5" in slice_facts["P31"].get(row["sub_id"], set())
        if humans and not any(c.isupper() or c.isdigit() for c in row["sub_label"]):
            bad.append(("lower-case person", row["sub_label"]))
    assert fills and set(answers["relation_id"]) >= {"P7959", "P2632", "P509", "P53"} and bad == []


# classes English names with "the" (river, sea, ocean, marginal sea, mountain range, desert, archipelago,
# strait, canal), written here apart from relations.DEFINITE_CLASSES
TAKES_THE = {"Q4022", "Q165", "Q9430", "Q204894", "Q46831", "Q8514", "Q33837", "Q37901", "Q12284"}


def test_eighth_read_tense_movement_article_number_and_comma_over_every_fill(
    read_relations_build, slice_facts
):
    """Over every instance x template x answer of the read build, judged from the slice's classes apart from
    ``fill_template``: no P101/P106 sentence in the present tense ("works as", "specializes in": false of the
    dead), no P135 template for people alone ("a significant figure in"); an entity of a class named with
    "the" (the Rhine, the Black Pine Mountains) has "the" before it; an appositive opened by an ordinal or
    ending in its own full stop closes with a comma ("Hussey Vivian, 3rd Baron Vivian, was")."""
    answers = table(read_relations_build, "answer_spaces")
    ids = {(r, label): o for r, o, label in answers.select("relation_id", "obj_id", "obj_label").rows()}
    classes = slice_facts["P31"]
    bad, fills = [], 0
    for row, answer, text in every_fill(read_relations_build):
        fills += 1
        relation, subject = row["relation_id"], row["sub_label"]
        if relation in ("P101", "P106") and re.search(r"\b(works|specializes|earns|is a)\b", text):
            bad.append(("present tense", text))
        if relation == "P135" and "significant figure" in text:
            bad.append(("a person's template", text))
        for entity, label in ((row["sub_id"], subject), (ids[(relation, answer)], answer)):
            at = text.find(label)
            before = text[:at].split()[-1:] if at > 0 else []
            if classes.get(entity, set()) & TAKES_THE and before not in (["the"], ["The"]):
                bad.append(("no the", text))
        if re.search(r", (\d+(st|nd|rd|th) |.*\.$)", subject) and re.search(
            re.escape(subject) + r" [a-z]", text
        ):
            bad.append(("no closing comma", text))
    relations = set(answers["relation_id"])
    assert fills and relations >= {"P101", "P106", "P135", "P403", "P131"} and bad == []


# classes of a group named in the plural that English reads with "the": teams, bands, groups of fictional
# characters (the slice's P31)
GROUP_CLASSES = {
    "Q12973014", "Q847017", "Q476028", "Q13027888", "Q17156793", "Q13393265", "Q4498974", "Q215380",
    "Q5741069", "Q2088357", "Q14514600",
}  # fmt: skip


def test_ninth_read_instruments_groups_possessives_and_wordings_over_every_fill(
    read_relations_build, slice_facts
):
    """Over every instance x template x answer of the read build, judged from the slice's classes apart from
    ``fill_template``: no P1303 answer that is a voice (P31 human voice: "X plays voice"), an instrument after
    "plays"/"playing" has "the" ("plays the organ"); a group (team, band, fictional group) whose label's last
    part is a plural noun of the lexicon and has no own "The" is read with "the" ("a member of the X-Men");
    no "'s's"; none of the wordings the read found wrong ("first published", "got published", "first
    introduced", "used to communicate", P1412's stilted "has communicated in", P27 in the present tense: "holds citizenship", "is a citizen")."""
    answers = table(read_relations_build, "answer_spaces")
    ids = {(r, label): o for r, o, label in answers.select("relation_id", "obj_id", "obj_label").rows()}
    classes = slice_facts["P31"]
    lexicon = english_lexicon()
    voices = [label for (r, label), o in ids.items() if r == "P1303" and "Q7390" in classes.get(o, set())]
    wrong = re.compile(
        r"first published|got published|first introduced|used to communicate|has communicated|holds citizenship|"
        r"is a citizen|recognizes|'s's"
    )
    bad, fills = [], 0
    for row, answer, text in every_fill(read_relations_build):
        fills += 1
        relation = row["relation_id"]
        if wrong.search(text):
            bad.append(("wording", text))
        if re.search(r"(?<!the )(German Renaissance|art of painting|United States Penitentiary)", text):
            bad.append(("ninth read: bare label that takes the", text))
        if relation == "P1303" and re.search(rf"\b(plays|playing) {re.escape(answer)}\b", text):
            bad.append(("instrument without the", text))
        for entity, label in ((row["sub_id"], row["sub_label"]), (ids[(relation, answer)], answer)):
            last = label.split()[-1].split("-")[-1].lower() if label.split() else ""
            plural = last in lexicon.plural_nouns and last not in lexicon.singular_nouns
            if classes.get(entity, set()) & GROUP_CLASSES and plural and not label.startswith("The "):
                at = text.find(label)
                if at > 0 and text[:at].split()[-1:] != ["the"]:
                    bad.append(("group without the", text))
    typed_things = [
        row["sub_label"]
        for row in table(read_relations_build, "instances").iter_rows(named=True)
        if row["relation_id"] in ("P101", "P106")
        and classes.get(row["sub_id"])
        and "Q5" not in classes[row["sub_id"]]
    ]
    relations = set(answers["relation_id"])
    assert fills and relations >= {"P1303", "P463", "P291", "P495", "P1412", "P27"} and voices == []
    assert typed_things == []  # "Rococo has worked in the field of"
    assert bad == [], (len(bad), bad[:8])


def test_group_named_in_plural_reads_the_last_part_of_a_hyphenated_name():
    """'X-Men' is plural by its last part; 'Genesis', 'Royal Society' and 'The Beatles' (its own 'The') are not
    groups missing their 'the'."""
    from probesmith.builders.families.relations import group_named_in_plural

    assert group_named_in_plural("X-Men") and group_named_in_plural("Bee Gees")
    assert not any(
        group_named_in_plural(n) for n in ("Genesis", "Royal Society", "The Beatles", "Eurocontrol")
    )


PLACE_RELATIONS = {"P17", "P19", "P20", "P27", "P30", "P131", "P159", "P183", "P276", "P291", "P495"}
PLACE_RELATIONS |= {"P551", "P740", "P937"}
# a dependent territory (Q161243, "New Caledonia") is none: it lies in another state (the eleventh read)
COUNTRY_CLASSES = {"Q6256", "Q3624078", "Q5107", "Q1763527", "Q3024240", "Q15634554", "Q7275"}


@pytest.mark.parametrize("which", ["small_relations_build", "read_relations_build"])
def test_tenth_read_every_answer_of_a_space_of_places_is_placed_and_nested_answers_are_golds(
    which, request, slice_facts
):
    """Over every relation and every instance of two real builds (the read build has P131 and P183), read
    from the slice's TSV apart from the builder: in the space of a place relation (its object where the
    subject is, was or comes from) where a country or a continent stands beside other places, every answer
    is a country or continent or has a P131/P17/P30/P361 fact (the tenth read: 'Goiás', no fact placing it,
    beside 'Brazil': 33 P183 instances with a second true answer no gold marked); and every answer of the
    space that contains a gold through the containment relations is a gold. validity.json counts both."""
    result = request.getfixturevalue(which)
    instances = table(result, "instances")
    answers = table(result, "answer_spaces")
    classes = slice_facts["P31"]
    unplaced, unmarked = [], []
    for (pid,), space in answers.group_by("relation_id"):
        ids = space["obj_id"].to_list()
        countries = [a for a in ids if classes.get(a, set()) & COUNTRY_CLASSES]
        placed = [a for a in ids if any(slice_facts[p].get(a) for p in ("P131", "P17", "P30", "P361"))]
        if pid in PLACE_RELATIONS and countries:
            unplaced += [(pid, label) for a, label in space.select("obj_id", "obj_label").rows()
                         if a not in countries and a not in placed]  # fmt: skip
        rows = instances.filter(pl.col("relation_id") == pid)
        for sub, golds in rows.select("sub_label", "gold_obj_ids").rows():
            containing = {c for g in golds for c in containers_of(g, slice_facts)}
            if containing & set(ids) - set(golds):
                unmarked.append((pid, sub))
    assert unplaced == [] and unmarked == [], (unplaced[:5], unmarked[:5])
    validity = json.loads((result.out / "validity.json").read_text())
    assert validity["totals"]["answers_placed"] == 0 and validity["totals"]["nested_answers"] == 0
    if which == "read_relations_build":
        # Goiás, no fact placing it, is no answer; where Brazil is one (the common-name taxa dropped since
        # 86a4eb4 can take it out of the space), no place inside Brazil is one beside it
        p183 = answers.filter(pl.col("relation_id") == "P183")
        assert p183.height and "Goiás" not in p183["obj_label"].to_list()
        if "Q155" in p183["obj_id"].to_list():
            inside = [a for a in p183["obj_id"].to_list() if "Q155" in containers_of(a, slice_facts)]
            assert inside == [], inside


# names the tenth read found without their "the", judged by their heads apart from takes_definite_article:
# a plural common noun's possessive before a state's head, a dynasty, a people, a language, a road, a
# railway, a metro, a war, a South African municipality
# (capitalised words before the head, none a possessive, no "The", "A", "This": not a title as "This Means War")
TENTH_READ_THE = re.compile(
    r"^(?:People's|People’s) (?:\S+ )*(?:Republic|Army|Navy)\b|^(?!The |A |This |My )(?:[A-Z0-9][^\s']*\s)+"
    r"(?:dynasty|people|language|Autobahn|Railway|Metro|War|District Municipality|Local Municipality)$"
)


def test_tenth_read_names_that_take_the_have_it_in_every_fill(read_relations_build):
    """Over every instance x template x answer of the read build (P131 and P183 answer "People's Republic
    of China", 82 sentences of the v10 build read "is located in People's Republic of China"): every subject
    or answer whose head takes "the" (TENTH_READ_THE) has it, or a determiner or a possessive before it."""
    bare, seen = [], 0
    for row, answer, text in every_fill(read_relations_build):
        for label in (row["sub_label"], answer):
            if not TENTH_READ_THE.search(label) or re.search(r"[:()]", label):
                continue
            seen += 1
            before = text[: text.find(label)].split()
            if not before or before[-1].lower() not in ("the", "its", "their"):
                bare.append(text)  # at the start ("People's Republic of China is") or after no determiner
    assert seen and bare == [], bare[:5]


def test_eleventh_read_an_alias_with_the_gives_the_and_a_works_title_takes_none_over_every_fill(
    read_relations_build, slice_names, slice_facts
):
    """Over every instance x template x answer of the read build, read from the slice's TSV apart from the
    builder: a subject or answer one of whose aliases is its label with a leading "the" (the eleventh read's
    "Calchas appears in Iliad", alias "the Iliad"; "Rhins of Galloway is located in", alias "The Rhins of
    Galloway"; a country's "the Sudan" and a university's "The Johns Hopkins University" aside) has "the"
    before it wherever the template gives it none, or is not asked; a work of a work relation (a P57 film, a
    P1441 work) is never read with a "the" its label lacks ("The Café Society was directed by")."""
    instances = table(read_relations_build, "instances")
    answers = table(read_relations_build, "answer_spaces")
    label_ids = {(r, label): o for r, o, label in answers.select("relation_id", "obj_id", "obj_label").rows()}
    countries = {e for e, kinds in slice_facts["P31"].items() if kinds & COUNTRY_CLASSES}

    def alias_gives_the(entity, label):
        aliases = slice_names.get(entity, [])[1:]
        return (
            label[:1].isupper()
            and entity not in countries
            and not label.endswith("University")
            and any(a.casefold() == f"the {label}".casefold() for a in aliases)
        )

    bare, misread, seen, works = [], [], 0, 0
    for row, answer, text in every_fill(read_relations_build):
        pid = row["relation_id"]
        for entity, label in ((row["sub_id"], row["sub_label"]), (label_ids[pid, answer], answer)):
            if alias_gives_the(entity, label):
                seen += 1
                if not re.search(rf"(?i)\bthe {re.escape(label)}", text):
                    bare.append(text)
        work = {"P57": row["sub_label"], "P1441": answer}.get(pid)
        if work is not None and work[:4] != "The ":
            works += 1
            if re.search(rf"(?i)\bthe {re.escape(work)}", text):
                misread.append(text)
    assert instances.filter(pl.col("relation_id").is_in(["P57", "P1441"])).height and works
    assert bare == [] and misread == [], (seen, bare[:5], misread[:5])


def test_twelfth_read_crossings_are_crossed_not_intersected_over_every_fill(read_relations_build):
    """Over every P177 instance x template x answer of the read build: the relation is said with "cross" or
    "span" ("The Spree is crossed by the Luther Bridge"), never "intersected" (a bridge crosses a river, it
    does not intersect it: the twelfth read's "The Spree is intersected by the Luther Bridge")."""
    bad, fills = [], 0
    for row, _answer, text in every_fill(read_relations_build):
        if row["relation_id"] != "P177":
            continue
        fills += 1
        if not re.search(r"\b(cross|crosses|crossed|span|spans)\b", text) or "intersect" in text:
            bad.append(text)
    assert fills and bad == [], bad[:5]


# public broadcasters, government agencies: written here apart from relations.PUBLIC_BODY_CLASSES ("the BBC"
# but "PBS", "the DRDO" but "DARPA": no rule of the label)
PUBLIC_BODIES = {"Q26398", "Q327333"}
# a movement named as a group of people, a class of ships or engines: read with "the" (fifteenth read)
NAMES_WITH_THE = re.compile(r" (?:Generation|Brotherhood|Secession)$|\S-class [a-z]| [Cc]lass \d")
# events by their name, judged apart from text.event_name
EVENT_LABEL = re.compile(r"^(?:Battle|Siege|Operation) |\b(?:massacre|bombing|Championships|Games)$")
# one-off events by class: battle, siege, war, massacre, military operation, multi-sport event, sports season
EVENTS = {"Q178561", "Q188055", "Q198", "Q3199915", "Q645883", "Q167170", "Q27020041"}


def test_fifteenth_read_bodies_movements_classes_and_events_over_every_instance(
    read_relations_build, slice_facts
):
    """Over every instance and answer of the read build (P108, P135, P176, P131 among its relations), judged
    from the slice's TSV: no public body labelled by an initialism in a space ("Charles Issawi has worked for
    BBC"); every statement names a movement or a class of ships with "the" ("was a part of the Beat
    Generation", "The Magdeburg-class cruiser was made by"; a work's label so formed is dropped: "Bass
    Generation", an album, P291); no P131 subject is an event ("is located in")."""
    classes = slice_facts["P31"]
    instances = table(read_relations_build, "instances")
    answers = table(read_relations_build, "answer_spaces")
    shown = [*zip(instances["sub_id"], instances["sub_label"]), *zip(answers["obj_id"], answers["obj_label"])]
    bodies = [(e, label) for e, label in shown if classes.get(e, set()) & PUBLIC_BODIES]
    dropped = json.loads((read_relations_build.out / "manifest.json").read_text())["dropped"]
    assert dropped.get("P108: object " + BODY_INITIALISM, 0) > 0  # the BBC was a P108 answer before
    assert [(e, label) for e, label in bodies if re.fullmatch(r"[A-Z]{2,6}", label)] == []
    fills = list(every_fill(read_relations_build))
    named = [
        (label, text)
        for row, answer, text in fills
        for label in (row["sub_label"], answer)
        if NAMES_WITH_THE.search(label) and not label.startswith("The ")
    ]
    assert "Beat Generation" in {label for label, _ in named}
    assert [
        (label, text) for label, text in named if f"the {label}" not in text and f"The {label}" not in text
    ] == []
    p131 = instances.filter(pl.col("relation_id") == "P131")
    assert p131.height
    assert [
        label
        for e, label in zip(p131["sub_id"], p131["sub_label"])
        if classes.get(e, set()) & EVENTS or EVENT_LABEL.search(label)
    ] == []


# a protected area's name (two words or more, every word capitalised) ending in one of these heads, written
# here apart from text._PROTECTED_AREA_LAST
PROTECTED_AREA = re.compile(r"^(?:[A-Z][\w'.-]*\s+)+(?:Refuge|Wilderness|Preserve)$")
# islands or mountains named in the plural, apart from text.PLURAL_PLACE_HEADS ("Beverly Hills" is a city)
PLURAL_PLACE = re.compile(r"^(?:[A-Z][\w'.-]*\s+)+(?:Islands|Isles|Mountains|Highlands)$")


def test_sixteenth_read_protected_areas_plural_places_and_languages_of_the_dead_over_every_fill(
    read_relations_build,
):
    """Over every instance x template x answer of the read build (the sixteenth read: "located in Great White
    Heron National Wildlife Refuge", "The Faroe Islands has its highest point", "Allvar Gullstrand is
    proficient in Swedish", d. 1930): a protected area named "... Refuge/Wilderness/Preserve" has "the" before
    it; a plural name of islands or mountains that opens a sentence takes "have"/"are", never "has"/"is"
    after it; no P1412 fill says a person "is" proficient or a language "is" used by them."""
    bare, singular, present, seen_areas, seen_plural, seen_languages = [], [], [], 0, 0, 0
    for row, answer, text in every_fill(read_relations_build):
        for label in (row["sub_label"], answer):
            if PROTECTED_AREA.match(label):
                seen_areas += 1
                if not re.search(rf"\b[Tt]he {re.escape(label)}", text):
                    bare.append(text)
        if PLURAL_PLACE.match(row["sub_label"]) and text.startswith(
            ("The " + row["sub_label"], row["sub_label"])
        ):
            seen_plural += 1
            if re.match(rf"(?:The )?{re.escape(row['sub_label'])},? (?:has|is|was)\b|.* its\b", text):
                singular.append(text)
        if row["relation_id"] == "P1412":
            seen_languages += 1
            if re.search(r"\bis (?:proficient|the language|a language)\b", text):
                present.append(text)
    assert seen_areas and seen_plural and seen_languages, (seen_areas, seen_plural, seen_languages)
    assert bare == [] and singular == [] and present == [], (bare[:5], singular[:5], present[:5])


# an academy named in its own language, its head before a particle of that language; a fortress named by a
# place: written here apart from builders.text's tables
FOREIGN_ACADEMY = re.compile(
    r"^(?!La |The ).*\b(?:Akademie|Academia|Académie|Accademia)\b.* (?:van|der|des|de|di|della)\b"
)
PLACE_FORTRESS = re.compile(r"^[A-Z][^\W\d_]+(?: [A-Z][^\W\d_]+)* Fortress$")


@pytest.mark.parametrize("which", ["small_relations_build", "read_relations_build"])
def test_seventeenth_read_academies_fortresses_and_qualified_possessives_over_every_fill(which, request):
    """Over every instance x template x answer of two real builds (the seventeenth read: "a member of
    Koninklijke Nederlandse Akademie van Wetenschappen", "detained at Theresienstadt Small Fortress", "Juan
    Prim, 1st Marquis of los Castillejos's place of death"): a foreign academy's name and a place's fortress
    have "the" before them, and no subject with a comma qualifier stands before a possessive."""
    known = english_lexicon().known
    bare, possessive, seen_names, seen_qualified = [], [], 0, 0
    for row, answer, text in every_fill(request.getfixturevalue(which)):
        for label in (row["sub_label"], answer):
            fortress = PLACE_FORTRESS.match(label) and label.split()[0].lower() not in known
            if FOREIGN_ACADEMY.match(label) or fortress:
                seen_names += 1
                if not re.search(rf"\b[Tt]he {re.escape(label)}", text):
                    bare.append(text)
        if ", " in row["sub_label"]:
            seen_qualified += 1
            if re.search(re.escape(row["sub_label"]) + r"['’]", text):
                possessive.append(text)
    assert seen_qualified, seen_qualified
    assert seen_names or which == "small_relations_build"
    assert bare == [] and possessive == [], (bare[:5], possessive[:5])
    totals = json.loads((request.getfixturevalue(which).out / "validity.json").read_text())["totals"]
    assert totals["templates_read"] == 0


# relations whose subjects are mostly people by the slice's classes (Q5), written here apart from the builder
PEOPLE_RELATIONS = {
    "P26",
    "P27",
    "P39",
    "P69",
    "P101",
    "P103",
    "P106",
    "P108",
    "P413",
    "P463",
    "P1303",
    "P1412",
}


@pytest.mark.parametrize("which", ["small_relations_build", "read_relations_build"])
def test_seventeenth_read_people_are_stated_in_the_past_over_every_fill(which, request):
    """Over every instance x template x answer of two real builds whose relation asks people (the seventeenth
    read: "Jacques-Louis David is a member of", d. 1825; "John Matuszak plays as a defensive end"; "Euphronios
    has worked in the field of"): the sentence holds no present ("is", "are", "has", "have", a verb in "-s"
    after the subject's name), since the past is true of the living and the present false of the dead; the
    card's people_in_the_past counts 0."""
    present, seen = [], Counter()
    for row, answer, text in every_fill(request.getfixturevalue(which)):
        if row["relation_id"] not in PEOPLE_RELATIONS:
            continue
        seen[row["relation_id"]] += 1
        rest = text[len(row["sub_label"]) :] if text.startswith(row["sub_label"]) else text
        frame = text.replace(row["sub_label"], "").replace(answer, "")
        if re.search(r"\b(?:is|are|has|have)\b", frame) or re.match(r",? (?!was\b)[a-z]+[^s\W]s\b", rest):
            present.append(text)
    assert seen, seen
    assert present == [], present[:8]
    totals = json.loads((request.getfixturevalue(which).out / "validity.json").read_text())["totals"]
    assert totals["people_in_the_past"] == 0


@pytest.mark.parametrize("which", ["small_relations_build", "read_relations_build"])
def test_eighteenth_read_no_statement_ends_with_a_title_mark_over_every_fill(which, request):
    """Over every instance x template x answer of its space of two real builds (the read build holds P179, the
    eighteenth read's "The Dexter series includes Remember the Monsters?"): no filled statement ends with a
    "?" or "!" of a label; validity.json's templates_read counts 0."""
    result = request.getfixturevalue(which)
    instances, templates = table(result, "instances"), table(result, "templates")
    spaces = table(result, "answer_spaces").group_by("relation_id").agg("obj_label")
    answers = dict(zip(spaces["relation_id"], spaces["obj_label"]))
    texts = templates.group_by("relation_id").agg("template")
    by_relation = dict(zip(texts["relation_id"], texts["template"]))
    filled, bad = 0, []
    for row in instances.iter_rows(named=True):
        for template in by_relation[row["relation_id"]]:
            for answer in answers[row["relation_id"]]:
                statement = fill_template(template, row["sub_label"], answer)
                filled += 1
                if re.search(r"[?!]\.?\s*$", statement):
                    bad.append(statement)
    assert filled > 1000 and bad == []
    validity = json.loads((result.out / "validity.json").read_text())
    assert validity["relations"] and all(
        info["rules"]["templates_read"]["violations"] == 0 for info in validity["relations"].values()
    )


@pytest.mark.parametrize("which", ["small_relations_build", "read_relations_build"])
def test_eighteenth_read_no_name_mixes_latin_with_cyrillic_or_greek_over_every_instance(which, request):
    """Over every instance's subject label and aliases and every answer label of two real builds (the
    eighteenth read's "principality of Kodа", a Cyrillic "а"; 'Kyїv', 'ΛVICII' among subject aliases): no
    word mixes Latin letters with Cyrillic or Greek ones (judged apart from names.py, by code point)."""
    from ..test_names import _mixes_latin_with_cyrillic_or_greek

    result = request.getfixturevalue(which)
    instances = table(result, "instances")
    names = list(instances["sub_label"]) + [a for aliases in instances["sub_aliases"] for a in aliases]
    names += list(table(result, "answer_spaces")["obj_label"])
    assert len(names) > 500
    assert [n for n in names if _mixes_latin_with_cyrillic_or_greek(n)] == []


# polities of the past (historical country, dynasty, Chinese dynasty), written here apart from
# relations.PAST_POLITY_CLASSES; a city once a state (city, big city) is a place still
PAST_POLITIES = {"Q3024240", "Q164950", "Q12857432"}
CITIES = {"Q515", "Q1549591"}
HUMAN_CLASS = "Q5"


def test_nineteenth_read_past_polities_states_as_members_and_wordings_over_every_fill(
    read_relations_build, slice_facts
):
    """Over every instance x template x answer of the read build (the nineteenth read): no P30 or P131
    subject is a polity of the past ("The Marinid Dynasty is located in Africa"); every P463 subject with
    a class in the slice is human ("Nepal was a member of the Asian Development Bank"); no statement says
    "appeared in print" (P291: albums and TV series) or "is present in" (P1441)."""
    classes = slice_facts["P31"]
    instances = table(read_relations_build, "instances")
    places = instances.filter(pl.col("relation_id").is_in(["P30", "P131"]))
    members = instances.filter(pl.col("relation_id") == "P463")
    assert places.filter(pl.col("relation_id") == "P30").height and members.height
    past = [
        label
        for e, label in zip(places["sub_id"], places["sub_label"])
        if classes.get(e, set()) & PAST_POLITIES and not classes.get(e, set()) & CITIES
    ]
    assert past == []
    assert [
        label
        for e, label in zip(members["sub_id"], members["sub_label"])
        if classes.get(e) and HUMAN_CLASS not in classes[e]
    ] == []
    wordings = [
        text
        for _, _, text in every_fill(read_relations_build)
        if re.search(r"appeared in print|is present in", text)
    ]
    assert wordings == []


# the twentieth read, written here apart from the builder: classes of a product model English names with "the"
# (automobile model, aircraft model, locomotive class, rolling stock class, digital camera model, video game
# console model, smartphone model), classes of works and bands (film, television series, album, single, song,
# band), a part of a work after a title's last comma ("season 9", "Vol. 1", "Op. 10", "BWV 82")
MODELS = {"Q3231690", "Q15056995", "Q19832486", "Q811704", "Q20741022", "Q56682555", "Q19723451"}
WORKS_AND_BANDS = {"Q11424", "Q5398426", "Q482994", "Q208569", "Q134556", "Q7366", "Q215380", "Q5741069"}
WORK_PART = re.compile(
    r"(?i:season|series|volume|vol\.|part|episode|chapter|book|no\.|op\.)\s|[A-Z]{1,4}\.? ?\d"
)
WORK_SUBJECT_RELATIONS = {"P162", "P449", "P57", "P179", "P291"}


def test_twentieth_read_models_reserves_titles_broadcasters_and_wordings_over_every_fill(
    read_relations_build, slice_facts
):
    """Over every instance x template x answer of the read build (the twentieth read): a subject that is a
    product model by its class in the slice has "the" before it ("Isuzu Gemini was made by": the Isuzu Gemini,
    "the British Rail Class 390"); a name ending in "Reserve",
    "Sanctuary" or "Reservoir" has "the" before it ("located in the Ashuapmushuan Wildlife Reserve"); a work's
    title with a comma of its own gets no second one ("Jerry, Jerry, Quite Contrary, is a production of");
    every P449 answer is a name (a capital, a digit or a full stop: no "debuted on syndication"); no field is
    "the art of painting"; no sentence opens with a lower-case prefix before a capital ("al-Malik"); no
    "is a production of" (P162) nor "is situated on the territory of" (P131)."""
    classes = slice_facts["P31"]
    instances = table(read_relations_build, "instances")
    answers = table(read_relations_build, "answer_spaces")
    assert {"P162", "P449", "P176", "P3018", "P131"} <= set(answers["relation_id"])
    models = {e for e in instances["sub_id"] if classes.get(e, set()) & MODELS}
    broadcasters = answers.filter(pl.col("relation_id") == "P449")["obj_label"].to_list()
    assert [b for b in broadcasters if not re.search(r"[A-Z0-9.]", b)] == []
    assert not any("art of " in a for a in answers["obj_label"])
    work_ids = {e for e, kinds in classes.items() if kinds & WORKS_AND_BANDS}
    bad, fills = [], 0
    for row, answer, text in every_fill(read_relations_build):
        fills += 1
        for label in (row["sub_label"], answer):
            at = text.find(label)
            if (
                re.search(r"\S (Reserve|Sanctuary|Reservoir)$", label)
                and at >= 0
                and not text[:at].endswith(("the ", "The "))
            ):
                bad.append(("no the", text))
        subject = row["sub_label"]
        at = text.find(subject)
        if row["sub_id"] in models and not text[:at].endswith(("the ", "The ")):
            bad.append(("model without the", text))
        is_work = row["relation_id"] in WORK_SUBJECT_RELATIONS or row["sub_id"] in work_ids
        if is_work and ", " in subject and not WORK_PART.match(subject.rsplit(", ", 1)[-1]):
            if subject + "," in text:
                bad.append(("title comma closed", text))
        if re.match(r"[a-z]+[-'’][A-Z]", text):
            bad.append(("lower-case opening", text))
        if re.search(r"is a production of|on the territory of|field of the art of", text):
            bad.append(("wording", text))
    assert fills > 10000 and bad == [], bad[:8]


def test_twenty_first_read_people_in_the_past_by_their_classes_and_venues_over_every_fill(
    read_relations_build, slice_facts
):
    """Over every instance x template x answer of the read build (the twenty-first read): every relation whose
    subjects with a class in the slice are 90%+ human (by the slice's TSV, not the builder's list; P19 aside, a
    birthplace outlives its subject) has no sentence in the present ("Jesse Owens represents United States of
    America", d. 1980; "[X] is a member of the [Y]" of a dynasty's dead); no P115 template puts its own "the"
    before the venue ("home venue is the Lord's", "the Wembley Stadium")."""
    classes = slice_facts["P31"]
    instances = table(read_relations_build, "instances")
    people = set()
    for (relation,), rows in instances.group_by("relation_id"):
        typed = [s for s in rows["sub_id"] if classes.get(s)]
        if typed and sum("Q5" in classes[s] for s in typed) >= 0.9 * len(typed) and relation != "P19":
            people.add(relation)
    assert {"P53", "P1532", "P412", "P641"} <= people
    present, fills = [], 0
    for row, answer, text in every_fill(read_relations_build):
        if row["relation_id"] not in people:
            continue
        fills += 1
        rest = text[len(row["sub_label"]) :] if text.startswith(row["sub_label"]) else text
        frame = text.replace(row["sub_label"], "").replace(answer, "")
        if re.search(r"\b(?:is|are|has|have)\b", frame) or re.match(r",? (?!was\b)[a-z]+[^s\W]s\b", rest):
            present.append(text)
    assert fills > 1000 and present == [], present[:8]
    templates = table(read_relations_build, "templates").filter(pl.col("relation_id") == "P115")["template"]
    assert len(templates) == 3 and not [t for t in templates if "the [Y]" in t]


@pytest.mark.parametrize("which", ["small_relations_build", "read_relations_build"])
def test_twenty_first_read_no_subject_labelled_in_another_script(which, request):
    """Over every instance of two real builds (the twenty-first read): no subject's label holds a Cyrillic, Greek,
    Arabic, Hebrew, CJK, Hangul or Devanagari letter (by the Unicode name, written here apart from names.py):
    the script gives the answer away ('Будинок зі скла' -> Ukraine; the 17 Cyrillic P291 subjects of the default
    build were all Ukraine or Russia)."""
    import unicodedata

    scripts = ("CYRILLIC", "GREEK", "ARABIC", "HEBREW", "CJK", "HANGUL", "DEVANAGARI", "HIRAGANA", "KATAKANA")
    instances = table(request.getfixturevalue(which), "instances")
    other = [
        label
        for label in instances["sub_label"]
        if any(c.isalpha() and unicodedata.name(c, "").startswith(scripts) for c in label)
    ]
    assert len(instances) > 400 and other == []


def test_twenty_third_read_no_capital_of_a_past_polity_over_every_instance(
    tmp_path_factory, wikidata_store, slice_facts
):
    """Over every instance of a real build of P36 and P1376, whose templates state a capital in the present
    (the twenty-third read: "Karur is the capital of Chera Dynasty"), and of P37, whose templates state an
    official language so (the twenty-fourth: "The official language of the Kingdom of Prussia is German"),
    judged from the slice's TSV: no subject of P36 or P37 and no gold of P1376 has a class of a polity of the
    past (historical country, dynasty, Chinese dynasty, historical Chinese state, viceroyalty) and none of a
    city or settlement, and no P1376 subject is a former capital (its polity's P36 names another city: "Bonn
    serves as the capital of Germany"); the build dropped some of each (the rule can fail)."""
    result = build_relations(tmp_path_factory, wikidata_store, "relations-read23", ("P36", "P1376", "P37"))
    classes = slice_facts["P31"]
    past_classes = {"Q3024240", "Q164950", "Q12857432", "Q50068795", "Q20203507"}

    def past(entity):
        kinds = classes.get(entity, set())
        return bool(kinds & past_classes) and not kinds & {"Q515", "Q1549591", "Q486972"}

    instances = table(result, "instances")
    p36 = instances.filter(pl.col("relation_id") == "P36")
    p1376 = instances.filter(pl.col("relation_id") == "P1376")
    p37 = instances.filter(pl.col("relation_id") == "P37")
    assert p36.height and p1376.height and p37.height
    assert [label for s, label in p36.select("sub_id", "sub_label").rows() if past(s)] == []
    assert [label for s, label in p37.select("sub_id", "sub_label").rows() if past(s)] == []
    assert [
        label for label, golds in p1376.select("sub_label", "gold_obj_ids").rows() if any(map(past, golds))
    ] == []
    # the twenty-fourth read: no former capital ("Bonn serves as the capital of Germany"): no P1376 subject is a
    # capital of a gold polity whose own capital (P36) in the slice is another city (6 of 60 in the seed-0 build)
    capitals = slice_facts["P36"]
    assert [
        label
        for s, label, golds in p1376.select("sub_id", "sub_label", "gold_obj_ids").rows()
        if any(capitals.get(g) and s not in capitals[g] for g in golds)
    ] == []
    dropped = json.loads((result.out / "manifest.json").read_text())["dropped"]
    assert {
        pid
        for pid in ("P36", "P1376", "P37")
        if any(
            r.startswith((f"{pid}: capital of a polity", f"{pid}: official language of a polity"))
            for r in dropped
        )
    } == {"P36", "P1376", "P37"}
    assert any(r.startswith("P1376: capital of a polity whose own capital (P36)") for r in dropped)


def test_twenty_third_read_no_answer_label_with_a_quoted_part_over_every_answer(
    tmp_path_factory, wikidata_store
):
    """Over every answer of a real P115 build (the twenty-third read: '"RZD arena" Stadium' in Belgium's space):
    no answer's label holds a double quote, and the build dropped the subjects whose answer had one."""
    result = build_relations(tmp_path_factory, wikidata_store, "relations-read23-p115", ("P115",))
    answers = table(result, "answer_spaces")
    assert answers.height and [label for label in answers["obj_label"] if '"' in label] == []
    dropped = json.loads((result.out / "manifest.json").read_text())["dropped"]
    assert any(r.startswith("P115: object's label with a quoted part") for r in dropped)


# the twenty-fourth read's template faults as each reads once filled (relation -> a search over the sentence)
FAULTS_24 = {
    "P6": r"^The head of government of .+ is ",
    "P59": r"is a part of the .+ constellation",
    "P61": r"first described by",
    "P87": r"for the opera ",
    "P98": r"checked and corrected",
    "P105": r"taxon rank\.$",
    "P115": r"\bplays? their home games",
    "P170": r"is a work of art by",
    "P178": r" is developed by ",
    "P190": r"are twin cities",
    "P206": r"is next to the|on the shores of|adjacent to",
    "P264": r"['’]s? (?:record )?(?:label|company) is",
    "P272": r" is produced by ",
    "P403": r"eventually leads to",
    "P413": r" was an? |in the .+ position\.$",
    "P427": r"type species",
    "P463": r"affiliated with",
    "P466": r"\bis occupied by|^The occupant of .+ is |\boccupies\b",
    "P495": r"\bw(?:as|ere) created in",
    "P611": r"affiliated with",
    "P641": r"^The sport of ",
    "P669": r"^The location of .+ is on ",
    "P676": r"['’]s? lyrics",
    "P6886": r"primarily written",
    "P7937": r"^The form of ",
    "P3373": r"are siblings|is the sibling of",
}


def test_twenty_fourth_read_no_faulted_wording_over_every_fill(tmp_path_factory, wikidata_store):
    """Over every instance x template x answer of a real build of the 26 relations whose templates the
    twenty-fourth read found wrong (every template filled with real instances: "Riga FC plays their home games",
    "Shop Around's record label is Motown", "Scholastica and Benedict of Nursia are siblings", "Mazaceae has
    Mazus as its type species"; 150,712 of the 330,960 such fills of the seed-0 default build): no sentence
    holds one of the faulted wordings, and every relation is built with its three templates."""
    result = build_relations(tmp_path_factory, wikidata_store, "relations-read24", FAULTS_24)
    templates = table(result, "templates")
    assert set(templates["relation_id"]) == set(FAULTS_24) and templates.height == 3 * len(FAULTS_24)
    fills, bad = faulted_fills(result, FAULTS_24)
    assert fills > 100_000 and bad == [], bad[:8]


def faulted_fills(result, faults: dict[str, str]) -> tuple[int, list[str]]:
    """(every fill's count, the fills holding their relation's faulted wording: ``faults[relation]``, a regex)."""
    bad, fills = [], 0
    for row, _, text in every_fill(result):
        fills += 1
        if re.search(faults[row["relation_id"]], text):
            bad.append(text)
    return fills, bad


# the relations the twenty-sixth read's label classes were found in (review26_templates_relations_rules.md (1)
# and (2)): capitals worded as a seat of government, taxa by their common names, a ghetto, a possessive series,
# junk and slash-joined labels, event venues, stations, surnames, legal forms and heads read with "the"
READ_26 = (
    "P36 P1376 P105 P141 P183 P427 P2632 P179 P27 P162 P115 P127 P19 P20 P65 P945 P131 P177 P403 P195".split()
)
STATION_CLASSES_26 = {"Q55488", "Q928830", "Q1793804", "Q55678", "Q4663385", "Q22808404"}
LEGAL_FORM_26 = re.compile(r"(?:,? (?:Inc\.?|Ltd\.?|LLC|Co\.|Corp\.?|Limited|plc|GmbH|A/S|S\.A\.))+$")
HEADS_WITH_THE_26 = re.compile(
    r"(?:\b(?:Watershed|Region|Ground|Brigades|Monarchy|Rail Road)|d'[A-Z]\w* Observatory"
    r"|\b(?:Museum|Library|Gallery|Institute|Academy) in [A-Z][\w' -]*)$"
)


def test_twenty_sixth_read_labels_and_wordings_over_every_fill(
    tmp_path_factory, wikidata_store, slice_facts, slice_names
):
    """Over every instance x template (and every answer of each space) of a real build of the relations where the
    twenty-sixth read found label faults, judged from the slice's TSV: no capital stated as a 'governmental
    seat'; no taxon slot (P105/P141/P183 subjects, P427 both sides) held by an English common name ('Black
    Redstart', 'Pig': text.common_taxon_name, with the slice's aliases); no 'detained at the Łódź Ghetto'; no
    'the' before a possessive series ('the Agatha Christie's Poirot series'); no label with '@' or joining two
    names with a slash ('Biel/Bienne'); no P115 subject named as an event; no station (P31) labelled by its place
    alone; no person (P31 human) labelled by a surname a full-name alias ends with; no firm with its legal form
    where an alias is its short name; no P177/P403 subject in lower case or with a comma qualifier after the
    template's own 'The' ('The red bridge', 'The Lao River, Italy,'); every label whose head English reads with
    'the' ('Taunton River Watershed', 'Côte d'Azur Observatory', 'National Museum in Warsaw', 'International
    Brigades') has it, and 'Brigades' a plural verb. Over
    the seed-0 default build (HEAD 7c3573c -> this, /tmp/f30r/measure.py): 626 instances hit -> 0."""
    from probesmith.builders.names import full_name, label_problem
    from probesmith.builders.text import common_taxon_name, event_name

    result = build_relations(tmp_path_factory, wikidata_store, "relations-read26", READ_26)
    instances, answers = table(result, "instances"), table(result, "answer_spaces")
    label_of = dict(zip(answers["obj_id"], answers["obj_label"], strict=True))
    taxon_slots = {"P105": "X", "P141": "X", "P183": "X", "P427": "XY"}
    bad = []

    def aliases(q):
        return slice_names.get(q, [])[1:]

    def surname_only(q, label):
        # a mononym is no surname (the twenty-seventh read: 'Urbinas Raphael', 'Pollio Vitruvius'): the
        # twenty-seventh read's test checks the names full_name gives
        if "Q5" not in slice_facts["P31"].get(q, ()) or len(label.split()) != 1:
            return False
        return full_name(label, aliases(q)) is not None

    renamed = 0  # people asked by the full name an alias gives, not the slice's surname label
    for row in instances.iter_rows(named=True):
        pid = row["relation_id"]
        slice_label = slice_names.get(row["sub_id"], [""])[0]
        renamed += row["sub_label"] != slice_label and surname_only(row["sub_id"], slice_label)
        sides = (("X", row["sub_id"], row["sub_label"]), ("Y", row["obj_id"], label_of[row["obj_id"]]))
        for side, q, label in sides:
            if side in taxon_slots.get(pid, "") and common_taxon_name(label, aliases(q)):
                bad.append(("taxon by a common name", pid, label))
            if label_problem(label) and ("@" in label or "slash" in label_problem(label)):
                bad.append(("junk or slash-joined label", pid, label))
            if slice_facts["P31"].get(q, set()) & STATION_CLASSES_26 and not re.search(
                r"(?i)\b(?:station|stazione|estaci[oó]n|gare|halt|stop)\b|bahnhof\b", label
            ):
                bad.append(("station by its place", pid, label))
            if surname_only(q, label):
                bad.append(("surname alone", pid, label))
            if LEGAL_FORM_26.search(label) and LEGAL_FORM_26.sub("", label) in aliases(q):
                bad.append(("legal form", pid, label))
        if pid in ("P177", "P403") and (row["sub_label"][:1].islower() or ", " in row["sub_label"]):
            bad.append(("lower case or qualified after 'The'", pid, row["sub_label"]))
        if pid == "P115" and event_name(row["sub_label"]):
            bad.append(("event with a home venue", pid, row["sub_label"]))
    fills, ghettos = 0, 0
    for row, answer, text in every_fill(result):
        fills += 1
        ghettos += "in the Łódź Ghetto" in text or "in the Theresienstadt Ghetto" in text
        if "governmental seat" in text or re.search(r"\bat the [^.]*Ghetto", text):
            bad.append(("wording", row["relation_id"], text))
        possessive_series = re.search(r"\bthe [A-Z]\w*(?: [A-Z]\w*)*'s \w+ series", text)
        if possessive_series or re.search(r"Brigades (is|was|has)\b", text):
            bad.append(("article or number", row["relation_id"], text))
        for label in (row["sub_label"], answer):
            if (
                HEADS_WITH_THE_26.search(label)
                and label in text
                and not re.search(rf"\b[Tt]he {re.escape(label)}", text)
            ):
                bad.append(("head without 'the'", row["relation_id"], text))
    assert set(instances["relation_id"]) >= {"P36", "P1376", "P141", "P2632", "P179", "P115"}
    assert fills > 100_000 and ghettos > 0 and renamed > 0 and bad == [], bad[:8]


# the relations the twenty-seventh read found faults in (review27_templates_relations_rules.md (1)/(2),
# review27.md): full names of mononyms ('Urbinas Raphael' in P170, 'Pollio Vitruvius' in P1412), stations by
# their place and accidents in P127/P137, untyped common nouns as people (P101), and three templates
READ_27 = "P170 P1412 P127 P137 P101 P106 P463 P176 P105".split()
# railway and transit operators of the P127/P137 answers (the slice classes none of their stations)
RAIL_OPERATORS_27 = set(
    "Q23239 Q83824 Q171985 Q1501071 Q51211653 Q643290 Q13646 Q83543 Q496531 Q2037863 Q4579562 Q1778212 Q923337 "
    "Q7924717 Q83825".split()
)
ROUTE_27 = re.compile(
    r"(?i)\b(?:station|gare|halt|stop|line|corridor|express|service|chief|regional|surfliner|meteor|trainset|railway|funicular"
    r"|tunnel|center)\b"
)
# every bare-name person the build renames, read by hand against the slice's aliases (a full name, not an
# inversion, a Latin form or a byname's completion)
FULL_NAMES_READ_27 = {
    "Marcus Tullius Cicero",
    "William Ewart Gladstone",
    "Cornelius Tacitus",
    "George Washington",
    "Robert Louis Dressler",
    "Pieter Withoos",
    "Grigori Rasputin",
    "Muthuvel Karunanidhi",
    "Wang Yu-seon",
    "Pierre Marivaux",
    "Philippe Taquet",
    "Konrad Ernst Otto Zuse",
    "Marcel Proust",
    "Gustav Mahler",
    "Rudolf Kner",
    "Abraham Lincoln",
    "Richard Milhous Nixon",
    "Wilhelm Philipp Daniel Schlich",
}


def test_twenty_seventh_read_mononyms_stations_untyped_nouns_and_wordings_over_every_fill(
    tmp_path_factory, wikidata_store, slice_facts, slice_names
):
    """Over every instance x template (and every answer) of a real build of the relations the twenty-seventh read
    found faults in, judged from the slice's TSV: a person labelled by one word keeps it or is renamed to a full
    name read by hand (no 'Urbinas Raphael', 'Pollio Vitruvius': a mononym stays, and no renamed label is the
    reverse of an alias or opens with a title); no P127/P137 subject with no class (P31) owned or operated by a
    railway or transit operator unless its label names a station, line or train ('SNCF is the owner of
    Saint-Pierre-du-Vauvray', 'Espanya is operated by'), no accident operated ('train wreck'); no P101/P106/P463
    subject with no class labelled in lower case or as an -ism ('appendectomy worked in the field of'); no fill
    with 'made a living as', 'is the manufacturer of' or 'categorized under the'. Over the seed-0 default build
    (HEAD 535859d2 -> this): stations 79 -> 0 instances, accidents 3 -> 0, untyped nouns 7 -> 0, renamed people
    24 -> 17
    and answers 3 -> 2 (Raphael, Vitruvius, Masaccio, Giorgione, Cimabue, Tacitus, The Game, Jalaï Abbas left as
    labelled)."""
    result = build_relations(tmp_path_factory, wikidata_store, "relations-read27", READ_27)
    instances, answers = table(result, "instances"), table(result, "answer_spaces")
    label_of = dict(zip(answers["obj_id"], answers["obj_label"], strict=True))
    titles = {"The", "Prophet", "Apostle", "Antipope", "Miss", "Baron", "Pope", "Saint", "Emperor", "King"}
    bad, renamed, kept_mononyms = [], 0, 0
    for row in instances.iter_rows(named=True):
        pid = row["relation_id"]
        for q, label in ((row["sub_id"], row["sub_label"]), (row["obj_id"], label_of[row["obj_id"]])):
            names = slice_names.get(q, ("",))
            if "Q5" not in slice_facts["P31"].get(q, ()) or len(names[0].split()) != 1:
                continue
            kept_mononyms += q in ("Q5597", "Q47163") and label == names[0]
            if label != names[0]:
                renamed += 1
                reversed_label = " ".join(reversed(label.split()))
                if label not in FULL_NAMES_READ_27 or reversed_label in names or label.split()[0] in titles:
                    bad.append(("renamed", pid, names[0], label))
        untyped = not slice_facts["P31"].get(row["sub_id"])
        if pid in ("P127", "P137") and untyped:
            if re.search(r"\b(?:wreck|derailment)\b", row["sub_label"]):
                bad.append(("accident operated", pid, row["sub_label"]))
            elif row["obj_id"] in RAIL_OPERATORS_27 and not ROUTE_27.search(row["sub_label"]):
                bad.append(("station by its place", pid, row["sub_label"]))
        noun = row["sub_label"][:1].islower() or re.fullmatch(r"[A-Z][a-z]+isme?", row["sub_label"])
        if pid in ("P101", "P106", "P463") and untyped and noun:
            bad.append(("untyped common noun as a person", pid, row["sub_label"]))
    fills = 0
    for row, _, text in every_fill(result):
        fills += 1
        if re.search(r"made a living as|is the manufacturer of|categorized under the", text):
            bad.append(("wording", row["relation_id"], text))
    assert set(instances["relation_id"]) >= {"P170", "P1412", "P127", "P137", "P101"}
    assert fills > 10_000 and renamed > 0 and kept_mononyms > 0 and bad == [], bad[:8]


READ_29 = "P30 P59 P175 P466 P27 P101 P69 P1412 P50 P403 P195 P86 P127 P170 P178 P3018 P206".split()
# plural heads of natural features, as a reader takes them, and the words of classes that name one place,
# person or work whatever the head ("Council Bluffs", a city; "Water Drops on Burning Rocks", a film)
PLURAL_HEADS_29 = set(
    "Nunataks Cliffs Rocks Peaks Crags Reefs Ranges Outcrops Knolls Skerries Cays Islets".split()
)
ONE_THING_29 = re.compile(r"city|town|human|film|album|band|series|station|settlement|municipal|team|country")
# the slice's classes of bands and of North American sports teams (read in the slice: names in "-s")
GROUP_CLASSES_29 = {"Q215380", "Q5741069", "Q2088357", "Q9212979", "Q13393265", "Q13027888", "Q17156793"}
# basketball, baseball, American football and ice hockey teams: "the Miami Heat", "the Indiana Pacers"
LEAGUE_29 = {"Q13393265", "Q13027888", "Q17156793", "Q4498974"}
NOT_PEOPLE_29 = {"Q7802924", "Q1625942", "Q4053610", "Q2071295", "Q28545629", "Q24336846", "Q4193910"}


def singular_verb_after(sentence: str, label: str) -> bool:
    """Whether ``label`` opens ``sentence`` (after "The" or not) followed by a singular verb ("is", "belongs")."""
    match = re.match(rf"(?:The )?{re.escape(label)},? (?:which )?(\w+)", sentence)
    return bool(match) and bool(re.fullmatch(r"is|was|has|does|[a-z]+[^s]s", match.group(1)))


def test_twenty_ninth_read_plural_names_classes_of_subjects_and_lower_case_labels_over_every_fill(
    tmp_path_factory, wikidata_store, slice_facts, slice_names
):
    """Over every instance x template of a real build of the relations the twenty-ninth read found faults in,
    judged from the slice's TSV: a subject named by a plural of natural features ('Seavers Nunataks', 'Walker
    Rocks'), a pair of catalogue designations ('NGC 935 and IC 1801') and an answer or subject of a band's or a
    team's class named in the plural ('The Doors', 'Indiana Pacers') never opens a sentence before a singular
    verb; no subject of a person relation is one the read found no person ('Tilläggspension', 'Zoomorphology')
    or a person labelled by its own occupation ('Politician'); no P403 subject is a bay or a sound and none
    ending in 'Creek' follows 'The'; no subject is labelled in lower case with no capital or digit ('scimitar',
    'compact disc'). Run from a git archive of HEAD (700f68e) this test finds 53 faults; over the seed-0
    default build (08a793be -> this, every instance x template): plural names before a singular verb 31
    fills -> 0 (untyped 'Cathedral Lakes' dropped: 'Lakes' ends towns' names too), The Doors and the four NBA
    teams as answers 12 instances -> 0, listed non-people 8 -> 0, 'Politician' 1 -> 0, lower-case subjects
    23 -> 0 (P495's dishes and genres kept), P403 bays/sounds 2 -> 0 and 'The ... Creek' 2 -> 0."""
    result = build_relations(tmp_path_factory, wikidata_store, "relations-read29", READ_29)
    answers = table(result, "answer_spaces")
    label_of = dict(zip(answers["obj_id"], answers["obj_label"], strict=True))
    class_words = {
        q: " ".join(slice_names.get(c, [""])[0] for c in kinds) for q, kinds in slice_facts["P31"].items()
    }

    def plural_subject(q: str, label: str) -> bool:
        words = label.split()
        feature = len(words) >= 2 and words[-1] in PLURAL_HEADS_29 and words[0] not in ("The", "USS")
        feature = feature and all(w[:1].isupper() or w[:1].isdigit() for w in words)
        feature = feature and not ONE_THING_29.search(class_words.get(q, ""))
        # "Lakes", "Hills", "Bluffs", "Keys" end towns' or people's names too: plural when untyped
        shared_head = len(words) >= 2 and words[-1] in ("Lakes", "Hills", "Bluffs", "Keys")
        feature = feature or (shared_head and q not in class_words)
        pair = re.fullmatch(r"[A-Z]{1,5} ?\d+ and [A-Z]{1,5} ?\d+", label)
        group = slice_facts["P31"].get(q, set()) & GROUP_CLASSES_29 and re.search(r"[a-z]s$", label)
        return bool(feature or pair or (group and "&" not in label and " and " not in label))

    bad, plural_fills = [], 0
    instances = table(result, "instances")
    templates = table(result, "templates")
    forms = {r: g["template"].to_list() for (r,), g in templates.group_by("relation_id")}
    for row in instances.iter_rows(named=True):
        pid, sub, obj = row["relation_id"], row["sub_label"], label_of[row["obj_id"]]
        for template in forms[pid]:
            text = fill_template(template, sub, obj)
            for q, label, slot in ((row["sub_id"], sub, "[X]"), (row["obj_id"], obj, "[Y]")):
                if template.startswith(slot) or template.startswith(f"The {slot}"):
                    if plural_subject(q, label):
                        plural_fills += 1
                        if singular_verb_after(text, label):
                            bad.append(("plural name, singular verb", text))
            if pid == "P403" and re.search(r"The \S.* Creek\b", text):
                bad.append(("'The' before a creek", text))
        if pid in ("P27", "P101", "P69", "P1412", "P50") and row["sub_id"] in NOT_PEOPLE_29 | {"Q14594113"}:
            bad.append(("no person", pid, sub))
        if sub.lower() in {
            slice_names.get(j, [""])[0].lower() for j in slice_facts["P106"].get(row["sub_id"], ())
        }:
            bad.append(("occupation as a name", pid, sub))
        if pid == "P403" and sub.split()[-1] in ("Bay", "Sound", "Gulf"):
            bad.append(("still water flows", pid, sub))
        if sub[:1].islower() and not any(c.isupper() or c.isdigit() for c in sub):
            bad.append(("lower-case subject", pid, sub))
        for q, label in ((row["sub_id"], sub), (row["obj_id"], obj)):
            if slice_facts["P31"].get(q, set()) & LEAGUE_29 and not label.startswith("The "):
                bad.append(("a league's team without 'the'", pid, label))
    assert set(instances["relation_id"]) >= {"P30", "P59", "P175", "P466", "P27", "P101", "P403"}
    # P206 asks islands only since the thirtieth read: fewer plural names open its sentences
    assert plural_fills > 5 and bad == [], bad[:8]
