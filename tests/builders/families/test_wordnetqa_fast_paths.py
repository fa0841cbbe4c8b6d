"""WordNetQA's faster lookups answer what the code they replace answered (issue 26, part 9).

Each fast path is compared with the slow path's formula, written out here, over real data: every
choice, question and choice synset of the small build. ``SecondAnswers._senses`` reads a word's
senses as offsets (a synset's name made once) instead of naming every sense it finds;
``_widened_stems`` widens a gloss by a per-word cache; ``StemAnalyser.shares_any`` answers the
framing give-away test without building every set it tests; ``_Builder.says_any`` asks a text once
for all the lemmas of a concept; the near-duplicate test counts the Jaccard union.
"""

import re
from collections import Counter
from dataclasses import replace

import polars as pl

from probesmith.builders.families.wordnetqa_answers import (
    _POS_CODES,
    SYNONYM_SENSES,
    SecondAnswers,
    shown_words,
    strip_domain_label,
)
from probesmith.builders.morphology import StemAnalyser
from probesmith.builders.sources.wordnet import WordNetSource
from probesmith.builders.text import normalize_choice

from ...conftest import needs_wordnet

pytestmark = needs_wordnet


def _rows(build) -> list[tuple]:
    rows = []
    columns = ["probe", "question", "choices", "choice_concepts"]
    for path in sorted(build.out.glob("*/*.parquet")):
        rows += pl.read_parquet(path, columns=columns).rows()
    return rows


def test_senses_and_widened_stems_equal_the_name_lookups(wordnet_graph, small_wordnet_build):
    reader = WordNetSource().lexicon()
    answers = SecondAnswers(wordnet_graph, StemAnalyser(reader))
    g = wordnet_graph
    nodes, words = set(), set()
    for probe, _, choices, names in _rows(small_wordnet_build):
        for text, name in zip(choices, names, strict=True):
            node = g.index[name]
            nodes.add(node)
            words.update((w.lower(), g.pos[node]) for w in shown_words(probe, text))
            words.update((w, g.pos[node]) for w in answers._gloss_words(node))
    found = Counter()
    for word, pos in sorted(words):
        slow = tuple(
            n
            for s in reader.synsets(word.replace(" ", "_"), _POS_CODES[pos])
            if (n := g.index.get(s.name())) is not None
        )
        assert answers._senses_uncached(word, pos) == slow, (word, pos)
        found[bool(slow)] += 1
    assert len(words) > 5_000 and found[True] > 1_000 and found[False], found
    widened = 0
    for node in sorted(nodes):
        slow = set(answers._gloss_stems(node))
        for word in answers._gloss_words(node):
            if " " not in word:
                for synset in reader.synsets(word)[:SYNONYM_SENSES]:
                    for name in synset.lemma_names():
                        if "_" not in name:
                            slow |= answers.stems.word_stems(name.lower())
        slow = frozenset(slow) - answers._generic_stems[g.pos[node]]
        assert answers._widened_stems_uncached(node) == slow, g.names[node]
        widened += slow != answers._gloss_stems(node)
    assert len(nodes) > 2_000 and widened > 1_000, (len(nodes), widened)


def test_stem_tests_answer_as_the_sets_they_stand_for(small_wordnet_build):
    stems = StemAnalyser(WordNetSource().lexicon())
    shared = Counter()
    for _, question, choices, _ in _rows(small_wordnet_build):
        first_name = re.split(r": |, ", choices[0], maxsplit=1)[0]
        for text in choices:
            for left in (question, first_name):
                answer = stems.shares_any(left, text)
                assert answer == bool(stems.shared(left, text)), (left, text)
                shared[answer] += 1
    assert shared[True] > 1_000 and shared[False] > 1_000, shared


def test_gloss_key_ids_equal_where_the_normalised_glosses_are(wordnet_graph, small_wordnet_build):
    """``same_gloss`` reads one int per synset (issue 26, part 10): equal exactly where the keys are.

    Over every synset of the graph as the builder reads it (domain labels stripped), grouped by the
    key ``normalize_choice`` gives its gloss, and over every choice and gold of the small build.
    """
    stripped = replace(wordnet_graph, glosses=[strip_domain_label(x) for x in wordnet_graph.glosses])
    for graph in (wordnet_graph, stripped):
        answers = SecondAnswers(graph)
        ids_of_key: dict[str, set[int]] = {}
        for node, gloss in enumerate(graph.glosses):
            ids_of_key.setdefault(normalize_choice(gloss), set()).add(answers.gloss_key_ids[node])
        assert all(len(ids) == 1 for ids in ids_of_key.values())  # one id per key
        assert len({next(iter(ids)) for ids in ids_of_key.values()}) == len(ids_of_key)  # one key per id
        groups = Counter(answers.gloss_key_ids)
        assert sum(1 for n in groups.values() if n > 1) > 10  # some synsets do share a gloss
    g, answers = stripped, SecondAnswers(stripped)
    pairs = 0
    for _, _, _, names in _rows(small_wordnet_build):
        nodes = [g.index[name] for name in names]
        for a in nodes:
            for b in nodes:
                slow = normalize_choice(g.glosses[a]) == normalize_choice(g.glosses[b])
                assert (answers.gloss_key_ids[a] == answers.gloss_key_ids[b]) == slow, (a, b)
                pairs += 1
    assert pairs > 10_000, pairs
