"""GCIDE residue and defensible distractors in a DictionaryQA build and in the 2020 release.

    python benchmarks/dictionaryqa_validity.py BUILD_DIR [--release FILE.jsonl.gz] [--examples N]

Residue: every choice (gold and distractors) of every item is read by
``probesmith.builders.sources.gcide.definition_residue``, a detector written apart from the cleaner;
the script prints hits per kind and a few examples. Defensible distractors: for a build, every
``other_sense`` distractor is checked against the gold with the builder's own rule
(``probesmith.builders.families.dictionaryqa.defensible_reason``), which must find none; the release
(whose choices carry no sense keys we share) is matched to GCIDE senses by definition text and read
with the same rule. Answer given away: the share of items whose question shares a stem with the gold
that it shares with no distractor (``probesmith.builders.morphology.StemAnalyser.gives_away``, the
stems in 10% of a set's questions, its template's, aside), per split of the build and for the release.
Choice-only cues (``cue_report``): "--" notes on golds vs distractors, length, first words.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter, defaultdict
from pathlib import Path


def build_items(folder: Path) -> list[dict]:
    from probesmith.schemas.parquet import read_parquet

    rows = []
    for path in sorted(folder.glob("*/*.parquet")):
        rows += [dict(r, split=path.name.split("-")[0]) for r in read_parquet(path).to_pylist()]
    return rows


def release_items(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def residue_report(name: str, choice_lists: list[list[str]], examples: int) -> None:
    from probesmith.builders.sources.gcide import definition_residue

    kinds: Counter = Counter()
    items_hit = 0
    shown: dict[str, list[str]] = defaultdict(list)
    choices = 0
    for item_choices in choice_lists:
        hit = False
        for text in item_choices:
            choices += 1
            kind = definition_residue(text)
            if kind:
                hit = True
                kinds[kind] += 1
                if len(shown[kind]) < examples:
                    shown[kind].append(text[:140])
        items_hit += hit
    print(
        f"\n{name}: {sum(kinds.values())} of {choices} choices with GCIDE residue, in {items_hit} of "
        f"{len(choice_lists)} items"
    )
    for kind, n in kinds.most_common():
        print(f"  {n:6d}  {kind}")
        for text in shown[kind]:
            print(f"            {text}")


def question_example(question: str) -> str:
    """The usage example a question shows: its longest quoted text (the other is the word)."""
    quoted = re.findall(r'"([^"]*)"', question)
    return max(quoted, key=len) if quoted else question


def card_claims_report(name: str, rows: list[dict], examples: int) -> dict[str, int]:
    """The card's claims counted over every row: texts in two splits, residue in the questions'
    examples, choices that mention the word (hyphen/apostrophe forms too), the word's Porter stem
    shared with the gold and no distractor, random distractors that are no gold of the item's split
    and part of speech. Returns the violation counts."""
    from probesmith.builders.families.dictionaryqa import mentions_the_word, word_gives_away
    from probesmith.builders.sources.gcide import example_residue

    splits_of: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for r in rows:
        gold = r["answer_index"]
        splits_of["gold definition"][_normal(r["choices"][gold])].add(r["split"])
        splits_of["usage example"][_normal(question_example(r["question"]))].add(r["split"])
        splits_of["gold concept"][r["concept"]].add(r["split"])
        for i, (text, key) in enumerate(zip(r["choices"], r["choice_concepts"], strict=True)):
            if i != gold:
                splits_of["distractor definition"][_normal(text)].add(r["split"])
                splits_of["distractor concept"][key].add(r["split"])
    counts: dict[str, int] = {}
    for kind in ("gold definition", "usage example", "gold concept", "distractor definition"):
        counts[f"{kind}s in two splits"] = sum(len(s) > 1 for s in splits_of[kind].values())
    every_text = defaultdict(set)
    for kind in ("gold definition", "distractor definition"):
        for text, splits in splits_of[kind].items():
            every_text[text] |= splits
    counts["choice texts (gold or distractor) in two splits"] = sum(len(s) > 1 for s in every_text.values())
    residue = [(r["id"], question_example(r["question"])) for r in rows]
    residue = [(i, e, k) for i, e in residue if (k := example_residue(e))]
    counts["questions whose example has residue"] = len(residue)
    mention = [
        (r["id"], c) for r in rows for c in r["choices"] if mentions_the_word(c, r["concept"].split("#")[0])
    ]
    counts["choices that mention the word (hyphen/apostrophe forms too)"] = len(mention)
    porter = [
        (r["id"], sorted(g))
        for r in rows
        if (
            g := word_gives_away(
                r["concept"].split("#")[0],
                r["choices"][r["answer_index"]],
                [c for i, c in enumerate(r["choices"]) if i != r["answer_index"]],
            )
        )
    ]
    counts["items: the word's Porter stem in the gold and no distractor"] = len(porter)
    golds_of = defaultdict(set)  # (split, part of speech) -> gold concepts; a build's rows only
    typed = [r for r in rows if "distractor_types" in r and "pos" in r]
    for r in typed:
        golds_of[(r["split"], r["pos"])].add(r["concept"])
    not_gold = [
        (r["id"], key)
        for r in typed
        for key, kind in zip(
            [k for i, k in enumerate(r["choice_concepts"]) if i != r["answer_index"]],
            r["distractor_types"],
            strict=True,
        )
        if kind == "random" and key not in golds_of[(r["split"], r["pos"])]
    ]
    if typed:
        counts["random distractors that are no gold of the item's split and part of speech"] = len(not_gold)
    print(f"\n{name}: the card's claims over {len(rows)} rows (violations)")
    for label, n in counts.items():
        print(f"  {n:6d}  {label}")
    for shown in (residue, mention, porter, not_gold):
        for hit in shown[:examples]:
            print(f"            {hit}")
    return counts


def given_away_report(name: str, sets: dict[str, list[tuple[str, list[str], int]]], examples: int) -> None:
    """Per set of (question, choices, answer index): items whose question gives the gold away."""
    from probesmith.builders.morphology import StemAnalyser
    from probesmith.builders.sources.wordnet import WordNetSource

    stems = StemAnalyser(WordNetSource().reader())
    print(f"\n{name}: answer given away (a stem the question shares with the gold and no distractor)")
    for label, items in sets.items():
        template = stems.template_stems([q for q, _, _ in items])
        hits = [(q, c, a, stems.gives_away(q, c, a, template)) for q, c, a in items]
        hits = [h for h in hits if h[3]]
        share = len(hits) / len(items) if items else 0.0
        print(f"  {label:10s} {len(hits):6d} of {len(items):6d} items  {share:6.1%}")
        for q, c, a, given in hits[:examples]:
            print(f"            {q[:90]} -> {c[a][:60]}  {sorted(given)}")


_NOTE = re.compile(r"--")
_APPLICABILITY = re.compile(
    r"--\s*(?:\w+ly\s+|often\s+|also\s+|chiefly\s+|esp\.\s+)*(?:used|said|applied|of|spoken)\b", re.I
)


def _first_word(text: str) -> str:
    words = re.findall(r"[a-z]+", text.lower())
    return words[0] if words else ""


def cue_report(name: str, items: list[tuple[list[str], int]]) -> None:
    """Choice-only cues a reader of the choices alone could use: notes, length, first words.

    Notes: the share of golds and of distractors with a "--" note (any, and the applicability
    notes "-- used of ...", "-- said of ...", "-- of a singer"), and, over items where exactly one
    choice carries one, how often that choice is the gold (chance 1/choices). Length: the gold's
    mean length beside the distractors', and how often it is the longest or shortest. First word:
    the gold rate of each first word learnt on the even items, then the choice whose first word has
    the highest rate picked on the odd ones (held-out accuracy beside chance).
    """
    print(f"\n{name}: choice-only cues ({len(items)} items)")
    chance = sum(1 / len(c) for c, _ in items) / len(items)
    for label, pattern in (("any -- note", _NOTE), ("applicability note", _APPLICABILITY)):
        gold = sum(bool(pattern.search(c[a])) for c, a in items)
        dist = sum(bool(pattern.search(t)) for c, a in items for i, t in enumerate(c) if i != a)
        n_dist = sum(len(c) - 1 for c, _ in items)
        single = [(c, a) for c, a in items if sum(bool(pattern.search(t)) for t in c) == 1]
        single_gold = sum(bool(pattern.search(c[a])) for c, a in single)
        print(
            f"  {label:20s} golds {gold / len(items):6.2%}  distractors {dist / n_dist:6.2%}  "
            f"items with one noted choice {len(single)}: gold {single_gold / max(len(single), 1):.3f} "
            f"(chance {chance:.3f})"
        )
    gold_len = sum(len(c[a]) for c, a in items) / len(items)
    dist_len = sum(len(t) for c, a in items for i, t in enumerate(c) if i != a) / sum(
        len(c) - 1 for c, _ in items
    )
    longest = sum(len(c[a]) == max(map(len, c)) for c, a in items) / len(items)
    shortest = sum(len(c[a]) == min(map(len, c)) for c, a in items) / len(items)
    print(
        f"  length               gold {gold_len:.1f} chars, distractors {dist_len:.1f}; gold longest "
        f"{longest:.3f}, shortest {shortest:.3f} (chance {chance:.3f})"
    )
    seen: Counter = Counter()
    golds: Counter = Counter()
    for c, a in items[::2]:
        for i, t in enumerate(c):
            seen[_first_word(t)] += 1
            golds[_first_word(t)] += i == a
    rate = {w: (golds[w] + 1) / (seen[w] + 5) for w in seen}  # smoothed towards chance
    test = items[1::2]
    right = sum(max(range(len(c)), key=lambda i: rate.get(_first_word(c[i]), 0.2)) == a for c, a in test)
    print(f"  first word           held-out accuracy {right / max(len(test), 1):.3f} (chance {chance:.3f})")


def _normal(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def word_senses(senses: list) -> dict[str, list]:
    """Each word's senses as the builder reads them (usable definitions, near-duplicates aside)."""
    from probesmith.builders.families.dictionaryqa import _distinct_senses
    from probesmith.builders.sources.gcide import definition_problem

    by_word: dict[str, list] = defaultdict(list)
    for sense in senses:
        if not definition_problem(sense.definition):
            by_word[sense.word].append(sense)
    return {word: _distinct_senses(listed, Counter()) for word, listed in by_word.items()}


def defensible_report(
    name: str, pairs: list[tuple[object, list[object]]], senses_of: dict[str, list], unmatched: int = 0
) -> None:
    from probesmith.builders.families.dictionaryqa import defensible_reason

    reasons: Counter = Counter()
    items_hit = 0
    for gold, others in pairs:
        hit = False
        for other in others:
            reason = defensible_reason(gold, other, senses_of.get(gold.word, ()))
            if reason:
                reasons[reason] += 1
                hit = True
        items_hit += hit
    extra = (
        f" ({unmatched} items whose gold or distractors match no GCIDE sense left out)" if unmatched else ""
    )
    print(
        f"\n{name}: {items_hit} of {len(pairs)} items with a distractor that GCIDE's structure "
        f"says a reader would also accept{extra}"
    )
    for reason, n in reasons.most_common():
        print(f"  {n:6d}  {reason}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("build", type=Path)
    parser.add_argument(
        "--release",
        type=Path,
        default=Path(__file__).resolve().parents[2]
        / "shared/data/wordnetqa_2020/dictionary_qa.train.jsonl.gz",
    )
    parser.add_argument("--examples", type=int, default=3)
    args = parser.parse_args()

    from probesmith.builders.sources.gcide import GcideSource

    senses = GcideSource().senses()
    by_key = {s.key: s for s in senses}
    rows = build_items(args.build)
    residue_report(f"build {args.build}", [r["choices"] for r in rows], args.examples)
    pairs = []
    for row in rows:
        gold = by_key[row["concept"]]
        keys = [k for i, k in enumerate(row["choice_concepts"]) if i != row["answer_index"]]
        pairs.append(
            (
                gold,
                [by_key[k] for k, t in zip(keys, row["distractor_types"], strict=True) if t == "other_sense"],
            )
        )
    senses_of = word_senses(senses)
    defensible_report(f"build {args.build}", pairs, senses_of)
    by_split: dict[str, list] = defaultdict(list)
    for row in rows:
        by_split[row["split"]].append((row["question"], row["choices"], row["answer_index"]))
    by_split["all"] = [item for split in sorted(by_split) for item in by_split[split]]
    given_away_report(f"build {args.build}", dict(by_split), args.examples)
    cue_report(f"build {args.build}", [(r["choices"], r["answer_index"]) for r in rows])
    card_claims_report(f"build {args.build}", rows, args.examples)

    if args.release.is_file():
        release = release_items(args.release)
        residue_report(
            f"release {args.release.name}",
            [[c["text"] for c in r["question"]["choices"]] for r in release],
            args.examples,
        )
        by_word_text = {(s.word, _normal(s.definition)): s for s in senses}
        by_text = defaultdict(list)
        for s in senses:
            by_text[_normal(s.definition)].append(s)
        pairs, unmatched = [], 0
        for r in release:
            word = r["notes"]["word"].lower()
            texts = [c["text"] for c in r["question"]["choices"]]
            gold_text = texts[int(r["answerKey"])]
            gold = by_word_text.get((word, _normal(gold_text)))
            others = [
                by_word_text.get((word, _normal(t))) for i, t in enumerate(texts) if i != int(r["answerKey"])
            ]
            if gold is None:
                unmatched += 1
                continue
            pairs.append((gold, [o for o in others if o is not None]))
        defensible_report(
            f"release {args.release.name} (same-word distractors matched to GCIDE)",
            pairs,
            senses_of,
            unmatched,
        )
        cue_report(
            f"release {args.release.name}",
            [([c["text"] for c in r["question"]["choices"]], int(r["answerKey"])) for r in release],
        )
        card_claims_report(
            f"release {args.release.name} (one split; the stem read as the example where it quotes none)",
            [
                {
                    "id": r.get("id", n),
                    "split": "train",
                    "question": r["question"]["stem"],
                    "choices": [c["text"] for c in r["question"]["choices"]],
                    "answer_index": int(r["answerKey"]),
                    "concept": f"{r['notes']['word'].lower()}#",
                    "choice_concepts": [str(i) for i in range(len(r["question"]["choices"]))],
                }
                for n, r in enumerate(release)
            ],
            args.examples,
        )
        given_away_report(
            f"release {args.release.name}",
            {
                "all": [
                    (
                        r["question"]["stem"],
                        [c["text"] for c in r["question"]["choices"]],
                        int(r["answerKey"]),
                    )
                    for r in release
                ]
            },
            args.examples,
        )


if __name__ == "__main__":
    main()
