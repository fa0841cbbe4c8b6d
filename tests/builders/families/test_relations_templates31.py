"""The twenty-ninth read's relation templates (issue 25), over every fill of a real build of their relations.

P206 "in or next to" / "in or by" (the property label's hedge), P190 "has a partnership with" (any
partnership), P945 "pledged allegiance to" (an oath), P39 "served as [Y]" (no article before "Member of the
Scottish Parliament"), P676 "The song [X]" (albums, musicals), P135 "was a representative of" (works,
"atheism"), P344 in the present beside past siblings and P50 "was authored by" in the past beside present
ones. With them, the respelling rule of ``names.name_leak``: no subject's names one letter from its gold's
label ("Italo Balbo" -> "Kingdom of Italy", P945).
"""

import os
import re

import polars as pl
import pytest

from probesmith.builders.names import FUNCTION_WORDS, respellings, tokens_of
from tests.builders.families.test_relations import build_relations, faulted_fills, table
from tests.conftest import slice_classes, slice_names

# relation -> the faulted wording as it reads once filled
FAULTS_29 = {
    "P190": r"partnership",
    "P945": r"pledged allegiance",
    "P39": r" served as ",
    "P676": r"^The song ",
    "P135": r"representative of",
    "P344": r"^The director of photography for .+ is ",
    "P50": r" was authored by ",
    # the thirtieth read: "on the" is false of islands, "occupied" reads as a seizure, "noble title" is narrower
    # than the relation (pharaohs, sultans, queens consort)
    "P206": r"in or next to|in or by|\bon the ",
    "P466": r"\boccupied\b",
    "P97": r"noble title",
}
# island, artificial island, archipelago, atoll, tied island, island group (read from the slice's classes)
ISLAND_CLASSES_30 = {"Q23442", "Q13691", "Q33837", "Q42523", "Q1226252", "Q1402592"}


@pytest.fixture(scope="module")
def read29_build(tmp_path_factory, wikidata_store):
    """The relations of the twenty-ninth read's template findings, built once from the default spec."""
    return build_relations(tmp_path_factory, wikidata_store, "relations-read29", FAULTS_29)


def test_twenty_ninth_read_no_faulted_wording_over_every_fill(read29_build):
    """Over every instance x template x answer: no sentence holds a faulted wording, every relation keeps
    its three templates, and P206 is still built."""
    templates = table(read29_build, "templates")
    assert set(templates["relation_id"]) == set(FAULTS_29) and templates.height == 3 * len(FAULTS_29)
    fills, bad = faulted_fills(read29_build, FAULTS_29)
    assert fills > 10_000 and bad == [], bad[:8]


def test_p50_and_p344_templates_are_in_one_tense(read29_build):
    """A relation's templates in one tense: P344 in the past, as P344-0/1 were; P50 in the present, as the
    rules family asks it ("Who is the author of", beside which it drops "was authored by")."""
    templates = table(read29_build, "templates")
    out_of_tense = [
        t
        for r, t in templates.select("relation_id", "template").iter_rows()
        if (r == "P344" and re.search(r"\b(?:is|are|has)\b", t)) or (r == "P50" and re.search(r"\bwas\b", t))
    ]
    assert out_of_tense == []


def test_no_subject_is_named_one_letter_from_its_gold(read29_build):
    """Over every instance: no name token of the subject (label, aliases) is one letter from a name token of
    any gold's label (``names.respellings``, names read from the slice's TSV): the default build had
    "Italo Balbo" served the "Kingdom of Italy" (P945)."""
    names = slice_names()
    found = []
    for row in table(read29_build, "instances").iter_rows(named=True):
        subject = tokens_of([row["sub_label"], *row["sub_aliases"]]) - FUNCTION_WORDS
        for gold in row["gold_obj_ids"]:
            if close := respellings(subject, tokens_of(names.get(gold, ())[:1]) - FUNCTION_WORDS):
                found.append((row["relation_id"], row["sub_label"], gold, sorted(close)))
    assert found == []


def test_thirtieth_read_p206_asks_islands_only(read29_build):
    """Over every P206 instance, judged from the slice's TSV: the subject is of an island's class or named as
    an island ("Deception Island"), as "lies in the [Y]" is true of an island in a sea and not of a town on a
    river ("Easter Island is situated on the Pacific Ocean", the thirtieth read); P206 keeps a balanced space."""
    classes = slice_classes()
    instances = table(read29_build, "instances").filter(pl.col("relation_id") == "P206")
    not_islands = [
        label
        for s, label in instances.select("sub_id", "sub_label").rows()
        if not classes.get(s, set()) & ISLAND_CLASSES_30
        and not re.search(r"\b(?:Island|Islands|Isle|Isles|Islet|Islets|Atoll|Archipelago)\b", label)
    ]
    assert instances.height >= 25 and not_islands == []


def test_thirty_first_read_no_subject_names_an_inflected_form_of_its_gold(read29_build):
    """Over every instance, names read from the slice's TSV: no letters-only token of the subject's names
    (4+ letters) begins as a token of a gold's label does for 4+ letters and two thirds of the shorter
    (``os.path.commonprefix``, not the builder's function): the thirty-first read's "Carl XVI Gustaf of
    Sweden" -> "Swedish", "55 Cancri" -> "Cancer", "Freyr" -> "Freyja"."""
    names = slice_names()
    generic = {"north", "south", "saint", "state", "unive", "natio", "royal", "great", "inter", "centr"}
    found = []
    for row in table(read29_build, "instances").iter_rows(named=True):
        subject = {
            t for t in tokens_of([row["sub_label"], *row["sub_aliases"]]) if t.isalpha() and len(t) >= 4
        }
        for gold in row["gold_obj_ids"]:
            for b in tokens_of(names.get(gold, ())[:1]) - FUNCTION_WORDS:
                for a in subject - FUNCTION_WORDS:
                    shared = len(os.path.commonprefix([a, b]))
                    if b.isalpha() and shared >= 4 and 3 * shared >= 2 * min(len(a), len(b)):
                        if a[:5] not in generic and b[:5] not in generic:
                            found.append((row["relation_id"], row["sub_label"], a, b))
    assert found == []
