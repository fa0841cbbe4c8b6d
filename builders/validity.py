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

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
from scipy import sparse

from probesmith.builders.text import NEAR_DUPLICATE_JACCARD, normalize_choice, word_tokens

VALIDITY_FILE = "validity.json"
#: ``text.word_tokens``' expression (a test checks the two agree on every choice of real builds)
WORD_TOKEN = r"[a-z0-9]+(?:'[a-z]+)?"
#: what Python's ``str.strip`` takes off an ASCII text
ASCII_WHITESPACE = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"

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

    The shared rules are columnar: the choices of a config are flattened once, each distinct
    choice text is read once (its normalised key, its word tokens, its length), and the rules
    are numpy operations over the flat arrays (token Jaccard as a sparse product).
    """
    by_config: dict[str, list[tuple[str, pa.Table]]] = defaultdict(list)
    columns = ["question", "choices", "answer_index", "hops", "distractor_types", "framing", "pos"]
    if item_checks:
        columns += [c for c in item_checks.columns if c not in columns]
    for (config, split), table in sorted(tables.items()):
        by_config[config].append((split, table.select(columns)))
    rules = {**RULES, **(item_checks.rules if item_checks else {})}
    configs = {}
    for config, parts in sorted(by_config.items()):
        table = pa.concat_tables([t for _, t in parts]).combine_chunks()
        splits = np.concatenate([np.full(t.num_rows, i, dtype=np.int32) for i, (_, t) in enumerate(parts)])
        found = None
        if item_checks:
            rows = [
                dict(row, split=parts[i][0])
                for row, i in zip(
                    table.select(list(item_checks.columns)).to_pylist(), splits.tolist(), strict=True
                )
            ]
            found = item_checks.check(rows)
        configs[config] = _config_report(
            table,
            splits,
            [split for split, _ in parts],
            {r: n for r, n in dropped.items() if r.startswith(f"{config}:")},
            rules,
            found,
        )
        if (mixes or {}).get(config):
            configs[config]["mix"] = _mix_report(table, mixes[config], tolerance)  # type: ignore[index]
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


def _value_counts(values: pa.Array) -> Counter:
    """How often each value (None for a missing one) occurs in an Arrow array."""
    counts = pc.value_counts(values)
    return Counter(
        dict(zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist(), strict=True))
    )


def _mix_report(table: pa.Table, mix: dict[str, int], tolerance: float) -> dict[str, Any]:
    """Distractor slots asked for (the mix's shares of the slots delivered) and delivered per type."""
    delivered: Counter = Counter()
    for tag, n in _value_counts(pc.list_flatten(table.column("distractor_types"))).items():
        delivered[_slot_type(tag)] += n
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


class _FlatChoices:
    """The choices of a config's items as flat arrays: one entry per (item, position).

    ``text_id`` numbers the distinct choice texts, each read once: its normalised key
    (``text.normalize_choice``), its word tokens (``text.word_tokens``) and its length. Texts of
    ASCII characters only are read as polars expressions of the same regular expressions (ASCII
    is where Python's and polars' regular expressions and case mappings agree); the others by the
    Python functions themselves, so the rules below agree with a per-row reading text for text.
    """

    def __init__(self, choices: pa.ListArray):
        self.width = pc.list_value_length(choices).to_numpy(zero_copy_only=False).astype(np.int64)
        self.start = np.concatenate([[0], np.cumsum(self.width)[:-1]]).astype(np.int64)
        self.item = np.repeat(np.arange(len(self.width)), self.width)
        encoded = pc.dictionary_encode(pc.list_flatten(choices))
        self.text_id = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        self.dictionary = encoded.dictionary
        texts = pl.Series("text", self.dictionary, dtype=pl.String)
        ascii_only = texts.str.contains(r"^[\x00-\x7f]*$").to_numpy()
        lower = texts.str.to_lowercase()
        keys = lower.str.replace_all(r"[^A-Za-z0-9_]+", " ").str.strip_chars(" ")
        tokens = lower.str.extract_all(WORD_TOKEN).list.unique().fill_null([])
        keys, tokens = keys.to_list(), tokens.to_list()
        blank = (texts.str.strip_chars(ASCII_WHITESPACE).str.len_chars() == 0).to_numpy().copy()
        for i in np.flatnonzero(~ascii_only).tolist():
            text = self.dictionary[i].as_py()
            keys[i], tokens[i], blank[i] = normalize_choice(text), sorted(word_tokens(text)), not text.strip()
        key_codes = pc.dictionary_encode(pa.array(keys, pa.string())).indices
        self.key_id = key_codes.to_numpy(zero_copy_only=False).astype(np.int64)
        self.blank = blank
        self.chars = texts.str.len_chars().to_numpy().astype(np.int64)[self.text_id]
        token_lists = pa.array(tokens, pa.list_(pa.string()))
        self.token_count = pc.list_value_length(token_lists).to_numpy(zero_copy_only=False).astype(np.int64)
        vocabulary = pc.dictionary_encode(pc.list_flatten(token_lists))
        self.vocabulary = vocabulary.dictionary
        self.tokens = sparse.csr_matrix(
            (
                np.ones(int(self.token_count.sum()), np.int64),
                vocabulary.indices.to_numpy(zero_copy_only=False).astype(np.int64),
                np.concatenate([[0], np.cumsum(self.token_count)]),
            ),
            shape=(len(keys), max(1, len(vocabulary.dictionary))),
        )

    def rows(self, width: int) -> tuple[np.ndarray, np.ndarray]:
        """The items of ``width`` choices, and their text ids as a (items, width) matrix."""
        items = np.flatnonzero(self.width == width)
        return items, self.text_id[self.start[items][:, None] + np.arange(width)]

    def repeated_key(self) -> np.ndarray:
        """Per item, whether two of its choices have the same normalised key."""
        repeated = np.zeros(len(self.width), bool)
        for width in np.unique(self.width).tolist():
            if width > 1:
                items, ids = self.rows(width)
                keys = np.sort(self.key_id[ids], axis=1)
                repeated[items] = (keys[:, 1:] == keys[:, :-1]).any(axis=1)
        return repeated

    def per_item(self, flags: np.ndarray) -> np.ndarray:
        """Whether any choice of each item has the flag (one flag per flat choice)."""
        return np.bincount(self.item, weights=flags, minlength=len(self.width)) > 0

    def near_duplicate_pair(self) -> np.ndarray:
        """Per item, the first near-duplicate pair of positions, as ``p * width + q``; -1 for none.

        Pairs are taken in ``itertools.combinations`` order; near-duplicates as
        ``text.near_duplicate`` says: the same normalised key, or token Jaccard at the threshold.
        """
        first = np.full(len(self.width), -1, np.int64)
        for width in np.unique(self.width).tolist():
            if width < 2:
                continue
            items, ids = self.rows(width)
            for p, q in itertools.combinations(range(width), 2):
                a, b = ids[:, p], ids[:, q]
                shared = np.asarray(self.tokens[a].multiply(self.tokens[b]).sum(axis=1)).ravel()
                union = self.token_count[a] + self.token_count[b] - shared
                jaccard = np.divide(shared, union, out=np.ones(len(a)), where=union > 0)
                near = (self.key_id[a] == self.key_id[b]) | (jaccard >= NEAR_DUPLICATE_JACCARD)
                unset = near & (first[items] < 0)
                first[items[unset]] = p * width + q
        return first


def _config_report(
    table: pa.Table,
    splits: np.ndarray,
    split_names: list[str],
    dropped: dict[str, int],
    rules: dict[str, str] = RULES,
    found: list[list[tuple[str, str]]] | None = None,
) -> dict[str, Any]:
    """One config's report: the shared rules over flat arrays, the family's ``found`` per row."""
    violations: Counter = Counter()
    details: dict[str, Counter] = defaultdict(Counter)
    examples: dict[str, list] = defaultdict(list)

    def row_choices(i: int) -> list[str]:
        return table.column("choices")[int(i)].as_py()

    for i, broken in enumerate(found or []):
        for rule in {rule for rule, _ in broken}:
            violations[rule] += 1
            if len(examples[rule]) < 3:
                examples[rule].append(
                    {
                        "question": table.column("question")[i].as_py(),
                        "choices": row_choices(i),
                        "found": broken,
                    }
                )
        for rule, detail in broken:
            details[rule][detail] += 1
    flat = _FlatChoices(table.column("choices").combine_chunks())
    n = table.num_rows
    answer = table.column("answer_index").to_numpy(zero_copy_only=False).astype(np.int64)
    repeated = flat.repeated_key()
    violations["distinct"] += int(repeated.sum())
    examples["distinct"] += [row_choices(i) for i in np.flatnonzero(repeated)[:3]]
    near = flat.near_duplicate_pair()
    violations["near_duplicate"] += int((near >= 0).sum())
    for i in np.flatnonzero(near >= 0)[:3]:
        choices = row_choices(i)
        examples["near_duplicate"].append(
            (choices[near[i] // flat.width[i]], choices[near[i] % flat.width[i]])
        )
    violations["empty"] += int(flat.per_item(flat.blank[flat.text_id]).sum())
    for index, split in enumerate(split_names):
        in_split = splits == index
        if not in_split.any():
            continue
        width = int(flat.width[in_split].max())
        full = np.bincount(answer[in_split], minlength=width)[:width].tolist()
        if max(full) - min(full) > 1:
            violations["balanced"] += 1
            examples["balanced"].append({split: full})
    gold = flat.chars[flat.start + answer]
    longest = np.maximum.reduceat(flat.chars, flat.start) if n else np.zeros(0, np.int64)
    shortest = np.minimum.reduceat(flat.chars, flat.start) if n else np.zeros(0, np.int64)
    ties_long = np.bincount(flat.item, weights=flat.chars == longest[flat.item], minlength=n)
    ties_short = np.bincount(flat.item, weights=flat.chars == shortest[flat.item], minlength=n)
    distractors = len(flat.chars) - n
    split_counts = np.bincount(splits, minlength=len(split_names))
    slots = _value_counts(pc.list_flatten(table.column("distractor_types")))
    total_slots = sum(slots.values()) or 1
    return {
        "items": n,
        "items_per_split": {
            split: int(split_counts[i]) for i, split in enumerate(split_names) if split_counts[i]
        },
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
            "gold_chars_mean": round(int(gold.sum()) / n, 2),
            "distractor_chars_mean": round(int(flat.chars.sum() - gold.sum()) / max(1, distractors), 2),
            "gold_is_longest": round(int(((gold == longest) & (ties_long == 1)).sum()) / n, 4),
            "gold_is_shortest": round(int(((gold == shortest) & (ties_short == 1)).sum()) / n, 4),
            "chance": round(float(np.sum(1 / flat.width)) / n, 4),
        },
        "distributions": {
            "hops": _shares(_value_counts(table.column("hops").combine_chunks()), n),
            "distractor_types": {t: round(c / total_slots, 4) for t, c in sorted(slots.items())},
            "framings": _shares(_value_counts(table.column("framing").combine_chunks()), n),
            "pos": _shares(_value_counts(table.column("pos").combine_chunks()), n),
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
