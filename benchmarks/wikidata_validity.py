"""Name leaks, equal answers and unusable labels over every instance of a relations or paraphrases build.

Reads the build's tables and, independently of the builder, the slice's names (``entities.tsv.gz``:
label and English aliases) and facts (``facts.tsv.gz``), then prints per build:

* ``leak (gold label)``: instances whose subject (label or any alias) shares a name token of any
  length (``names.name_tokens``: two characters or more, not a number; function words aside) with
  the sampled gold's label (the measure of issue 25);
* ``leak (labels and aliases)``: the same with every alias of the gold too;
* ``leak (rule)``: the build's rule (``names.name_leak``: tokens and stems, labels and aliases of
  both sides, function words and the relation's generic tokens aside), generic tokens taken from
  the build's ``validity.json`` where it lists them, else computed from the slice (the objects of
  the relation with the most subjects);
* ``equal answers``: instances where an answer of the space is *labelled* with a name
  (``names.name_key``: label or alias) of one of the subject's objects in the slice without being
  in ``gold_obj_ids`` ("Writer" for an "author", alias "writer");
* ``equal answers (any alias, both ways)``: the issue's wider measure, an answer that bears any
  name of an object, its aliases too ("Russian Empire", alias "Russia", for a citizen of Russia;
  "California" and "Canada", both aliased "CA"): informative, not a fault;
* ``a source object missing from gold_obj_ids``: instances lacking an object the slice gives the
  subject (and how many of those objects are in the space); ``shares an '&' or initials-run token``;
* paraphrases only: instances whose subject and object have the same name key, kept labels with a
  disambiguator or that are sentences (``paraphrases.label_problem``), and grid rows using them;
  kept aliases that are a surname then initials or the label then a two-capital code (a regex here),
  and kept aliases the current ``paraphrases.alias_problem`` rejects (fourth read: initials only,
  descriptions, lower-cased forms);
* fifth read: subject labels with a disambiguator, team or band subjects named in the plural
  ("Chicago Cubs"), instances with a gold of a class no reader gives (a planet as P19, "Christian" as
  P140), answers repeating a label in their space ("Norfolk" x3), answers shown by a learned body's
  acronym ("RSL"), the largest share of a relation's instances one answer is gold for;
* ``a containing answer (P361) is no gold``: instances where an answer of the space contains a gold
  through the slice's P361, transitively (Eurasia / Europe, fourth read); ``answers of a fictional
  class``: answers whose P31 class is labelled "fictional ..." (Kara-Tur).

Usage::

    python3 benchmarks/wikidata_validity.py /tmp/c/rel_before /tmp/c/rel_after /tmp/c/para_after
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import polars as pl

import probesmith.builders.sources  # noqa: F401  (imports the sources before the families)
from probesmith.builders.families.paraphrases import alias_problem, label_problem
from probesmith.builders.families.relations import TEAM_CLASSES
from probesmith.builders.names import FUNCTION_WORDS, generic_tokens, name_key, name_leak, tokens_of
from probesmith.builders.text import is_plural_band_name

try:  # the fifth read's acronym rule; an older tree lacks it
    from probesmith.builders.names import spelled_out
except ImportError:  # pragma: no cover

    def spelled_out(label, aliases):
        return label


# classes no reader gives as the relation's answer (paraphrases' object_excluded_types of spec v5)
EXCLUDED = {
    "P19": {"Q634", "Q3504248", "Q5107"},
    "P20": {"Q634", "Q3504248", "Q5107"},
    "P140": {"Q4392985", "Q34770", "Q315"},
}

SLICE = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "wikidata_slice"


def read_slice(folder: Path) -> tuple[dict[str, list[str]], dict[str, dict[str, set[str]]]]:
    """(names: entity -> label and aliases, facts: property -> subject -> objects) of the slice."""
    names: dict[str, list[str]] = {}
    with gzip.open(folder / "entities.tsv.gz", "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            qid, label, aliases = line.rstrip("\n").split("\t")
            names[qid] = ([label] if label else []) + json.loads(aliases)
    facts: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    with gzip.open(folder / "facts.tsv.gz", "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            s, p, o = line.split("\t")[:3]
            facts[p][s].add(o)
    return names, facts


def containers(entity: str, facts) -> set[str]:
    """The entity's containers through P361 (part of), transitively, from the slice."""
    if entity in _CONTAINERS:
        return _CONTAINERS[entity]
    found, frontier = set(), [entity]
    while frontier:
        for parent in facts["P361"].get(frontier.pop(), ()):
            if parent not in found:
                found.add(parent)
                frontier.append(parent)
    _CONTAINERS[entity] = found
    return found


_CONTAINERS: dict[str, set[str]] = {}


def fold_label(text: str) -> str:
    return text.casefold()


def table(build: Path, config: str) -> pl.DataFrame:
    """One config of a build, every split."""
    return pl.concat([pl.read_parquet(p) for p in sorted((build / config).glob("*.parquet"))])


def slice_generic(pid: str, names, facts, candidates: int = 150) -> frozenset[str]:
    """A relation's generic tokens computed from the slice: its objects with the most subjects."""
    support = Counter(o for objs in facts[pid].values() for o in objs)
    return generic_tokens(names.get(o, []) for o, _ in support.most_common(candidates))


def measure(build: Path, names, facts) -> dict:
    """The counts of the module docstring over every instance of one build."""
    instances = table(build, "instances")
    answers = table(build, "answer_spaces")
    validity = json.loads((build / "validity.json").read_text())
    listed = {pid: entry.get("generic_tokens") for pid, entry in validity.get("relations", {}).items()}
    listed.update(validity.get("generic_tokens", {}))
    space_of = defaultdict(list)
    for row in answers.iter_rows(named=True):
        space_of[row["relation_id"]].append(row["obj_id"])
    generic = {}
    counts = Counter(
        dict.fromkeys(
            [
                "instances",
                "leak (gold label)",
                "leak (labels and aliases)",
                "leak (rule)",
                "equal answers",
                "equal answers (any alias, both ways)",
                "subject and object identical",
            ],
            0,
        )
    )
    examples = defaultdict(list)
    for row in instances.iter_rows(named=True):
        pid, s, o = row["relation_id"], row["sub_id"], row["obj_id"]
        if pid not in generic:
            found = listed.get(pid)
            generic[pid] = frozenset(found) if found is not None else slice_generic(pid, names, facts)
        sub_names = names.get(s, [row["sub_label"]])
        gold_names = names.get(o, [row["obj_label"]])
        subject_tokens = tokens_of(sub_names) - FUNCTION_WORDS
        counts["instances"] += 1
        if subject_tokens & tokens_of(gold_names[:1]):
            counts["leak (gold label)"] += 1
            if len(examples["leak"]) < 8:
                examples["leak"].append(f"{pid}: {row['sub_label']} -> {row['obj_label']}")
        if subject_tokens & tokens_of(gold_names):
            counts["leak (labels and aliases)"] += 1
        if name_leak(sub_names, gold_names, generic[pid]):
            counts["leak (rule)"] += 1
        objects = facts[pid].get(s, set()) | set(row["gold_obj_ids"])
        keys = {name_key(n) for g in objects for n in names.get(g, [])} - {""}
        unmarked_any = [
            a
            for a in space_of[pid]
            if a not in row["gold_obj_ids"] and {name_key(n) for n in names.get(a, [])} & keys
        ]
        counts["equal answers (any alias, both ways)"] += bool(unmarked_any)
        unmarked = [a for a in unmarked_any if name_key(names.get(a, [""])[0]) in keys]
        if unmarked:
            counts["equal answers"] += 1
            if len(examples["equal answers"]) < 8:
                examples["equal answers"].append(
                    f"{pid}: {row['sub_label']} -> {row['obj_label']}, also {names[unmarked[0]][0]}"
                )
        if name_key(row["sub_label"]) == name_key(row["obj_label"]):
            counts["subject and object identical"] += 1
        if facts[pid].get(s, set()) - set(row["gold_obj_ids"]):
            counts["a source object missing from gold_obj_ids"] += 1
            outside = sorted(facts[pid][s] - set(row["gold_obj_ids"]))
            counts["  ... of them with that object in the space"] += bool(set(outside) & set(space_of[pid]))
            if len(examples["missing object"]) < 4:
                examples["missing object"].append(f"{pid}: {row['sub_label']} lacks {names.get(outside[0])}")
        shared = (tokens_of(sub_names) & tokens_of(gold_names)) - FUNCTION_WORDS
        if any("&" in t or "." in t for t in shared):
            counts["shares an '&' or initials-run token with its gold"] += 1
        # fourth read: an answer containing a gold (P361, transitively: Eurasia holds Europe) left out
        implied = set().union(*(containers(g, facts) for g in row["gold_obj_ids"])) & set(space_of[pid])
        if implied - set(row["gold_obj_ids"]):
            counts["a containing answer (P361) is no gold"] += 1
            if len(examples["containing answer"]) < 4:
                examples["containing answer"].append(
                    f"{pid}: {row['sub_label']} -> {row['obj_label']}, also {names[sorted(implied)[0]][0]}"
                )
    # fifth read: disambiguated subjects, plural-named teams, labels repeated in a space, learned-body
    # acronyms, answers of a class no reader gives (a planet as a place of birth, 'Christian' as a religion),
    # the largest share of instances one answer is gold for
    teams = set(TEAM_CLASSES)
    for row in instances.iter_rows(named=True):
        label = row["sub_label"]
        counts["subject label with a disambiguator or a sentence"] += label_problem(label) is not None
        counts["subject a team or band named in the plural"] += bool(
            facts["P31"].get(row["sub_id"], set()) & teams
            and is_plural_band_name(label)
            and not label.startswith("The ")
        )
        excluded = EXCLUDED.get(row["relation_id"], set())
        counts["instance with a gold of an excluded class"] += any(
            facts["P31"].get(g, set()) & excluded for g in row["gold_obj_ids"]
        )
    for _, group in answers.group_by("relation_id"):
        keys = Counter(name_key(label) or label for label in group["obj_label"])
        counts["answers repeating a label in their space"] += sum(n - 1 for n in keys.values())
        counts["answers shown by a learned body's acronym"] += sum(
            spelled_out(r["obj_label"], names.get(r["obj_id"], [])[1:]) != r["obj_label"]
            for r in group.iter_rows(named=True)
        )
    shares = {}
    for (pid,), group in instances.group_by("relation_id"):
        gold_counts = Counter(g for golds in group["gold_obj_ids"] for g in set(golds))
        top, n = max(gold_counts.items(), key=lambda kv: (kv[1], kv[0]))
        shares[pid] = (names.get(top, [top])[0], round(n / group.height, 3))
    worst = sorted(shares.items(), key=lambda kv: -kv[1][1])[:5]
    examples["largest constant-answer shares"] = [f"{pid} {a} {share:.1%}" for pid, (a, share) in worst]
    counts["P19 largest constant-answer share (per mille)"] = round(1000 * shares.get("P19", ("", 0))[1])
    fictional = {
        a
        for pid, space in space_of.items()
        for a in space
        if any(fold_label(names.get(c, [""])[0]).startswith("fictional") for c in facts["P31"].get(a, ()))
    }
    counts["answers of a fictional class"] = len(fictional)
    examples["fictional"] = sorted(names.get(a, [a])[0] for a in fictional)[:6]
    if (build / "aliases").is_dir():
        labels = table(build, "aliases").filter(pl.col("source") == "label")
        bad = {r["entity_id"]: r["alias"] for r in labels.iter_rows(named=True) if label_problem(r["alias"])}
        counts["kept labels with a disambiguator or a sentence"] = len(bad)
        # the third read's alias forms, by a regex of this script: surname + initials, place + code
        label_of = dict(bad) | {r["entity_id"]: r["alias"] for r in labels.iter_rows(named=True)}
        kept = table(build, "aliases").filter(pl.col("source") == "alias")
        index_forms = set()
        for r in kept.iter_rows(named=True):
            label, alias = label_of.get(r["entity_id"], ""), r["alias"]
            words = label.split()
            person = len(words) >= 2 and re.fullmatch(
                rf"{re.escape(words[-1])} {re.escape(words[0][:1])}[A-Z]?\.?", alias
            )
            place = re.fullmatch(
                rf"{re.escape(label.split(',')[0])} (?!FC|TV|SA|SE|AB|II|IV|VI)[A-Z]{{2}}", alias
            )
            if person or place:
                index_forms.add(alias)
        counts["kept aliases: surname + initials or place + code"] = len(index_forms)
        counts["kept aliases"] = kept.height
        rejected = [
            (r["alias"], r["entity_id"])
            for r in kept.iter_rows(named=True)
            if alias_problem(r["alias"], label_of.get(r["entity_id"], ""))
        ]
        counts["kept aliases the current alias_problem rejects"] = len(rejected)
        examples["rejected aliases"] = [a for a, _ in rejected[:8]]
        examples["index forms"] = sorted(index_forms)[:8]
        examples["labels"] = list(bad.values())[:8]
        grid = table(build, "grid").select("verbalization")
        counts["grid rows"] = len(grid)
        counts["grid rows verbalized by such a label"] = sum(
            label_problem(v) is not None for v in grid["verbalization"]
        )
    return {"counts": dict(counts), "examples": dict(examples)}


def main() -> None:
    """Print the counts of every build given."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("builds", nargs="+", type=Path, help="relations or paraphrases build folders")
    parser.add_argument("--slice", type=Path, default=SLICE, help="the Wikidata slice the builds read")
    args = parser.parse_args()
    names, facts = read_slice(args.slice)
    for build in args.builds:
        report = measure(build, names, facts)
        print(f"== {build}")
        for name, n in report["counts"].items():
            print(f"  {name:50s} {n:>9,}")
        for name, rows in report["examples"].items():
            for text in rows:
                print(f"  e.g. [{name}] {text}")


if __name__ == "__main__":
    main()
