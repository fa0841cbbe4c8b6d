"""Every metric family on a case small enough to check by hand."""

import polars as pl
import pytest

from probesmith.eval import metrics as M
from probesmith.eval.editors import normalise_answer
from probesmith.eval.families import paraphrases, relations, rules
from probesmith.eval.families.rules import _metric_of
from probesmith.stats import wilson_interval


def mc_row(id, cluster, scores, gold, types, hops=1, config="hypernymy", tokens=None, chars=None):
    tokens = tokens or [1] * len(scores)
    chars = chars or [1] * len(scores)
    raw = max(range(len(scores)), key=scores.__getitem__)
    tok = max(range(len(scores)), key=lambda i: scores[i] / tokens[i])
    char = max(range(len(scores)), key=lambda i: scores[i] / chars[i])
    return {
        "id": id,
        "config": config,
        "cluster": cluster,
        "hops": hops,
        "distractor_types": types,
        "answer_index": gold,
        "scores": scores,
        "predicted": raw,
        "correct": raw == gold,
        "correct_token_norm": tok == gold,
        "correct_char_norm": char == gold,
    }


def test_multiple_choice_accuracy_strict_clusters_and_cells():
    items = pl.DataFrame(
        [
            # gold 0 beats everything
            mc_row("a1", "A", [-1.0, -2.0, -3.0], 0, ["sister", "random"]),
            # gold 1 loses to the sister (index 0) but beats the random one
            mc_row("a2", "A", [-1.0, -2.0, -3.0], 1, ["sister", "random"]),
            # a long gold: wrong raw, right per token
            mc_row("b1", "B", [-4.0, -3.0], 0, ["random"], hops=2, tokens=[4, 1]),
        ]
    )
    m = M.multiple_choice_metrics(items)["hypernymy"]
    assert m["n"] == 3
    assert m["accuracy"] == pytest.approx(1 / 3)
    assert m["accuracy_token_norm"] == pytest.approx(2 / 3)  # b1: -4/4 = -1 > -3
    assert m["clusters"] == 2 and m["strict_cluster_accuracy"] == 0.0  # A has a2 wrong, B has b1 wrong
    # chance: a uniform guess over 3, 3 and 2 choices; a cluster needs every item right
    assert m["chance"] == pytest.approx((1 / 3 + 1 / 3 + 1 / 2) / 3)
    assert m["strict_cluster_chance"] == pytest.approx((1 / 9 + 1 / 2) / 2)
    assert m["accuracy_ci95"] == pytest.approx(list(wilson_interval(1 / 3, 3)))
    assert m["accuracy_ci95"][0] < m["accuracy"] < m["accuracy_ci95"][1]
    cells = {
        (r["hops"], r["distractor_type"]): (r["n"], r["accuracy"])
        for r in M.hop_distractor_accuracy(items).to_dicts()
    }
    assert cells[(1, "all")] == (2, 0.5)
    assert cells[(1, "sister")] == (2, 0.5)  # a2's gold loses to its sister
    assert cells[(1, "random")] == (2, 1.0)  # both golds beat the random distractor
    assert cells[(2, "random")] == (1, 0.0)


def test_relation_sets_micro_macro_domains_cardinality_and_templates():
    rows = []
    # P1: 2 instances x 2 templates, 3 of 4 right; P2: 1 instance x 2 templates, 0 right
    for sub, template, correct in [("s1", 0, True), ("s1", 1, True), ("s2", 0, True), ("s2", 1, False)]:
        rows.append(
            {
                "relation_id": "P1",
                "sub_id": sub,
                "template_index": template,
                "correct": correct,
                "chance": 0.25,
            }
        )
    for template in (0, 1):  # P2: a space of 10 answers, 2 of them gold
        rows.append(
            {"relation_id": "P2", "sub_id": "s3", "template_index": template, "correct": False, "chance": 0.2}
        )
    info = {
        "P1": {"domains": ["Geo", "Bio"], "cardinality": "N-1"},
        "P2": {"domains": ["Geo"], "cardinality": "N-M"},
    }
    m = relations.relation_set_metrics(pl.DataFrame(rows), info)
    assert m["micro_accuracy"] == pytest.approx(3 / 6)
    assert m["macro_accuracy"] == pytest.approx((3 / 4 + 0) / 2)
    assert m["accuracy_first_template"] == pytest.approx(2 / 3)
    assert m["relations"]["P1"]["per_template"] == [1.0, 0.5]
    geo = m["by_domain"]["Geo"]
    assert (geo["relations"], geo["macro_accuracy"], geo["micro_accuracy"]) == (2, 0.375, 0.5)
    assert geo["chance"] == pytest.approx((4 * 0.25 + 2 * 0.2) / 6)
    assert m["chance"] == pytest.approx((4 * 0.25 + 2 * 0.2) / 6) and m["macro_chance"] == pytest.approx(
        0.225
    )
    assert m["relations"]["P2"]["ci95"] == pytest.approx(list(wilson_interval(0.0, 2)))
    assert m["accuracy_ci95"] == pytest.approx(list(wilson_interval(0.5, 6)))
    assert m["by_domain"]["Bio"]["macro_accuracy"] == 0.75
    assert m["by_cardinality"]["N-M"]["micro_accuracy"] == 0.0


def grid_row(rel, sub, pattern, rank, predicted, gold="o1"):
    return {
        "candidates": [gold, "o2", "o3", "o4"],
        "relation_id": rel,
        "sub_id": sub,
        "pattern_id": pattern,
        "verbalization_rank": rank,
        "predicted_obj_id": predicted,
        "correct": predicted == gold,
    }


def test_grid_consistency_stability_spread_and_adjusted_accuracy():
    items = pl.DataFrame(
        [
            # s1: patterns p0, p1 agree (both right); p2 disagrees
            grid_row("R", "s1", "p0", 0, "o1"),
            grid_row("R", "s1", "p1", 0, "o1"),
            grid_row("R", "s1", "p2", 0, "o2"),
            # s2: every pattern wrong, all predict o3
            grid_row("R", "s2", "p0", 0, "o3"),
            grid_row("R", "s2", "p1", 0, "o3"),
            grid_row("R", "s2", "p2", 0, "o3"),
            # a second verbalization of s1 under p0: a different prediction
            grid_row("R", "s1", "p0", 1, "o2"),
        ]
    )
    edges = pl.DataFrame(
        [
            {
                "relation_id": "R",
                "source_pattern_id": "p0",
                "target_pattern_id": "p1",
                "lexical": True,
                "syntactic": False,
                "determiner": False,
            },
            {
                "relation_id": "R",
                "source_pattern_id": "p0",
                "target_pattern_id": "p2",
                "lexical": False,
                "syntactic": True,
                "determiner": False,
            },
        ]
    )
    m = paraphrases.grid_metrics(items, edges)
    assert m["chance"] == 0.25 and m["accuracy_ci95"][0] < m["accuracy"] < m["accuracy_ci95"][1]
    assert m["consistency_by_edge_type"]["lexical"] == {"pairs": 2, "consistency": 1.0}
    assert m["consistency_by_edge_type"]["syntactic"] == {"pairs": 2, "consistency": 0.5}  # s1 disagrees
    assert m["consistency"] == pytest.approx(3 / 4)
    assert m["consistent_accuracy"] == 0.0  # s1 wrong under p2, s2 wrong everywhere
    assert m["accuracy_per_pattern"] == {"p0": 0.5, "p1": 0.5, "p2": 0.0}
    assert m["verbalization_stability"] == 0.0  # (s1, p0): o1 vs o2
    assert m["spread"]["R"]["range"] == 0.5
    # cells (p0,0)=0.5, (p1,0)=0.5, (p2,0)=0, (p0,1)=0 -> mean 0.25; original = p0 rank 0 = 0.5
    assert m["adjusted_accuracy"] == pytest.approx(0.25)
    assert m["original_accuracy"] == pytest.approx(0.5)


def test_rank_consistency_is_perfect_when_one_model_dominates_and_split_otherwise():
    def run(correct_by_relation):
        rows = []
        for rel, correct in correct_by_relation.items():
            for sub in ("s1", "s2"):
                for pattern in ("p0", "p1"):
                    rows.append(grid_row(rel, sub, pattern, 0, "o1" if correct else "x"))
        return pl.DataFrame(rows)

    relations = [f"R{i}" for i in range(6)]
    strong = run({r: True for r in relations})
    weak = run({r: False for r in relations})
    result = paraphrases.rank_consistency({"strong": strong, "weak": weak}, n_subsets=20, subset_size=3)
    for scheme in ("original", "random", "adjusted"):
        assert result[scheme]["agreement"] == 1.0
        assert result[scheme]["mean_kendall_tau"] == 1.0
        assert result[scheme]["modal_ranking"] == ["strong", "weak"]
    # two models each right on half of the relations: rankings flip between subsets
    a = run({r: i < 3 for i, r in enumerate(relations)})
    b = run({r: i >= 3 for i, r in enumerate(relations)})
    split = paraphrases.rank_consistency({"a": a, "b": b}, n_subsets=50, subset_size=3, seed=1)
    assert split["original"]["agreement"] < 1.0
    assert split["original"]["mean_kendall_tau"] < 1.0
    with pytest.raises(ValueError, match="two or more models"):
        paraphrases.rank_consistency({"a": a})


def test_edit_metric_roles_and_aggregation():
    assert _metric_of("specific", False, True) == "Est.S"
    assert _metric_of("implication", False, True) == "Est.I"
    assert _metric_of("unrelated", False, True) == ""  # establish phase scores premises and implications
    assert [
        _metric_of(r, u, False)
        for r, u in [
            ("specific", True),
            ("specific", False),
            ("unrelated", False),
            ("implication", True),
            ("implication", False),
        ]
    ] == ["Upd.S", "Cons.NS", "Cons.U", "Upd.I", "Cons.NI"]
    rows = [
        {"editor": "e", "metric": "Est.S", "exact": True, "alias": True},
        {"editor": "e", "metric": "Est.S", "exact": False, "alias": True},
        {"editor": "e", "metric": "Upd.I", "exact": False, "alias": False},
    ]
    m = rules.edit_metrics(pl.DataFrame(rows))["e"]

    def core(cell):
        return {k: cell[k] for k in ("n", "exact", "alias")}

    assert core(m["Est.S"]) == {"n": 2, "exact": 0.5, "alias": 1.0}
    assert m["Est.S"]["exact_ci95"] == pytest.approx(list(wilson_interval(0.5, 2)))
    assert m["Est.S"]["chance"] is None  # generated answers: no chance rate
    assert core(m["Upd.I"]) == {"n": 1, "exact": 0.0, "alias": 0.0}
    assert core(m["Cons.U"]) == {"n": 0, "exact": None, "alias": None} and m["Cons.U"]["alias_ci95"] is None


def test_answer_normalisation():
    assert normalise_answer("The  Académie-Française.") == normalise_answer("académiefrançaise")
    assert normalise_answer("an Apple") == "apple"
