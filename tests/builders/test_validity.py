"""The validity report: zero violations on real builds, and every planted violation found."""

import json

import pyarrow as pa
import pytest

from probesmith.builders.validity import RULES, VALIDITY_FILE, validity_markdown, validity_report
from probesmith.schemas.tables import MULTIPLE_CHOICE

from ..conftest import needs_gcide, needs_wordnet


def table(rows):
    base = {
        "id": "x",
        "probe": "p",
        "question": "q?",
        "cluster": "c",
        "concept": "c",
        "hops": 1,
        "distractor_hops": [None, None],
        "choice_concepts": ["a", "b", "c"],
        "pos": "noun",
        "framing": "f",
        "perturbation": 0,
        "source": "s",
        "distractor_types": ["sister", "random"],
    }
    return pa.Table.from_pylist([{**base, **row} for row in rows], schema=MULTIPLE_CHOICE.schema)


def test_planted_violations_are_each_found():
    rows = [
        {"id": "ok", "choices": ["a cat", "a dog", "a fish"], "answer_index": 0},
        {"id": "same", "choices": ["A cat.", "a cat", "a fish"], "answer_index": 1},
        {"id": "near", "choices": ["set afloat", "set afloat again", "a fish"], "answer_index": 2},
        {"id": "empty", "choices": ["a cat", " ", "a fish"], "answer_index": 0},
    ]
    report = validity_report({("cfg", "test"): table(rows)}, {"cfg: too short": 3, "other: x": 1})
    entry = report["configs"]["cfg"]
    found = {rule: entry["rules"][rule]["violations"] for rule in RULES}
    # "same" is also a near-duplicate (identical words); answers 0, 1, 2, 0: balanced
    assert found == {"distinct": 1, "near_duplicate": 2, "empty": 1, "balanced": 0}
    assert entry["dropped"] == {"cfg: too short": 3}
    assert entry["length"]["chance"] == pytest.approx(1 / 3, abs=1e-4)
    unbalanced = [{"id": str(i), "choices": ["a", "b", "c"], "answer_index": 0} for i in range(4)]
    report = validity_report({("cfg", "test"): table(unbalanced)}, {})
    assert report["configs"]["cfg"]["rules"]["balanced"]["violations"] == 1


def test_a_mix_that_was_not_delivered_is_reported_as_such():
    # asked: sister 2 : opposite 1 : random 1; delivered: only sister and random (no hyponyms anywhere)
    rows = [
        {"id": str(i), "choices": ["a", "b", "c"], "answer_index": i % 3, "distractor_types": kinds}
        for i, kinds in enumerate([["sister", "random"], ["sister", "sister"], ["random", "isa_down"]] * 4)
    ]
    mix = {"sister": 2, "opposite": 1, "random": 1}
    entry = validity_report({("cfg", "test"): table(rows)}, {}, {"cfg": mix}, tolerance=0.03)["configs"][
        "cfg"
    ]
    # 24 slots: sister 12 (0.5), random 8 (0.333), opposite 4 (isa_down, 0.167)
    assert entry["mix"]["delivered"] == {"opposite": 4, "random": 8, "sister": 12}
    assert entry["mix"]["share_difference"] == {"opposite": -0.0833, "random": 0.0833, "sister": 0.0}
    assert entry["mix"]["shortfall"] == {"opposite": 2, "random": 0, "sister": 0}
    assert entry["mix"]["mix_delivered"] is False
    loose = validity_report({("cfg", "test"): table(rows)}, {}, {"cfg": mix}, tolerance=0.1)
    assert loose["configs"]["cfg"]["mix"]["mix_delivered"] is True
    assert "**not delivered** within 3%" in validity_markdown(
        validity_report({("cfg", "test"): table(rows)}, {}, {"cfg": mix})
    )


@pytest.mark.integration
@pytest.mark.parametrize(
    "fixture",
    [
        pytest.param("small_dictionary_build", marks=needs_gcide),
        pytest.param("small_wordnet_build", marks=needs_wordnet),
    ],
)
def test_every_rule_holds_on_every_item_of_a_real_build(fixture, request):
    build = request.getfixturevalue(fixture)
    report = json.loads((build.out / VALIDITY_FILE).read_text())
    for config, entry in report["configs"].items():
        assert entry["items"] == sum(entry["items_per_split"].values()) > 0
        assert set(RULES) <= set(report["rules"]) == set(entry["rules"])
        for rule in report["rules"]:  # the shared rules and the family's own
            assert entry["rules"][rule] == {"checked": entry["items"], "violations": 0, "examples": []}, (
                config,
                rule,
            )
        assert abs(sum(entry["distributions"]["distractor_types"].values()) - 1) < 1e-3
    card = (build.out / "README.md").read_text()
    assert "## Validity" in card and "0 violations" in card
    if fixture == "small_wordnet_build":
        assert {"one_right_answer", "not_given_away"} <= set(report["rules"])
        assert all(f"`{rule}`" in card for rule in report["rules"])


def test_relation_rules_find_a_planted_name_leak_and_an_answer_named_like_a_gold():
    """relation_validity_report with the names of every entity: a subject sharing a short token with
    its gold's alias, an answer bearing a gold's alias left out of the golds, and two answers of a
    space with a common alias are each found."""
    from probesmith.builders.families.relations_validity import relation_validity_report

    def row(sub, label, obj, obj_label, idx, golds):
        return {
            "relation_id": "P27",
            "sub_id": sub,
            "sub_label": label,
            "sub_aliases": [],
            "obj_id": obj,
            "obj_label": obj_label,
            "answer_idx": idx,
            "gold_obj_ids": golds,
        }

    instances = [
        row("Q1", "Ivan Petrov", "Q159", "Russia", 0, ["Q159"]),
        row("Q2", "Fyodor Dostoyevsky", "Q34266", "Russian Empire", 1, ["Q34266"]),  # Russia is a gold too
        row("Q3", "Nina Li", "Q148", "People's Republic of China", 2, ["Q148"]),  # "Li" via an alias
    ]
    answers = [
        {"relation_id": "P27", "answer_idx": i, "obj_id": o, "obj_label": label}
        for i, (o, label) in enumerate([("Q159", "Russia"), ("Q34266", "Russian Empire"), ("Q148", "China")])
    ]
    names = {
        "Q1": ["Ivan Petrov"],
        "Q2": ["Fyodor Dostoyevsky"],
        "Q3": ["Nina Li"],
        "Q159": ["Russia", "Russian Federation"],
        "Q34266": ["Russian Empire", "Russia"],
        "Q148": ["People's Republic of China", "Li China"],
    }
    report = relation_validity_report(
        instances,
        answers,
        [
            {"relation_id": "P27", "template": t}
            for t in ("[X] is a citizen of [Y].", "[X] is from [Y].", "[Y]: [X].")
        ],
        margin=1.0,
        coverage=[],
        dropped={},
        names=names,
        generic={"P27": frozenset({"republic"})},
    )
    rules = report["relations"]["P27"]["rules"]
    assert rules["no_leak"]["violations"] == 1 and rules["no_leak"]["examples"][0][2] == ["li"]
    # Petrov: "Russian Empire" bears his gold's label as an alias and is left out of his golds; Dostoyevsky:
    # the answer labelled "Russia" bears a name (alias) of his gold Russian Empire, and is left out. Any
    # name of either side counts, not the answer's label alone
    assert rules["equal_answers"]["violations"] == 2
    assert [e[:2] for e in rules["equal_answers"]["examples"]] == [
        ["Ivan Petrov", "Russia"],
        ["Fyodor Dostoyevsky", "Russian Empire"],
    ]
    assert rules["distinct_answers"]["violations"] == 1  # Russia / Russian Empire share "Russia"
    assert report["relations"]["P27"]["generic_tokens"] == ["republic"]
