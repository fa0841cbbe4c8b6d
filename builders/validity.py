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
from typing import Any

import pyarrow as pa

from probesmith.builders.text import near_duplicate, normalize_choice

VALIDITY_FILE = "validity.json"

RULES = {
    "distinct": "the gold is not a distractor and no two choices read the same",
    "near_duplicate": "no two choices are near-duplicates (token Jaccard >= 0.6)",
    "empty": "no choice is empty",
    "balanced": "gold positions are balanced within each split (counts differ by at most one)",
}


def validity_report(tables: dict[tuple[str, str], pa.Table], dropped: dict[str, int]) -> dict[str, Any]:
    """The report of every config of a multiple-choice build (see the module docstring)."""
    rows_by_config: dict[str, list[dict]] = defaultdict(list)
    for (config, split), table in sorted(tables.items()):
        columns = table.select(
            ["choices", "answer_index", "hops", "distractor_types", "framing", "pos"]
        ).to_pylist()
        rows_by_config[config] += [dict(row, split=split) for row in columns]
    return {
        "rules": RULES,
        "configs": {
            config: _config_report(rows, {r: n for r, n in dropped.items() if r.startswith(f"{config}:")})
            for config, rows in sorted(rows_by_config.items())
        },
    }


def _config_report(rows: list[dict], dropped: dict[str, int]) -> dict[str, Any]:
    violations: Counter = Counter()
    examples: dict[str, list] = defaultdict(list)
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
            rule: {"checked": n, "violations": violations[rule], "examples": examples[rule][:3]}
            for rule in RULES
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
    lines = [
        "Checked on every item of every split (`validity.json` has the details and examples):",
        "",
        "| config | items | " + " | ".join(RULES) + " | gold longest | gold shortest | chance |",
        "|---|---|" + "---|" * (len(RULES) + 3),
    ]
    for config, entry in report["configs"].items():
        rules = " | ".join(f"{entry['rules'][r]['violations']:,} violations" for r in RULES)
        length = entry["length"]
        lines.append(
            f"| `{config}` | {entry['items']:,} | {rules} | {length['gold_is_longest']:.3f} | "
            f"{length['gold_is_shortest']:.3f} | {length['chance']:.3f} |"
        )
    lines += ["", "Rules: " + "; ".join(f"`{k}`: {v}" for k, v in RULES.items()) + "."]
    lines += ["", "Distractor slots by type:", ""]
    for config, entry in report["configs"].items():
        mix = ", ".join(f"{t} {s:.1%}" for t, s in entry["distributions"]["distractor_types"].items())
        lines.append(f"- `{config}`: {mix}")
    return "\n".join(lines)
