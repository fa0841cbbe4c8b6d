"""The validity report of a multiple-choice build: what was checked on every item, and what was found.

Computed from the tables as written (not from the builder's intentions), so it measures the
data a user gets: the rules every item must obey with the number of violations (zero in a build
probesmith writes; the tests check that), what was dropped and why, the length cue (is the gold
the longest or shortest choice more often than chance?), and the distributions of hops,
distractor types, framings and parts of speech. ``validity.json`` holds it; the card renders it.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from typing import Any, Protocol

import pyarrow as pa

from probesmith.builders.text import near_duplicate, normalize_choice

VALIDITY_FILE = "validity.json"

RULES = {
    "distinct": "the gold is not a distractor and no two choices read the same",
    "near_duplicate": "no two choices are near-duplicates (token Jaccard >= 0.6)",
    "empty": "no choice is empty",
    "balanced": "gold positions are balanced within each split (counts differ by at most one)",
}


def validity_report(
    tables: dict[tuple[str, str], pa.Table],
    dropped: dict[str, int],
    mixes: dict[str, dict[str, int]] | None = None,
    tolerance: float = 0.03,
    item_checks: ItemChecks | None = None,
) -> dict[str, Any]:
    """The report of every config of a multiple-choice build (see the module docstring).

    With the distractor mix each config asked for (``mixes``: config -> weight per type), each
    config also reports the mix asked for beside the mix delivered (distractor slots by type,
    counted in the tables), the shortfall of each type, and whether every type's share lies
    within ``tolerance`` of the share asked for (``mix_delivered``). A family's own rules
    (``item_checks``) are checked on every item beside the shared ones.
    """
    rows_by_config: dict[str, list[dict]] = defaultdict(list)
    columns = ["choices", "answer_index", "hops", "distractor_types", "framing", "pos"]
    if item_checks:
        columns += [c for c in item_checks.columns if c not in columns]
    for (config, split), table in sorted(tables.items()):
        rows_by_config[config] += [dict(row, split=split) for row in table.select(columns).to_pylist()]
    rules = {**RULES, **(item_checks.rules if item_checks else {})}
    configs = {
        config: _config_report(
            rows,
            {r: n for r, n in dropped.items() if r.startswith(f"{config}:")},
            rules,
            item_checks.check(rows) if item_checks else None,
        )
        for config, rows in sorted(rows_by_config.items())
    }
    for config, rows in rows_by_config.items():
        if (mixes or {}).get(config):
            configs[config]["mix"] = _mix_report(rows, mixes[config], tolerance)  # type: ignore[index]
    return {"rules": rules, "configs": configs}


class ItemChecks(Protocol):
    """A family's own rules over its items as written (e.g. WordNetQA's one right answer)."""

    rules: dict[str, str]  # rule -> what it promises
    columns: tuple[str, ...]  # the table columns ``check`` reads

    def check(self, rows: list[dict]) -> list[list[tuple[str, str]]]:
        """Per row of one config: the (rule, detail) pairs it breaks."""
        ...


def _slot_type(tag: str) -> str:
    """The mix type of a distractor tag: the ISA hops of either direction are 'opposite'."""
    return "opposite" if tag.startswith("isa_") else tag


def _mix_report(rows: list[dict], mix: dict[str, int], tolerance: float) -> dict[str, Any]:
    """Distractor slots asked for (the mix's shares of the slots delivered) and delivered per type."""
    delivered = Counter(_slot_type(t) for row in rows for t in row["distractor_types"])
    total_delivered, total_weight = sum(delivered.values()) or 1, sum(mix.values())
    asked_share = {kind: n / total_weight for kind, n in mix.items() if n}
    asked = {kind: round(share * total_delivered) for kind, share in asked_share.items()}
    delivered_share = {kind: n / total_delivered for kind, n in delivered.items()}
    off = {
        kind: round(delivered_share.get(kind, 0.0) - asked_share.get(kind, 0.0), 4)
        for kind in sorted(set(asked) | set(delivered))
    }
    return {
        "asked": dict(sorted(asked.items())),
        "delivered": dict(sorted(delivered.items())),
        "shortfall": {kind: max(0, n - delivered.get(kind, 0)) for kind, n in sorted(asked.items())},
        "share_difference": off,
        "tolerance": tolerance,
        "mix_delivered": all(abs(d) <= tolerance for d in off.values()),
    }


def _config_report(
    rows: list[dict],
    dropped: dict[str, int],
    rules: dict[str, str] = RULES,
    found: list[list[tuple[str, str]]] | None = None,
) -> dict[str, Any]:
    violations: Counter = Counter()
    details: dict[str, Counter] = defaultdict(Counter)
    examples: dict[str, list] = defaultdict(list)
    for row, broken in zip(rows, found or [], strict=False):
        for rule in {rule for rule, _ in broken}:
            violations[rule] += 1
            if len(examples[rule]) < 3:
                examples[rule].append(
                    {"question": row["question"], "choices": row["choices"], "found": broken}
                )
        for rule, detail in broken:
            details[rule][detail] += 1
    positions: dict[str, Counter] = defaultdict(Counter)
    gold_chars, distractor_chars = [], []
    longest = shortest = chance = 0.0
    for row in rows:
        choices, answer = row["choices"], row["answer_index"]
        if len({normalize_choice(c) for c in choices}) < len(choices):
            violations["distinct"] += 1
            examples["distinct"].append(choices)
        pairs = [(a, b) for a, b in itertools.combinations(choices, 2) if near_duplicate(a, b)]
        if pairs:
            violations["near_duplicate"] += 1
            examples["near_duplicate"].append(pairs[0])
        if any(not c.strip() for c in choices):
            violations["empty"] += 1
        positions[row["split"]][answer] += 1
        lengths = [len(c) for c in choices]
        gold_chars.append(lengths[answer])
        distractor_chars += [n for i, n in enumerate(lengths) if i != answer]
        longest += lengths[answer] == max(lengths) and lengths.count(max(lengths)) == 1
        shortest += lengths[answer] == min(lengths) and lengths.count(min(lengths)) == 1
        chance += 1 / len(choices)
    for split, counts in positions.items():
        width = max(len(r["choices"]) for r in rows if r["split"] == split)
        full = [counts.get(i, 0) for i in range(width)]
        if max(full) - min(full) > 1:
            violations["balanced"] += 1
            examples["balanced"].append({split: full})
    n = len(rows)
    slots = Counter(t for row in rows for t in row["distractor_types"])
    total_slots = sum(slots.values()) or 1
    return {
        "items": n,
        "items_per_split": dict(sorted(Counter(r["split"] for r in rows).items())),
        "rules": {
            rule: {
                "checked": n,
                "violations": violations[rule],
                "examples": examples[rule][:3],
                **({"by_detail": dict(details[rule].most_common(20))} if details[rule] else {}),
            }
            for rule in rules
        },
        "dropped": dict(sorted(dropped.items())),
        "length": {
            "gold_chars_mean": round(sum(gold_chars) / n, 2),
            "distractor_chars_mean": round(sum(distractor_chars) / max(1, len(distractor_chars)), 2),
            "gold_is_longest": round(longest / n, 4),
            "gold_is_shortest": round(shortest / n, 4),
            "chance": round(chance / n, 4),
        },
        "distributions": {
            "hops": _shares(Counter(r["hops"] for r in rows), n),
            "distractor_types": {t: round(c / total_slots, 4) for t, c in sorted(slots.items())},
            "framings": _shares(Counter(r["framing"] for r in rows), n),
            "pos": _shares(Counter(r["pos"] for r in rows), n),
        },
    }


def _shares(counts: Counter, n: int) -> dict[str, float]:
    return {str(k): round(v / n, 4) for k, v in sorted(counts.items(), key=lambda kv: str(kv[0]))}


def validity_markdown(report: dict[str, Any]) -> str:
    """The card's validity section: rules checked on every item, the length cue, the mix."""
    rule_text = report.get("rules", RULES)
    lines = [
        "Checked on every item of every split (`validity.json` has the details and examples):",
        "",
        "| config | items | " + " | ".join(rule_text) + " | gold longest | gold shortest | chance |",
        "|---|---|" + "---|" * (len(rule_text) + 3),
    ]
    for config, entry in report["configs"].items():
        rules = " | ".join(f"{entry['rules'][r]['violations']:,} violations" for r in rule_text)
        length = entry["length"]
        lines.append(
            f"| `{config}` | {entry['items']:,} | {rules} | {length['gold_is_longest']:.3f} | "
            f"{length['gold_is_shortest']:.3f} | {length['chance']:.3f} |"
        )
    lines += ["", "Rules: " + "; ".join(f"`{k}`: {v}" for k, v in rule_text.items()) + "."]
    lines += ["", "Distractor slots by type:", ""]
    for config, entry in report["configs"].items():
        mix = ", ".join(f"{t} {s:.1%}" for t, s in entry["distributions"]["distractor_types"].items())
        lines.append(f"- `{config}`: {mix}")
        if "mix" in entry:
            asked, off = entry["mix"]["asked"], entry["mix"]["share_difference"]
            total = sum(asked.values()) or 1
            verdict = (
                "delivered within {:.0%} of every share asked"
                if entry["mix"]["mix_delivered"]
                else "**not delivered** within {:.0%}: the pools of this config run short"
            ).format(entry["mix"]["tolerance"])
            lines.append(
                "  - asked: "
                + ", ".join(f"{t} {n / total:.0%}" for t, n in asked.items())
                + f"; {verdict} (delivered minus asked: "
                + ", ".join(f"{t} {d:+.1%}" for t, d in off.items())
                + ")"
            )
    return "\n".join(lines)


RELATION_RULES = {
    "balanced": "within a relation every answer is the gold of the same number of instances",
    "gold_listed": "the sampled gold is among the instance's golds and answer_idx points to it",
    "unique_subjects": "no subject appears twice within a relation",
    "no_leak": "the subject's label and aliases share no name token (a word of two letters or more, a number "
    "of three digits or more, letters joined by '&' or a run of two or more initials; a single letter, "
    "function words and legal forms such as 'LLC' are none), nor a name stem, nor a compound part (a "
    "token of five letters or more, no English word, that begins or ends a longer token of the other "
    "side: 'Venediger Group' / 'Großvenediger') with the label or an alias of a gold of its answer "
    "space, case, diacritics and 'ß'/'ss' folded; function words and the relation's generic "
    "tokens (`generic_tokens`: in 10%+, and 5+, of its candidate answers' names) aside",
    "equal_answers": "no answer of a space whose label is a name (label or alias, case and diacritics "
    "aside) of one of the instance's golds is left out of its golds",
    "distinct_answers": "no two answers of a space share a name (label or alias) or nest one label in "
    "the other",
    "constant_answer": "no single answer is gold for more than 1/A + margin of a relation's instances",
    "templates": "every relation has at least 3 distinct templates",
    "templates_read": "no template doubles a word or an article when filled with an instance as probesmith "
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
) -> dict[str, Any]:
    """The validity report of a relations build, computed from its rows (see the module docstring).

    ``names`` holds the label and aliases of every subject, gold and answer (without it, the
    rows' labels and subject aliases), ``generic`` each relation's generic name tokens.
    """
    from probesmith.builders.names import name_key, name_leak
    from probesmith.builders.text import fill_template, filled_problem, names_nested, template_key

    names = dict(names or {})
    for row in instances:
        names.setdefault(row["sub_id"], [row["sub_label"], *row["sub_aliases"]])
        names.setdefault(row["obj_id"], [row["obj_label"]])
    for row in answers:
        names.setdefault(row["obj_id"], [row["obj_label"]])
    generic = generic or {}

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
        answer_keys = {a: {name_key(n) for n in names[a]} - {""} for a in ids}
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
            gold_keys = {name_key(n) for g in golds for n in names[g]} - {""}
            unmarked = [a for a in ids if a not in row["gold_obj_ids"] and name_key(names[a][0]) in gold_keys]
            if unmarked:
                violations["equal_answers"] += 1
                examples["equal_answers"].append([row["sub_label"], row["obj_label"], names[unmarked[0]][0]])
        violations["unique_subjects"] = len(rows) - len({row["sub_id"] for row in rows})
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
        for row in rows:
            for template in texts[pid]:
                statement = fill_template(template, row["sub_label"], row["obj_label"])
                if filled_problem(statement, row["sub_label"], row["obj_label"]):
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


def rules_table(intro: str, rules: dict[str, str], violations: dict[str, int]) -> list[str]:
    """Card lines: an intro, then one row per rule with what it checks and its violations."""
    lines = [intro, "", "| rule | what | violations |", "|---|---|---|"]
    return lines + [f"| `{r}` | {what} | {violations[r]:,} |" for r, what in rules.items()]


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
        f"not checked: two answers of one space nested in the world but not in the source, as P4552's "
        f"Catskill Mountains in the Appalachian Mountains or P171's Lamiaceae in Lamiales), "
        f"bear one of their names (label or alias) "
        f"or, for occupations, are a direct class of one (Writer for a poet). "
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
