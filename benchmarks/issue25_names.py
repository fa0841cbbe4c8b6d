"""Issue 25, the tenth and eleventh reads: "the" before names, unusable verbalizations, unplaced answers, cues.

    git show REV:builders/text.py > /tmp/text_before.py      # text.py before the change
    python benchmarks/issue25_names.py labels BUILDS --text-module /tmp/text_before.py
    python benchmarks/issue25_names.py fills BUILDS --text-module /tmp/text_before.py [--sample 40]
    python benchmarks/issue25_names.py aliases BUILDS
    python benchmarks/issue25_names.py unplaced BUILDS
    python benchmarks/issue25_names.py articles BUILDS

``BUILDS`` holds default ``relations``, ``paraphrases`` and ``rules`` builds (``probesmith build X --out
BUILDS/X``). ``labels``: every label the builds fill into templates (subjects and answers of relations and
paraphrases, every kept verbalization, rules' answers), with ``takes_definite_article`` before and after;
``fills``: the fills that change (relations: every instance x template x answer; paraphrases: every grid
statement, and the answer side of every row x answer), a seeded sample of them, and Link Grammar's verdicts
(``builders/textcheck.py``) on every distinct changed fill before and after; ``aliases``: kept verbalizations
that ``label_problem`` / ``alias_problem`` now fail, by reason; ``unplaced``: per place relation whose space
holds a country, the answers the slice neither types as a country nor places (P131/P17/P30/P361);
``articles`` (the eleventh read: gold "detained at the Sighet prison" beside "at Parwan Detention Facility"):
over every relations instance x template and every paraphrases instance x pattern (its label), how often the
gold's fill and a distractor's differ in the article before the answer, and how a guesser that reads only
that article scores: it picks at random among the answers with (or without) "the", against chance 1/A.
"""

import argparse
import gzip
import importlib.util
import random
import sys
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SLICE = Path(__file__).resolve().parents[2] / "shared" / "data" / "wikidata_slice" / "facts.tsv.gz"


def _table(builds: Path, name: str) -> pl.DataFrame:
    return pl.read_parquet(str(builds / name / "*.parquet"))


def _text_module(path: str):
    spec = importlib.util.spec_from_file_location("probesmith.builders.text_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def labels(builds: Path, old) -> None:
    from probesmith.builders import text as new

    uses = Counter()
    uses.update(_table(builds, "relations/instances")["sub_label"].to_list())
    uses.update(_table(builds, "relations/answer_spaces")["obj_label"].to_list())
    uses.update(_table(builds, "paraphrases/instances")["sub_label"].to_list())
    uses.update(_table(builds, "paraphrases/answer_spaces")["obj_label"].to_list())
    uses.update(_table(builds, "paraphrases/aliases")["alias"].to_list())
    uses.update(_table(builds, "rules/aliases")["alias"].to_list())
    uses.update(_table(builds, "rules/knowledge_items")["answer"].to_list())
    changed = [(n, new.takes_definite_article(n)) for n in sorted(uses)]
    changed = [(n, b) for n, b in changed if old.takes_definite_article(n) != b]
    print(
        f"distinct labels {len(uses):,}; 'the' before {sum(map(old.takes_definite_article, uses)):,}, "
        f"after {sum(map(new.takes_definite_article, uses)):,}; gain {sum(b for _, b in changed)}, "
        f"lose {sum(not b for _, b in changed)}"
    )
    for name, gains in sorted(changed, key=lambda c: -uses[c[0]]):
        print(f"  {'+' if gains else '-'}the {uses[name]:>3} {name}")


def fills(builds: Path, old, sample: int) -> None:
    from probesmith.builders import text as new
    from probesmith.builders.textcheck import grammar_checker

    examples = []
    ins, tp = _table(builds, "relations/instances"), _table(builds, "relations/templates")
    forms = {r: g["template"].to_list() for (r,), g in tp.group_by("relation_id")}
    space = defaultdict(list)
    for r, o in _table(builds, "relations/answer_spaces").select("relation_id", "obj_label").rows():
        space[r].append(o)
    total = changed = 0
    for r, s in ins.select("relation_id", "sub_label").rows():
        for f in forms[r]:
            obj_changed = [
                a for a in space[r] if old.fill_template(f, None, a) != new.fill_template(f, None, a)
            ]
            sub_changed = old.fill_template(f, s, None) != new.fill_template(f, s, None)
            total += len(space[r])
            n = len(space[r]) if sub_changed else len(obj_changed)
            changed += n
            if n:
                a = obj_changed[0] if obj_changed and not sub_changed else space[r][0]
                examples.append(("relations", old.fill_template(f, s, a), new.fill_template(f, s, a)))
    print(f"relations: fills {total:,}, changed {changed:,}")
    grid, patterns = _table(builds, "paraphrases/grid"), _table(builds, "paraphrases/patterns")
    template = dict(patterns.select("pattern_id", "template").rows())
    answers = defaultdict(list)
    for r, o in _table(builds, "paraphrases/answer_spaces").select("relation_id", "obj_label").rows():
        answers[r].append(o)
    rows = grid.group_by("relation_id", "pattern_id", "verbalization").len().rows()
    answer_side = {}
    statements = row_answers = answers_changed = 0
    for r, p, v, n in rows:
        f = template[p]
        if (r, p) not in answer_side:
            answer_side[r, p] = sum(
                old.fill_template(f, None, a) != new.fill_template(f, None, a) for a in answers[r]
            )
        row_answers += n * len(answers[r])
        answers_changed += n * answer_side[r, p]
        if old.fill_template(f, v) != new.fill_template(f, v):
            statements += n
            examples.append(("paraphrases", old.fill_template(f, v), new.fill_template(f, v)))
    print(
        f"paraphrases: grid rows {grid.height:,}, statements changed {statements:,}; "
        f"row x answer fills {row_answers:,}, answer side changed {answers_changed:,}"
    )
    for family, before, after in random.Random(0).sample(examples, min(sample, len(examples))):
        print(f"  [{family}] {before}\n      -> {after}")
    checker = grammar_checker()
    distinct = sorted({(b, a) for _, b, a in examples})
    print(
        f"distinct changed fills {len(distinct):,}: Link Grammar complete linkage before "
        f"{sum(checker.parse(b).ok for b, _ in distinct):,}, after {sum(checker.parse(a).ok for _, a in distinct):,}"
    )


def aliases(builds: Path) -> None:
    from probesmith.builders.families.paraphrases import alias_problem
    from probesmith.builders.names import label_problem

    for family in ("paraphrases", "rules"):
        kept = _table(builds, f"{family}/aliases")
        label_of = dict(kept.filter(pl.col("source") == "label").select("entity_id", "alias").rows())
        reasons, examples = Counter(), defaultdict(list)
        for e, alias, source in kept.select("entity_id", "alias", "source").rows():
            why = label_problem(alias) if source == "label" else alias_problem(alias, label_of.get(e, ""))
            if why:
                reasons[source, why] += 1
                examples[source, why].append(f"{alias!r} ({label_of.get(e)!r})")
        print(f"{family}: kept verbalizations {kept.height:,}, failing now {sum(reasons.values()):,}")
        for key, n in reasons.most_common():
            print(f"  {n:>4} {key[0]}: {key[1]}  e.g. {', '.join(examples[key][:4])}")


def unplaced(builds: Path) -> None:
    from probesmith.builders.families.relations import (
        COUNTRY_CLASSES,
        GEOGRAPHIC_CONTAINMENT,
        PLACE_RELATIONS,
    )

    facts = defaultdict(lambda: defaultdict(set))
    with gzip.open(SLICE, "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            s, p, o = line.split("\t")[:3]
            facts[p][s].add(o)
    for family in ("relations", "paraphrases"):
        spaces, instances = _table(builds, f"{family}/answer_spaces"), _table(builds, f"{family}/instances")
        total = 0
        for (r,), g in sorted(spaces.group_by("relation_id"), key=lambda kv: kv[0]):
            ids = g["obj_id"].to_list()
            countries = {o for o in ids if facts["P31"].get(o, set()) & COUNTRY_CLASSES}
            if r not in PLACE_RELATIONS or not countries:
                continue
            bad = [
                o
                for o in ids
                if o not in countries and not any(facts[p].get(o) for p in GEOGRAPHIC_CONTAINMENT)
            ]
            n = instances.filter((pl.col("relation_id") == r) & pl.col("obj_id").is_in(bad)).height
            total += n
            if bad:
                print(
                    f"  {family} {r}: {len(bad)} of {len(ids)} answers unplaced beside {len(countries)} countries, "
                    f"{n} instances"
                )
        print(
            f"{family}: instances whose gold is unplaced beside a country of the space: {total:,} of {instances.height:,}"
        )


def _article(text: str, answer: str) -> str:
    """The article just before the answer in a filled sentence: "the", "a" (a or an) or "" (none)."""
    at = text.find(answer)
    before = text[:at].split()[-1].lower() if at > 0 and text[:at].split() else ""
    return {"the": "the", "a": "a", "an": "a"}.get(before, "")


def articles(builds: Path) -> None:
    from probesmith.builders.text import fill_template

    @cache
    def state_of(template: str, answer: str) -> str:
        return _article(fill_template(template, None, answer), answer)

    for family, forms_table, form_column in (
        ("relations", "templates", "template"),
        ("paraphrases", "patterns", "template"),
    ):
        instances, spaces = _table(builds, f"{family}/instances"), _table(builds, f"{family}/answer_spaces")
        forms = defaultdict(list)
        for r, t in _table(builds, f"{family}/{forms_table}").select("relation_id", form_column).rows():
            forms[r].append(t)
        space = defaultdict(list)
        for r, o, label in spaces.select("relation_id", "obj_id", "obj_label").rows():
            space[r].append((o, label))
        pairs = differ = 0
        scored = Counter()  # guesser -> summed expected accuracy
        chance = 0.0
        asked = 0
        golds_column = "gold_obj_ids" if "gold_obj_ids" in instances.columns else "obj_id"
        per_relation = defaultdict(lambda: [0, 0])
        rows = list(instances.iter_rows(named=True))
        for row in rows:
            r = row["relation_id"]
            golds = set(row[golds_column]) if golds_column == "gold_obj_ids" else {row["obj_id"]}
            for template in forms[r]:
                # the article before an answer depends on the template and the answer, not on the subject
                states = {o: state_of(template, a) for o, a in space[r]}
                gold_states = {states[o] for o in golds if o in states}
                for o, state in states.items():
                    if o not in golds:
                        pairs += 1
                        per_relation[r][0] += 1
                        if state not in gold_states:
                            differ += 1
                            per_relation[r][1] += 1
                asked += 1
                chance += len(golds & states.keys()) / len(states)
                for wanted in ("the", ""):
                    pick = [
                        o for o, state in states.items() if (state == "the") == (wanted == "the")
                    ] or list(states)
                    scored[wanted or "no the"] += len(golds & set(pick)) / len(pick)
        print(
            f"{family}: gold/distractor fill pairs {pairs:,}, differing in the article before the answer "
            f"{differ:,} ({differ / max(pairs, 1):.1%}); over {asked:,} instance x form: chance {chance / asked:.4f}, "
            + ", ".join(f"pick among answers read with {k!r} {v / asked:.4f}" for k, v in scored.items())
        )
        worst = sorted(per_relation.items(), key=lambda kv: -kv[1][1] / max(kv[1][0], 1))[:5]
        print("  most differing: " + ", ".join(f"{r} {d / max(n, 1):.0%}" for r, (n, d) in worst))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["labels", "fills", "aliases", "unplaced", "articles"])
    parser.add_argument("builds", type=Path)
    parser.add_argument("--text-module", help="an earlier builders/text.py (labels, fills)")
    parser.add_argument("--sample", type=int, default=40)
    args = parser.parse_args()
    if args.what in ("labels", "fills") and not args.text_module:
        parser.error(f"{args.what} needs --text-module (git show REV:builders/text.py > FILE)")
    if args.what == "labels":
        labels(args.builds, _text_module(args.text_module))
    elif args.what == "fills":
        fills(args.builds, _text_module(args.text_module), args.sample)
    elif args.what == "aliases":
        aliases(args.builds)
    elif args.what == "articles":
        articles(args.builds)
    else:
        unplaced(args.builds)


if __name__ == "__main__":
    main()
