"""WordNetFiles answers as NLTK's WordNet reader does, over every synset, lemma and gloss word (real files)."""

from __future__ import annotations

import re
import warnings

import pytest

from probesmith.builders.sources.wordnet import (
    POS_CODES,
    WordNetGraph,
    WordNetSource,
    _all_synsets,
    clean_example,
    clean_gloss,
)


@pytest.fixture(scope="module")
def nltk_reader():
    """A fresh NLTK reader over the prepared copy: nothing cached from another test."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    root = WordNetSource().reader().root.path
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return WordNetCorpusReader(root, None)


@pytest.fixture(scope="module")
def files():
    return WordNetSource().lexicon()


def _graph_through_nltk(wn) -> tuple[WordNetGraph, list[frozenset[int]]]:
    """The graph as WordNetSource.load made it from NLTK's synsets before WordNetFiles."""
    graph, synsets, near = WordNetGraph(), [], []
    for pos in ("noun", "verb"):
        ids = graph.by_pos.setdefault(pos, [])
        for synset in _all_synsets(wn, POS_CODES[pos]):
            graph.index[synset.name()] = len(graph.names)
            ids.append(len(graph.names))
            synsets.append(synset)
            graph.names.append(synset.name())
            graph.pos.append(pos)
            graph.lemmas.append(tuple(n.replace("_", " ") for n in synset.lemma_names()))
            graph.glosses.append(clean_gloss(synset.definition()))
            graph.examples.append(tuple(clean_example(e) for e in synset.examples()))
    for synset in synsets:
        graph.parents.append(
            tuple(
                graph.index[p.name()]
                for p in synset.hypernyms() + synset.instance_hypernyms()
                if p.name() in graph.index
            )
        )
        graph.instance.append(bool(synset.instance_hypernyms()))
        graph.antonyms.append(
            frozenset(
                graph.index[a.synset().name()]
                for lemma in synset.lemmas()
                for a in lemma.antonyms()
                if a.synset().name() in graph.index
            )
        )
        near.append(
            [
                graph.index[n.name()]
                for n in synset.verb_groups() + synset.also_sees()
                if n.name() in graph.index
            ]
        )
    neighbours = [set(n) for n in near]
    for node, others in enumerate(near):
        for other in others:
            neighbours[other].add(node)
    return graph, [frozenset(n - {node}) for node, n in enumerate(neighbours)]


def test_graph_equals_the_one_read_through_nltk(nltk_reader):
    """Every noun and verb synset: name, order, lemmas, gloss, examples, parents (in order), antonyms, near."""
    ours = WordNetSource().load(("noun", "verb"))
    theirs, near = _graph_through_nltk(nltk_reader)
    assert len(ours) == len(theirs) > 90_000
    for field in ("names", "pos", "lemmas", "glosses", "examples", "parents", "instance", "antonyms"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert ours.index == theirs.index and ours.by_pos == theirs.by_pos
    assert ours.near == near
    assert sum(len(p) > 1 for p in ours.parents) > 1_000  # the order of several parents is compared


def _asked_words(files) -> set[str]:
    """Every word of every noun and verb gloss and example, every lemma and every exception-list form."""
    graph = WordNetSource().load(("noun", "verb"))
    words = set(files.all_lemma_names())
    for text in graph.glosses + [e for examples in graph.examples for e in examples]:
        words |= set(re.findall(r"[a-z][a-z'-]*", text.lower()))
    for table in files.exceptions.values():
        words |= set(table)
    return words


def test_morphy_equals_nltks_for_every_word(files, nltk_reader):
    words = _asked_words(files)
    assert len(words) > 150_000
    differ = [
        (w, pos)
        for w in words
        for pos in ("n", "v", "a", "r", None)
        if files.morphy(w, pos) != nltk_reader.morphy(w, pos)
    ]
    assert differ == []


def _related_forms(reader, word: str) -> list[tuple]:
    return [
        (lemma.name(), lemma.synset().name(), sorted(r.name() for r in lemma.derivationally_related_forms()))
        for lemma in reader.lemmas(word)
    ]


def test_synsets_lemmas_and_lexnames_equal_nltks(files, nltk_reader):
    words = sorted(_asked_words(files))
    differ = []
    for word in words:
        for pos in ("n", "v", None):
            ours = [(s.name(), s.pos(), s.lemma_names()) for s in files.synsets(word, pos)]
            theirs = [(s.name(), s.pos(), s.lemma_names()) for s in nltk_reader.synsets(word, pos)]
            if ours != theirs:
                differ.append((word, pos))

        if _related_forms(files, word) != _related_forms(nltk_reader, word):
            differ.append((word, "lemmas"))
    assert differ == []
    assert list(files.all_lemma_names()) == list(nltk_reader.all_lemma_names())
    graph = WordNetSource().load(("noun", "verb"))
    assert [files.synset(n).lexname() for n in graph.names] == [
        nltk_reader.synset(n).lexname() for n in graph.names
    ]


def test_derived_names_equal_those_of_nltks_lemma_objects(files, nltk_reader):
    """The stem analyser's derivations: the table's names and NLTK's lemma walk, for every asked word."""
    differ = [
        word
        for word in sorted(_asked_words(files))
        if files.derived_names(word)
        != {
            r.name().lower()
            for lemma in nltk_reader.lemmas(word)
            for r in lemma.derivationally_related_forms()
        }
    ]
    assert differ == []
    assert sum(1 for word in files.all_lemma_names() if files.derived_names(word)) > 20_000
