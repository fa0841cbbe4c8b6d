"""The fast paths of issue 26 give what the code they replaced gave, over real WordNet data.

Each oracle below is the pre-issue-26 code, kept verbatim; the fast path must agree with it on
every input drawn from the small WordNet spec's concepts (and, for the synset reader, on every
noun and verb synset of WordNet 3.0). The default build's logical hash before and after is
compared by ``benchmarks/wordnet_build_speed.py --before``.
"""

import bisect
import itertools
import random
import re
import warnings

import pytest

from probesmith.builders.families.wordnetqa import WeightedSampler, _Builder
from probesmith.builders.families.wordnetqa_answers import SecondAnswers
from probesmith.builders.registry import load_spec
from probesmith.builders.sampling import stable_hash
from probesmith.builders.sources.wordnet import WordNetSource, _all_synsets
from probesmith.builders.text import contains_word, mentions_word

from ...conftest import FIXTURES, needs_wordnet

pytestmark = needs_wordnet


@pytest.fixture(scope="module")
def builder(wordnet_graph):
    spec = load_spec(FIXTURES / "wordnet_small.yaml")
    return _Builder(spec, wordnet_graph, WordNetSource().reader())


@pytest.fixture(scope="module")
def concepts(builder):
    return builder.concepts()


def says_before(builder, text: str, lemma: str) -> bool:
    if contains_word(text, lemma):
        return True
    if builder.morphy is None:
        return mentions_word(text, lemma)
    words = lemma.lower().replace("-", " ").split()
    tokens = [t.lower() for t in re.findall(r"[A-Za-z][A-Za-z']*", text)]
    n = len(words)
    for i in range(len(tokens) - n + 1):
        if tokens[i : i + n - 1] != words[:-1]:
            continue
        token, last = tokens[i + n - 1], words[-1]
        if token == last or any(builder.morphy(token, pos) == last for pos in ("n", "v")):
            return True
    return False


def sister_family_before(builder, anchor: int, up: int) -> tuple[tuple[int, int], ...]:
    g = builder.g
    top = g.ancestors_by_hops(anchor, up)[up]
    siblings = {m for t in top for m in g.descendants_by_hops(t, up)[up]} - {anchor}
    if up > 1:
        parents = set(g.parents[anchor])
        siblings = {n for n in siblings if not parents & set(g.parents[n])}
        siblings -= g.all_ancestors(anchor)
    members: list[tuple[int, int]] = []
    level = sorted(siblings)
    rng = random.Random(stable_hash(builder.spec.seed, "family", anchor))
    for depth in range(1, builder.d.sister_depth + 1):
        if up > 1:
            level = [n for n in level if n != anchor and not parents & set(g.parents[n])]
        if len(level) > 400:
            level = sorted(rng.sample(level, 400))
        members.extend((n, depth) for n in level)
        level = sorted({c for n in level for c in g.children[n]})
        if not level:
            break
    return tuple(members)


def test_says_matches_the_regex_and_morphy_reading(builder, concepts):
    """Every concept's lemmas against the texts its items show: its own, its relatives' and
    some random synsets' glosses, examples and lemma lists (inflected forms included)."""
    g = builder.g
    rng = random.Random(0)
    checked = said = 0
    for c in concepts:
        texts = [g.glosses[c], *g.examples[c], ", ".join(g.lemmas[c])]
        for other in (*g.parents[c], *g.children[c][:3], rng.randrange(len(g))):
            texts += [g.glosses[other], *g.examples[other][:1], ", ".join(g.lemmas[other])]
        texts += [f"the {lemma}s were {lemma}ed" for lemma in g.lemmas[c][:1]]
        for text in texts:
            for lemma in g.lemmas[c]:
                expected = says_before(builder, text, lemma)
                assert builder.says(text, lemma) == expected, (text, lemma)
                checked, said = checked + 1, said + expected
    assert checked > 20_000 and 0 < said < checked


@pytest.mark.parametrize("up", [1, 2, 3])
def test_sister_families_match_the_per_anchor_walk(builder, concepts, up):
    for anchor in concepts:
        assert builder._sister_family_uncached(anchor, up) == sister_family_before(builder, anchor, up), (
            anchor
        )
        assert builder._sister_family(anchor, up) == sister_family_before(builder, anchor, up)


def test_gloss_names_closure_matches_the_walk_over_senses(builder, concepts):
    answers: SecondAnswers = builder.second_answers
    rng = random.Random(1)
    named = 0
    for c in concepts[::3]:
        for target in (c, *builder.g.parents[c], *builder.g.all_ancestors(c), rng.randrange(len(builder.g))):
            expected = any(s == target or target in answers._ancestors(s) for s in answers._gloss_named(c))
            assert answers._concept_names_at_or_below(c, target) == expected, (c, target)
            named += expected
    assert named > 0


def test_band_pools_are_built_once_and_equal_a_fresh_build(builder, concepts):
    builder.prepare_popular(concepts)
    for key, sampler in builder.popular.items():
        for gold in sampler.nodes[:50]:
            pool, in_band = builder.band(gold, sampler)
            builder._band_cache.clear()
            fresh_pool, fresh_in_band = builder.band(gold, sampler)
            assert pool == fresh_pool, key
            assert all(in_band(n) == fresh_in_band(n) for n in pool[:200])


def test_synsets_read_as_nltks_all_synsets_reads_them():
    """Every noun and verb synset: name, offset, gloss, examples, lemmas and pointers."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    ours = WordNetSource().reader()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = WordNetCorpusReader(ours.root.path, None)  # a fresh reader: nothing cached yet
    for pos in ("n", "v"):
        mine, nltk_own = list(_all_synsets(ours, pos)), list(theirs.all_synsets(pos))
        assert len(mine) == len(nltk_own) > 10_000
        for a, b in zip(mine, nltk_own, strict=True):
            assert (a.name(), a.offset(), a.definition(), a.examples(), a.lemma_names(), a._pointers) == (
                b.name(),
                b.offset(),
                b.definition(),
                b.examples(),
                b.lemma_names(),
                b._pointers,
            )


class _DictSampler:
    """WeightedSampler before it kept its nodes and sums in arrays (pre-compaction code, verbatim)."""

    def __init__(self, weights, answers=None):
        self.weights = weights
        self.nodes = sorted(weights)
        self.node_set = frozenset(self.nodes)
        self.answers = self.node_set if answers is None else answers
        self.cumulative = list(itertools.accumulate(weights[n] for n in self.nodes))

    def restricted(self, keep):
        return _DictSampler({n: w for n, w in self.weights.items() if keep(n)}, self.answers)

    def draw(self, rng):
        return self.nodes[bisect.bisect_right(self.cumulative, rng.random() * self.cumulative[-1])]


def test_compact_samplers_draw_what_dict_samplers_drew(builder, concepts, monkeypatch):
    """Every popular pool of the small spec, whole and in each depth band: weights, answers and draws.

    The oracle is built from the weights each sampler was given (recorded as it was made), not from
    what the sampler reads back.
    """
    given: dict[int, dict[int, float]] = {}
    make = WeightedSampler.__init__

    def recording(self, weights, answers=None):
        make(self, weights, answers)
        given[id(self)] = dict(weights)

    monkeypatch.setattr(WeightedSampler, "__init__", recording)
    builder.prepare_popular(concepts)
    monkeypatch.undo()
    assert builder.popular
    for key, sampler in builder.popular.items():
        weights = given[id(sampler)]
        assert weights and sampler.weight_of(-1) == 0.0
        assert [sampler.weight_of(n) for n in sorted(weights)] == [weights[n] for n in sorted(weights)]
        oracle = _DictSampler(weights)
        assert list(sampler.nodes) == oracle.nodes and sampler.answers == oracle.answers
        assert list(sampler.cumulative) == oracle.cumulative, key
        for gold in sampler.nodes[:: max(1, len(sampler.nodes) // 5)]:
            low, high = builder.depth[gold] - 1, builder.depth[gold] + 1
            in_band = sampler.restricted(lambda n, low=low, high=high: low <= builder.depth[n] <= high)
            band_oracle = oracle.restricted(lambda n, low=low, high=high: low <= builder.depth[n] <= high)
            assert list(in_band.nodes) == band_oracle.nodes and in_band.answers == oracle.answers
            assert [in_band.weight_of(n) for n in band_oracle.nodes] == [
                band_oracle.weights[n] for n in band_oracle.nodes
            ]
            ours, theirs = random.Random(gold), random.Random(gold)
            assert [in_band.draw(ours) for _ in range(200)] == [band_oracle.draw(theirs) for _ in range(200)]
