"""The relations family's validity rules, checked on every row of a relations build.

Computed from the rows as written (instances, answer spaces, templates): each rule with its
violations and examples per relation, the constant-answer baseline and BEAR's coverage;
``validity.json`` holds the report and the card renders it (``relation_validity_markdown``).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter, defaultdict
from typing import Any

from probesmith.builders.names import name_keys, name_leak, named_like_a_gold
from probesmith.builders.text import (
    fill_template,
    filled_problem,
    names_nested,
    possessive_after_qualifier,
    template_key,
    title_mark_ends_statement,
)
from probesmith.builders.validity import rules_table

# relations whose subjects are people: their templates are in the simple past (the seventeenth read: "John
# Matuszak plays as a defensive end", d. 2001; the past is true of the living, the present false of the dead)
# every relation of the catalog whose subjects with a class in the slice are 90%+ human in the seed-0
# default build (the twenty-first read found P1532, P412, P53, P611, P641 stated in the present: "Jesse Owens
# represents"), P19 aside: a birthplace outlives its subject ("The birthplace of Lincoln is Hodgenville")
PEOPLE_IN_THE_PAST = frozenset(
    {
        "P20", "P26", "P27", "P39", "P53", "P69", "P97", "P101", "P103", "P106", "P108", "P185", "P412",
        "P413", "P463", "P509", "P611", "P641", "P945", "P1303", "P1412", "P1532", "P2632", "P6886",
    }
)  # fmt: skip
_PRESENT = re.compile(r"\b(?:is|are|has|have)\b|\[X\] (?!was\b)[a-z]+[^s\W]s\b")


def in_the_present(template: str) -> bool:
    """Whether a template states its fact in the present ("[X] is a member of", "[X] plays as a [Y]")."""
    return _PRESENT.search(template) is not None


RELATION_RULES = {
    "balanced": "within a relation every answer is the sampled gold (obj_id) of the same number of instances "
    "(the other right answers an instance lists in gold_obj_ids are not balanced)",
    "gold_listed": "the sampled gold is among the instance's golds and answer_idx points to it",
    "unique_subjects": "no subject appears twice within a relation",
    "no_leak": "the subject's label and aliases share no name token (a word of two letters or more, a number "
    "of three digits or more, letters joined by '&' or a run of two or more initials, and each part of "
    "letters glued to digits: 'TED2004' -> 'TED', '2004', 'ITV3' -> 'ITV'; a single letter, "
    "function words and legal forms such as 'LLC' are none), nor a name stem (the first five letters of "
    "a word of four letters or more), nor a compound part (a "
    "token of five letters or more, no English word nor its plural in 's' nor a generic word such as 'south' "
    "or 'great' with at most three letters more, that begins or ends a longer token of the other "
    "side: 'Venediger Group' / 'Großvenediger'), nor a token of five letters or more one letter (changed, "
    "added or dropped) from a token of a gold's label, its aliases aside, unless both are English words "
    "('Cython' / 'Python'; not 'royal' / 'loyal'), nor a token beginning as a token of a gold's label does "
    "for four letters or more and two thirds of the shorter ('Sweden' / 'Swedish', 'Cancri' / 'Cancer'; "
    "not 'Montreal' / 'Montana') with the label or an alias of a gold of its answer "
    "space, case, diacritics and 'ß'/'ss' folded; function words and the relation's generic "
    "tokens aside (listed per relation in validity.json's `generic_tokens`: the tokens in 10%+, and 5+, of "
    "the names of its candidate answers, the 5 x max_answers + 50 objects the source gives it most often, "
    "of which its answer space keeps at most max_answers: 'saint' for P611, 'alps' for P4552)",
    "equal_answers": "no answer of a space that shares a name (label or alias, case, diacritics, spaces "
    "and punctuation aside) with one of the instance's golds, in the space or not, is left out of its golds",
    "distinct_answers": "no two answers of a space share a name (label or alias) or nest one label in "
    "the other",
    "nested_answers": "every answer of the space that contains a gold of the instance by the source's "
    "containment facts (the spec's `containment`, transitively: Dortmund -> Germany) is one of its golds; "
    "a class the source places under another by P31 alone ('novella' an instance of 'narrative' in P7937, "
    "'archaeology' of 'history' in P101: no P279 path in the slice) is not containment and is not checked",
    "answers_placed": "in a space of countries and places (a relation of the spec's `place_relations`, "
    "one of its candidate answers a country or a continent), every "
    "answer is a country or continent (P31: country, sovereign state, continent, historical country, state "
    "with limited recognition; a dependent territory such as 'New Caledonia' is none) or placed by the "
    "source (P131/P17/P30/P361): no answer the "
    "source cannot tell to lie inside another ('Goiás' beside 'Brazil')",
    "constant_answer": "no single answer is gold for more than 1/A + margin of a relation's instances",
    "templates": "every relation has at least 3 distinct templates",
    "people_in_the_past": "every template of a relation whose subjects with a class in the slice are "
    "90%+ human in the seed-0 default build (P20, P26, P27, P39, P53, P69, P97, P101, P103, P106, P108, "
    "P185, P412, P413, P463, P509, P611, P641, P945, P1303, P1412, P1532, P2632, P6886; P19 aside, a "
    "birthplace outlives its subject: 'The birthplace of Lincoln is Hodgenville'; of P101, P106 and P463 a "
    "subject with a class in the slice, none of them human, is dropped: 'Nepal was a member of'; the others' "
    "subjects are not checked to be people) states the fact in the simple past, true of the living and "
    "the dead, as the rules family asks people ('Jacques-Louis David was a member of', not 'is'): no 'is', "
    "'are', 'has', 'have' and no present in '-s' after the subject",
    "templates_read": "no template puts a possessive after a subject's comma qualifier ('Juan Prim, 1st "
    "Marquis of los Castillejos's place of death') nor doubles a word or an article, "
    "nor ends its statement with a subject or gold whose label ends in '?' or '!' ('The Dexter series "
    "includes Remember the Monsters?' reads as a question; every answer of a space is some instance's gold) "
    "when filled with an instance as probesmith "
    "fills it (`fill_template`: the article agreed with the label, a word the label repeats said once; a "
    "BEAR export leaves out the templates a plain [Y] replacement would misread)",
}


def relation_validity_report(
    instances: list[dict],
    answers: list[dict],
    templates: list[dict],
    *,
    margin: float,
    coverage: list[dict],
    dropped: dict[str, int],
    names: dict[str, list[str]] | None = None,
    generic: dict[str, frozenset[str]] | None = None,
    containers: dict[str, set[str]] | None = None,
    unplaced: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The validity report of a relations build, computed from its rows (see the module docstring).

    ``names`` holds the label and aliases of every subject, gold and answer (without it, the
    rows' labels and subject aliases), ``generic`` each relation's generic name tokens, ``containers``
    every gold's containers as the source gives them, ``unplaced`` per relation the answers of a space of
    places that the source neither types as a country nor places.
    """
    containers = containers or {}
    unplaced = unplaced or {}
    names = dict(names or {})
    for row in instances:
        names.setdefault(row["sub_id"], [row["sub_label"], *row["sub_aliases"]])
        names.setdefault(row["obj_id"], [row["obj_label"]])
    for row in answers:
        names.setdefault(row["obj_id"], [row["obj_label"]])
    generic = generic or {}

    @functools.cache
    def keys_of(entity: str) -> frozenset[str]:
        return name_keys(names[entity]) if entity in names else frozenset()

    by_relation: dict[str, list[dict]] = defaultdict(list)
    for row in instances:
        by_relation[row["relation_id"]].append(row)
    spaces: dict[str, list[dict]] = defaultdict(list)
    for row in answers:
        spaces[row["relation_id"]].append(row)
    patterns: dict[str, set[str]] = defaultdict(set)
    texts: dict[str, list[str]] = defaultdict(list)
    for row in templates:
        patterns[row["relation_id"]].add(template_key(row["template"]))
        texts[row["relation_id"]].append(row["template"])
    relations = {}
    for pid, rows in sorted(by_relation.items()):
        space = sorted(spaces[pid], key=lambda a: a["answer_idx"])
        ids = [a["obj_id"] for a in space]
        violations: Counter = Counter()
        examples: dict[str, list] = defaultdict(list)
        per_answer = Counter(row["obj_id"] for row in rows)
        if len(set(per_answer.values())) != 1 or set(per_answer) != set(ids):
            violations["balanced"] += 1
        generic_here = frozenset(generic.get(pid, ()))
        answer_keys = {a: name_keys(names[a]) for a in ids}
        for row in rows:
            if row["obj_id"] not in row["gold_obj_ids"] or ids[row["answer_idx"]] != row["obj_id"]:
                violations["gold_listed"] += 1
                examples["gold_listed"].append(row["sub_id"])
            golds = [g for g in row["gold_obj_ids"] if g in names]
            sub_names = names[row["sub_id"]]
            leaks = {g: name_leak(sub_names, names[g], generic_here) for g in golds if g in answer_keys}
            if any(leaks.values()):
                violations["no_leak"] += 1
                g, shared = next((g, t) for g, t in leaks.items() if t)
                examples["no_leak"].append([row["sub_label"], names[g][0], sorted(shared)])
            containing = set().union(*(containers.get(g, set()) for g in row["gold_obj_ids"]))
            if containing & set(ids) - set(row["gold_obj_ids"]):
                violations["nested_answers"] += 1
                examples["nested_answers"].append([row["sub_label"], row["obj_label"]])
            unmarked = named_like_a_gold(row["gold_obj_ids"], ids, keys_of)
            if unmarked:
                violations["equal_answers"] += 1
                examples["equal_answers"].append([row["sub_label"], row["obj_label"], names[unmarked[0]][0]])
        violations["unique_subjects"] = len(rows) - len({row["sub_id"] for row in rows})
        violations["answers_placed"] = len(unplaced.get(pid, ()))
        examples["answers_placed"] = [names[a][0] for a in unplaced.get(pid, ())]
        for a, b in itertools.combinations(space, 2):
            if answer_keys[a["obj_id"]] & answer_keys[b["obj_id"]] or names_nested(
                a["obj_label"], b["obj_label"]
            ):
                violations["distinct_answers"] += 1
                examples["distinct_answers"].append([a["obj_label"], b["obj_label"]])
        golds_in_space = [set(row["gold_obj_ids"]) & set(ids) for row in rows]
        shares = {a: sum(a in g for g in golds_in_space) / len(rows) for a in ids}
        constant = max(shares.values())
        uniform = 1 / len(ids)
        if constant > uniform + margin + 1e-9:
            violations["constant_answer"] += 1
        if len(patterns[pid]) < 3:
            violations["templates"] += 1
        if pid in PEOPLE_IN_THE_PAST:
            present = [t for t in texts[pid] if in_the_present(t)]
            violations["people_in_the_past"] += len(present)
            examples["people_in_the_past"] += present
        for row in rows:
            for template in texts[pid]:
                statement = fill_template(template, row["sub_label"], row["obj_label"])
                read_wrong = filled_problem(statement, row["sub_label"], row["obj_label"])
                title_mark = title_mark_ends_statement(
                    template, "[X]", row["sub_label"]
                ) or title_mark_ends_statement(template, "[Y]", row["obj_label"])
                if read_wrong or title_mark or possessive_after_qualifier(statement, row["sub_label"]):
                    violations["templates_read"] += 1
                    examples["templates_read"].append(statement)
        relations[pid] = {
            "instances": len(rows),
            "answers": len(ids),
            "multi_gold_instances": sum(len(g) > 1 for g in golds_in_space),
            "constant_answer": round(constant, 4),
            "uniform": round(uniform, 4),
            "generic_tokens": sorted(generic_here),
            "rules": {
                rule: {"violations": violations[rule], "examples": examples[rule][:3]}
                for rule in RELATION_RULES
            },
            "dropped": {
                r.split(": ", 1)[1]: n for r, n in sorted(dropped.items()) if r.startswith(f"{pid}:")
            },
        }
    return {
        "rules": RELATION_RULES,
        "constant_margin": margin,
        "totals": {
            rule: sum(entry["rules"][rule]["violations"] for entry in relations.values())
            for rule in RELATION_RULES
        },
        "instances": len(instances),
        "multi_gold_instances": sum(entry["multi_gold_instances"] for entry in relations.values()),
        "relations": relations,
        "coverage": coverage,
    }


def relation_validity_markdown(report: dict[str, Any], popularity_note: str) -> str:
    """The card's validity section of a relations build: rules, the constant baseline, coverage."""
    lines = rules_table(
        f"Checked on every one of the {report['instances']:,} instances (`validity.json` has each "
        "relation's counts and examples):",
        RELATION_RULES,
        report["totals"],
    )
    worst = max(report["relations"].items(), key=lambda kv: kv[1]["constant_answer"] - kv[1]["uniform"])
    lines += [
        "",
        f"Golds: `gold_obj_ids` lists every object the source gives the subject among the relation's "
        f"object types (the catalog's `object_types`: an object of another class, as a province for a "
        f"capital of P1376, is left out; the answer space is drawn from the same types, so such an "
        f"object is never an answer and scoring is unaffected), and the answers of the "
        f"space that contain one of them by a containment fact the source records (the spec's `containment` "
        f"relations, transitively: Dortmund -> Germany; where the source records none, as for Trinity "
        f"College, Cambridge and the University of Cambridge in the shared slice, the answer is no gold; "
        f"in a space of countries and places every answer is a country or placed by the source "
        f"(`answers_placed`); not checked: two answers of one space nested in the world but not in the "
        f"source elsewhere, as P4552's Catskill Mountains in the Appalachian Mountains or P171's Lamiaceae "
        f"in Lamiales), "
        f"are labelled with one of their names (label or alias: Writer for a gold whose alias is 'writer') "
        f"or, for occupations, are a direct class of one (Writer for a poet). A subject one of whose "
        f"golds, in the space or not, shares any name (label or alias, as the source gives them) with an "
        f"answer of the space that is no gold of it is not asked (Russian Empire, alias 'Russia', is no "
        f"answer for a citizen of Russia; `equal_answers`), and no two answers of a space share a name "
        f"(the less supported one leaves; `distinct_answers`). "
        f"{report['multi_gold_instances']:,} "
        "instances have more than one gold inside their answer space; any of them counts as correct.",
        "",
        f"Constant-answer baseline (always answer the most frequent gold): at most uniform + "
        f"{report['constant_margin']} in every relation; the largest excess is {worst[0]}'s "
        f"({worst[1]['constant_answer']:.3f} vs uniform {worst[1]['uniform']:.3f}).",
        "",
        "What is **not** checked on every item: that a subject is not also a true instance of an answer "
        "the source does not list for it (Wikidata is incomplete; a missing fact reads as a wrong "
        "answer), and nesting the source's containment relations do not record (the card's rule uses "
        "the names as a second net).",
        "",
        popularity_note,
        "",
        "Coverage of BEAR's 60 relations (Wiland et al. 2024):",
        "",
        "| relation | status |",
        "|---|---|",
    ]
    lines += [f"| {row['relation_id']} | {row['status']} |" for row in report["coverage"]]
    return "\n".join(lines)
