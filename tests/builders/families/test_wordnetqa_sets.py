"""WordNetQA's per-candidate tests as set operations equal the per-pair loops they replaced (issue 26).

Each rewrite is compared with the loop it replaced, kept here, over every item of a real build:
every distractor of every item against its concept and gold, and every choice against those before it.
"""

import polars as pl
import pytest

from probesmith.builders.families.wordnetqa import _near_duplicate_of_any
from probesmith.builders.families.wordnetqa_answers import SecondAnswers, shown_words
from probesmith.builders.morphology import StemAnalyser
from probesmith.builders.sources.wordnet import WordNetSource
from probesmith.builders.text import near_duplicate, normalize_choice, word_tokens

from ...conftest import needs_wordnet

pytestmark = needs_wordnet


@pytest.fixture(scope="module")
def answers(wordnet_graph):
    return SecondAnswers(wordnet_graph, StemAnalyser(WordNetSource().lexicon()))


def small_build_items(build) -> list[tuple]:
    rows = []
    for path in sorted(build.out.glob("*/*.parquet")):
        columns = ["probe", "concept", "choices", "answer_index", "choice_concepts"]
        rows += pl.read_parquet(path, columns=columns).rows()
    return rows


def reference_word_sense_right(answers: SecondAnswers, probe, concept, shown) -> bool:
    pos = answers.g.pos[concept]
    senses = [s for word in shown for s in answers._senses(word.lower(), pos)]
    above = answers._ancestors(concept)
    if probe == "hypernymy":
        return any(s in above for s in senses)
    if probe == "hyponymy":
        return any(concept in answers._ancestors(s) for s in senses)
    if probe == "synonymy":
        return any(s == concept or s in above or concept in answers._ancestors(s) for s in senses)
    return False


def reference_names_at_or_below(answers: SecondAnswers, text_node: int, target: int) -> bool:
    return any(s == target or target in answers._ancestors(s) for s in answers._gloss_named(text_node))


def test_below_the_concept_by_its_descendants_equals_the_ancestor_loops(
    answers, wordnet_graph, small_wordnet_build
):
    index = wordnet_graph.index
    pairs, true = 0, {"word_sense": 0, "names": 0, "descendant": 0}
    for probe, concept_name, choices, _, choice_names in small_build_items(small_wordnet_build):
        concept = index[concept_name]
        nodes = [index[name] for name in choice_names]
        for text, node in zip(choices, nodes, strict=True):
            # every choice, the gold among them, and the concept the other way round
            shown = shown_words(probe, text)
            ours = answers._word_sense_right(probe, concept, shown)
            assert ours == reference_word_sense_right(answers, probe, concept, shown), (concept_name, text)
            for text_node, target in ((node, concept), (concept, node)):
                named = answers._names_at_or_below(text_node, target)
                assert named == reference_names_at_or_below(answers, text_node, target), (concept_name, text)
                true["names"] += named
            below = node in answers._descendants(concept)
            assert below == (concept in answers._ancestors(node))
            true["word_sense"] += ours
            true["descendant"] += below
            pairs += 1
    assert pairs > 12_000
    assert min(true.values()) > 0, true  # each test is true somewhere: not a comparison of falses only


def test_near_duplicate_of_any_equals_the_pairwise_test(small_wordnet_build):
    compared, near = 0, 0
    for _, _, choices, _, _ in small_build_items(small_wordnet_build):
        texts = list(choices)
        # each choice against those before it, and each choice with a variant against all of them
        for at, text in enumerate(texts):
            for candidate in (text, text.upper(), text + " (a)", text.split(": ", 1)[0]):
                taken = texts[:at] if candidate == text else texts
                keys = {normalize_choice(t) for t in taken}
                tokens = [word_tokens(t) for t in taken]
                expected = any(near_duplicate(candidate, t) for t in taken)
                assert _near_duplicate_of_any(candidate, keys, tokens) == expected, (candidate, taken)
                compared += 1
                near += expected
    assert compared > 40_000
    assert near > 1_000
