"""The templates, patterns and questions the three Wikidata families' builds use, for the text checker.

:mod:`probesmith.builders.textcheck` checks text and knows no family; this module reads each family's
own banks (after their checks, rejects and fixes), so that what is checked is what is built. It sits
with the families because it imports them (issue 26: layers import downward only).
"""

from __future__ import annotations

from collections import Counter

import probesmith.builders.sources  # noqa: F401 -- first: builders.data and the sources import each other
from probesmith.builders.families.paraphrases import pattern_bank, raw_patterns, resolve_pattern_sources
from probesmith.builders.families.rules import question_forms, read_question_sources
from probesmith.builders.registry import load_spec
from probesmith.builders.sources.catalog import load_catalog
from probesmith.builders.textcheck import Form


def forms_in_use(
    relations_spec: str = "relations", paraphrases_spec: str = "paraphrases", rules_spec: str = "rules"
):
    """Every template, pattern, question and cloze the three Wikidata specs' builds can use.

    Read through the families' own functions (the paraphrase bank after its checks, rejects and
    fixes; the rules' question forms after their fixes), so that what is checked is what is built.
    """
    forms: list[Form] = []
    spec = load_spec(relations_spec)
    catalog = load_catalog(spec.catalog)
    for pid in spec.relations or catalog:
        forms += [Form("catalog", pid, t, "relations") for t in catalog[pid].templates]
    spec = load_spec(paraphrases_spec)
    sources = resolve_pattern_sources(spec.patterns)
    for pid in spec.relations:
        bank = pattern_bank(pid, raw_patterns(sources, pid), Counter(), spec.patterns.reject)
        forms += [Form(p["origin"], pid, p["template"], "paraphrases") for p in bank]
    spec = load_spec(rules_spec)
    catalog = load_catalog(spec.catalog)
    questions, clozes, own = read_question_sources(spec)
    for pid in (r for r in (spec.relations or catalog) if r not in spec.exclude_relations):
        templates = catalog[pid].templates if pid in catalog else ()
        found = question_forms(pid, templates, questions, clozes, own)
        mquake_cloze = clozes.get(pid, "").replace("__", "___").rstrip(" .") + "."
        forms += [
            Form("mquake_question" if questions.get(pid) == q else "catalog_question", pid, q, "rules")
            for q in found.questions
        ]
        forms += [
            Form("mquake_cloze" if c == mquake_cloze else "catalog_cloze", pid, c, "rules")
            for c in found.clozes
        ]
    return forms
