"""Templates, patterns and questions of the default Wikidata specs checked as English text (issue 25).

    python benchmarks/template_text.py [--samples 3] [--json OUT]

Fills every form the relations, paraphrases and rules specs use with typed sample labels from the
Wikidata slice, runs Hunspell (en_US) over the frames' words and Link Grammar over the filled
sentences, and prints per origin: forms, forms with unknown words, forms failing the parse; then
the checker's precision and recall on the hand-labelled sentences of tests/builders/test_textcheck.py.
"""

import argparse
import json
import platform
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    import probesmith.builders.sources  # noqa: F401
    from probesmith.builders.registry import load_spec
    from probesmith.builders.sources import open_wikidata
    from probesmith.builders.sources.catalog import load_catalog
    from probesmith.builders.textcheck import check_forms, forms_in_use, grammar_checker, relation_samples

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
