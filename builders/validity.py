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
    """A family's own rules over its items as written (e.g. WordNetQA's one right answer).

    Checks that fill caches may also have a ``release()`` method: the build calls it once the
    report is made, to free them before the tables are written.
    """

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
        "| config | items | "
        + " | ".join(rule_text)
        + " | gold alone longest | gold alone shortest | chance |",
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
    lines += [
        "",
        "*Gold alone longest/shortest*: the share of items, over every split, whose gold is the one longest "
        "(shortest) choice in characters, ties not counted; with ties counted (a tie read as a random pick) "
        "the share is higher.",
    ]
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


def rules_table(intro: str, rules: dict[str, str], violations: dict[str, int]) -> list[str]:
    """Card lines: an intro, then one row per rule with what it checks and its violations."""
    lines = [intro, "", "| rule | what | violations |", "|---|---|---|"]
    return lines + [f"| `{r}` | {what} | {violations[r]:,} |" for r, what in rules.items()]
