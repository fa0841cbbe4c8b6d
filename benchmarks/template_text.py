"""Templates, patterns and questions of the default Wikidata specs checked as English text (issue 25).

    python benchmarks/template_text.py [--samples 3] [--json OUT]
    python benchmarks/template_text.py --fills RELATIONS PARAPHRASES RULES [--text-module OLD_TEXT_PY]

Fills every form the relations, paraphrases and rules specs use with typed sample labels from the
Wikidata slice, runs Hunspell (en_US) over the frames' words and Link Grammar over the filled
sentences, and prints per origin: forms, forms with unknown words, forms failing the parse; then
the checker's precision and recall on the hand-labelled sentences of tests/builders/test_textcheck.py.

``--fills`` reads three default builds instead and counts, over **every fill** (relations: each
instance x template with its subject, each template x answer of the space; paraphrases: each
instance x pattern, each pattern x answer; rules: every question and rephrasing as built), the
fills with an article before a mass noun ("a instrumental music"), a plural label before a singular
verb ("Preobrazhenskyi bridges crosses"), and "the" before a label of a person, work or band (the
classes of ``probes/catalogs/name_classes.yaml``, read from the slice's ``facts.tsv.gz``), a
lower-case sentence start, "the The ...", a band's plural name after "does"/"is" (third read), and
the grid rows whose gold after "a" begins with a vowel, filled by plain replacement and by
``fill_template``.
``--text-module`` fills with another ``builders/text.py`` (the one of an earlier commit: ``git show
REV:builders/text.py > /tmp/old_text.py``), so that before and after are filled by their own code
and judged by the same detectors; fills that differ from the current code's are counted.
"""

import argparse
import json
import platform
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _table(folder: Path, name: str) -> list[dict]:
    import pyarrow.parquet as pq

    return [r for f in sorted((folder / name).glob("*.parquet")) for r in pq.read_table(f).to_pylist()]


def _slice_names_and_classes(data: Path) -> tuple[dict[str, str], dict[str, set[str]]]:
    import csv
    import gzip

    labels, classes = {}, defaultdict(set)
    with gzip.open(data / "entities.tsv.gz", "rt", encoding="utf-8") as f:
        for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            labels[row[0]] = row[1]
    with gzip.open(data / "facts.tsv.gz", "rt", encoding="utf-8") as f:
        for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row[1] == "P31":
                classes[row[0]].add(row[2])
    return labels, classes


# forms the fourth independent read found unnatural: a player's label read as a position, a religion's
# name as an adjective, a place's label made an adjective ('a The Hague-born person'), a label that
# "represents", question words that do not fit every answer class
FOURTH_READ_FORMS = re.compile(
    r"in the [\w ]+ position\b|the [A-Z]\w+ religion\b|-born person\b|represented by (?:music|record) label"
    r"|\bWhich (?:organization is|university was)\b"
)
# forms the fifth independent read found: "the" before a "Lake X", a possessive profession, a genre or a
# religion "had", P39 in the present, P641's "was playing", an album "signed to" a label
FIFTH_READ_FORMS = re.compile(
    r"\bthe (?:Lake|Mount|Loch) (?!of\b)|'s profession is an? |has the (?:genre|religion) of "
    r"|\b(?:has|holds) the position of |The sport \S.* was playing is |\bsigned to\?"
)
# a state's body without "the" after a preposition ("operated by Japan Maritime Self-Defense Force")
BARE_STATE_BODY = re.compile(
    r"\b(?:by|of|to|in|at|with|for) (?![Tt]he\b)(?:[A-Z][\w'-]* )+(?:Force|Forces|Corps|Administration|Bureau)\b"
    r"(?! [A-Z])"  # "in Minot Air Force Base" is a base, "Jet Force Gemini" a game
)
NAMED_AFTER_COMMON = re.compile(r"\b(?:named|called) (?:after|for) [a-z]")


def count_fills(relations: Path, paraphrases: Path, rules: Path, text_module: Path | None) -> dict:
    """Fills with each fault over every fill of the three builds (see the module's docstring)."""
    import importlib.util
    import re

    from probesmith.builders import text as current
    from probesmith.builders.families.rules import BAND_CLASSES
    from probesmith.builders.sources.catalog import load_name_classes
    from probesmith.builders.text import is_mass_noun, is_plural_band_name, is_plural_noun, plural_verb

    fill = current.fill_template
    if text_module:
        spec = importlib.util.spec_from_file_location("old_text", text_module)
        module = importlib.util.module_from_spec(spec)
        sys.modules["old_text"] = module  # its dataclasses look their module up there
        spec.loader.exec_module(module)
        fill = module.fill_template
    labels, classes = _slice_names_and_classes(Path("../shared/data/wikidata_slice"))
    name_classes = load_name_classes()
    named = {q for q, cs in classes.items() if cs & name_classes}

    def faults(statement: str, subject: str | None, sub_id: str | None, obj: str | None) -> set[str]:
        found = set()
        for label in (subject, obj):
            if label and is_mass_noun(label) and re.search(rf"\b[Aa]n? {re.escape(label)}\b", statement):
                found.add("article before a mass noun")
        if subject and is_plural_noun(subject):
            after = re.search(
                rf"(?:^|^The\s+|[.!?]\s+){re.escape(subject)}(?:,\s+(?:which|who|that))?\s+(?:[a-z]+ly\s+)?(\w+)",
                statement,
            )
            if (
                after
                and plural_verb(after.group(1))
                and plural_verb(after.group(1)) != after.group(1).lower()
            ):
                found.add("plural label, singular verb")
        plural_band = bool(
            subject and classes.get(sub_id, set()) & BAND_CLASSES and is_plural_band_name(subject)
        )
        if (
            subject
            and sub_id in named
            and not plural_band
            and re.search(rf"\b[Tt]he {re.escape(subject)}", statement)
        ):
            found.add("'the' before a person, work or band")
        if statement.rstrip().endswith("..") and not any(
            label and label.rstrip().endswith("..") for label in (subject, obj)
        ):
            found.add("ends in '..' (fourth read)")
        if FOURTH_READ_FORMS.search(statement):
            found.add("a form the fourth read found (position, religion, -born, music label, question word)")
        if FIFTH_READ_FORMS.search(statement):
            found.add("a form the fifth read found ('the Lake', 'has the genre of', 'holds the position')")
        if BARE_STATE_BODY.search(statement):
            found.add("no 'the' before a state's body (Force, Corps, Administration)")
        for label in (subject, obj):
            at = statement.find(label) if label else -1
            appositive = label and re.search(r", [a-z]", label) and not re.search(r"&| and |\.$", label)
            if appositive and at >= 0 and re.match(r" \w", statement[at + len(label) :]):
                found.add("an appositive label not closed by a comma")
        if obj and NAMED_AFTER_COMMON.search(statement) and obj[:1].islower():
            found.add("'named after' a common noun (P138)")
        if re.search(
            r"\b(?:at|in) (?!the\b)[A-Z][\w'-]*(?: [\w'-]+)* (?:detention|concentration) camp\b", statement
        ):
            found.add("no 'the' before a named camp")
        first = statement.split()[0] if statement.split() else ""
        if first[:1].islower() and not any(c.isupper() for c in first[1:]):
            found.add("lower-case sentence start")
        if re.search(r"\b[Tt]he The\b", statement):
            found.add("'the The ...'")
        if (
            subject
            and classes.get(sub_id, set()) & BAND_CLASSES
            and is_plural_band_name(subject)
            and re.search(rf"\b(?:does|is|was|has) {re.escape(subject)}\b", statement)
        ):
            found.add("plural band name, singular verb")
        return found

    counts: dict = defaultdict(Counter)
    examples: dict = defaultdict(list)

    def judge(build: str, template: str, subject, sub_id, obj, weight: int = 1) -> None:
        statement = fill(template, subject, obj)
        counts[build]["fills"] += weight
        now = current.fill_template(template, subject, obj)
        if statement != now:
            counts[build]["fills that differ from the current code"] += weight
            key = (build, "differs", template, subject or obj)
            if key not in examples and len(examples[(build, "differs")]) < 40:
                examples[key] = []
                examples[(build, "differs")].append(f"{statement}  ->  {now}")
        for fault in faults(statement, subject, sub_id, obj):
            counts[build][fault] += weight
            if len(examples[(build, fault)]) < 5:
                examples[(build, fault)].append(statement)

    for build, folder, table in (
        ("relations", relations, "templates"),
        ("paraphrases", paraphrases, "patterns"),
    ):
        templates = defaultdict(list)
        for t in _table(folder, table):
            templates[t["relation_id"]].append(t["template"])
        answers = defaultdict(list)
        for a in _table(folder, "answer_spaces"):
            answers[a["relation_id"]].append(a["obj_label"])
        instances = Counter()
        for i in _table(folder, "instances"):
            instances[i["relation_id"]] += 1
            for t in templates[i["relation_id"]]:
                judge(build, t, i["sub_label"], i["sub_id"], None)
        for pid, labels_of_space in answers.items():
            for t in templates[pid]:
                for answer in labels_of_space:
                    judge(build + " (answers)", t, None, None, answer, weight=instances[pid])
    # the grid's open [Y] filled with the gold: by plain replacement and by fill_template
    gold = {(i["relation_id"], i["obj_id"]): i["obj_label"] for i in _table(paraphrases, "instances")}
    for row in _table(paraphrases, "grid"):
        label = gold[row["relation_id"], row["obj_id"]]
        counts["paraphrases (grid)"]["rows"] += 1
        for how, text in (
            ("plain [Y] replacement", row["statement"].replace("[Y]", label)),
            ("fill_template", current.fill_template(row["statement"], obj=label)),
        ):
            if re.search(rf"\b[Aa] {re.escape(label)}", text) and label[:1].lower() in "aeio":
                counts["paraphrases (grid)"][f"'a' before a vowel-initial gold, {how}"] += 1
            own = label.endswith("..") or row["verbalization"].rstrip().endswith("..")  # "c'est..."
            if text.rstrip().endswith("..") and not own:
                counts["paraphrases (grid)"][f"ends in '..', {how}"] += 1
    for item in _table(rules, "knowledge_items"):
        subject = labels.get(item["subject"])
        for text in [item["question"], *item["rephrasings"]]:
            counts["rules"]["fills"] += 1
            for fault in faults(
                text.replace("___", item["answer"]), subject, item["subject"], item["answer"]
            ):
                counts["rules"][fault] += 1
                if len(examples[("rules", fault)]) < 5:
                    examples[("rules", fault)].append(text)
    return {
        "counts": {b: dict(c) for b, c in counts.items()},
        "examples": {" / ".join(k): v for k, v in examples.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--fills", type=Path, nargs=3, metavar=("RELATIONS", "PARAPHRASES", "RULES"))
    parser.add_argument("--text-module", type=Path)
    args = parser.parse_args()
    if args.fills:
        started = time.perf_counter()
        found = count_fills(*args.fills, args.text_module)
        print(json.dumps(found, indent=1, ensure_ascii=False))
        print(f"{time.perf_counter() - started:.1f} s")
        return

    import probesmith.builders.sources  # noqa: F401
    from probesmith.builders.families.wikidata_forms import forms_in_use
    from probesmith.builders.registry import load_spec
    from probesmith.builders.sources import open_wikidata
    from probesmith.builders.sources.catalog import load_catalog
    from probesmith.builders.textcheck import check_forms, grammar_checker, relation_samples

    started = time.perf_counter()
    forms = forms_in_use()
    spec = load_spec("relations")
    catalog = load_catalog(spec.catalog)
    with open_wikidata(spec.wikidata) as (client, _):
        samples = relation_samples(client, {f.relation for f in forms}, catalog, args.samples)
    sampled = time.perf_counter()
    problems, unsampled = check_forms(forms, samples)
    checked = time.perf_counter()

    def source(origin: str) -> str:
        return "pararel" if "pararel" in origin else origin.split("+")[0]

    totals = Counter()
    failing = defaultdict(set)
    for form in {(f.origin, f.relation, f.template) for f in forms}:
        totals[source(form[0])] += 1
    for p in problems:
        failing[(source(p.origin), p.kind)].add((p.relation, p.template))
    print(
        f"machine: {platform.node()} {platform.processor() or platform.machine()}, python {platform.python_version()}"
    )
    print(
        f"forms: {sum(totals.values())}; sampling {sampled - started:.1f} s, checking {checked - sampled:.1f} s"
    )
    print(f"{'source':<18}{'forms':>7}{'unknown-word forms':>20}{'grammar-failing forms':>24}")
    for name in sorted(totals):
        print(
            f"{name:<18}{totals[name]:>7}{len(failing[(name, 'spelling')]):>20}{len(failing[(name, 'grammar')]):>24}"
        )
    print(f"relations with no sample pair: {sorted({f.relation for f in unsampled})}")
    for p in sorted(problems, key=lambda p: (p.origin, p.relation, p.kind)):
        print(f"  [{p.kind}] {p.origin} {p.relation}: {p.template}  ->  {p.detail}")

    from tests.builders.test_textcheck import LABELLED, labelled_scores

    scores = labelled_scores(grammar_checker())
    print(f"hand-labelled set ({len(LABELLED)} sentences): {scores}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"totals": totals, "problems": [p.__dict__ for p in problems], "labelled": scores}, indent=1
            )
        )


if __name__ == "__main__":
    main()
