"""Second right answers and answers given away in WordNetQA items, decided from WordNet itself.

This module reads an item as a reader would — a probe, the concept asked about, the gold and the
other choices — and asks WordNet, not the builder's draws, whether a choice other than the gold
is also right (:class:`SecondAnswers`) and whether the question gives the gold away by its form
(``probesmith.builders.morphology.StemAnalyser``). The builder uses both to refuse what they
flag, and the validity report runs them again over every item written;
``benchmarks/wordnetqa_validity.py`` runs them on the 2020 release as well.

What WordNet says is also right, per probe (``c`` the concept asked about, ``g`` the gold):

* every probe: a choice that shares a lemma with ``g`` (another sense of one of its words: "deviate"
  beside "vary (or deviate)") or its gloss (WordNet glosses some sister colonies, states and
  coordinates alike), two choices that show the same lemma ("change: ..." twice), and a
  verb-group or also-see neighbour of ``g`` (WordNet's own near-synonyms of a verb);
* hypernymy ("c is a kind of ..."): any ISA ancestor of ``c``, at any depth, on any path;
* hyponymy ("... is a kind of c"): any ISA descendant of ``c``;
* definitions and synonymy (``g`` is ``c``): any ISA ancestor (its gloss is true of ``c``) or
  descendant (``c``'s gloss is true of it: "blow: exhale hard" for "expel air") of ``c``;
* a choice whose gloss shares a content word with the gold's gloss, for verbs in every probe and
  for nouns in definitions and synonymy, whose questions are or ask for the gloss (WordNet's verb
  senses are fine-grained, and sisters that share one read as near-synonyms: "commemorate: mark by
  some ceremony or observation" beside "solemnize: observe or perform with dignity"; "ordinate: the
  value of a coordinate on the vertical axis" for "one of three Cartesian coordinates"). Words
  found in more than 1% of verb glosses or 0.3% of noun glosses ("cause", "person") do not count,
  nor does an antonym ("inhale: draw in air" beside "exhale: expel air").
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache

from probesmith.builders.morphology import StemAnalyser
from probesmith.builders.sources.wordnet import WordNetGraph
from probesmith.builders.text import normalize_choice

SECOND_ANSWER_REASONS = {  # what a distractor WordNet says is also right is
    "shares_gold_lemma": "it shares a lemma with the gold",
    "same_label": "it shows a lemma another choice shows",
    "same_gloss": "its gloss is the gold's gloss",
    "near_synonym": "a verb-group or also-see neighbour of the gold",
    "ancestor": "an ISA ancestor of the concept asked about",
    "descendant": "an ISA descendant of the concept asked about",
    "asked_concept": "the concept asked about",
    "gloss_overlap": "its gloss shares a content word with the gold's gloss (verbs; nouns in definitions "
    "and synonymy)",
}
GIVEN_AWAY = "what the question shows shares a word stem with the gold (Snowball stems widened by WordNet)"

# a stem in this share of a part of speech's glosses carries no meaning of its own ("cause", "person")
GENERIC_GLOSS_SHARE = {"verb": 0.01, "noun": 0.003}
_GLOSS_PROBES = frozenset({"definitions", "synonymy"})  # the question is, or asks for, the gloss
FRAMING_SHARE = 0.5  # a stem in half of a framing's questions is the template's
_ANCESTOR_PROBES = frozenset({"hypernymy", "definitions", "synonymy"})
_DESCENDANT_PROBES = frozenset({"hyponymy", "definitions", "synonymy"})


class SecondAnswers:
    """Which choices of an item WordNet says are also right (see the module docstring)."""

    def __init__(self, graph: WordNetGraph, stems: StemAnalyser | None = None):
        self.g = graph
        self.stems = stems
        self.lemma_sets = [frozenset(x.lower() for x in lemmas) for lemmas in graph.lemmas]
        self.gloss_keys = [normalize_choice(gloss) for gloss in graph.glosses]
        self._ancestors = lru_cache(maxsize=1 << 17)(self._ancestors_uncached)
        self._generic_stems: dict[str, frozenset[str]] = {}

    def _gloss_stems(self, node: int) -> frozenset[str]:
        assert self.stems is not None
        pos = self.g.pos[node]
        if pos not in self._generic_stems:
            glosses = [self.g.glosses[n] for n in self.g.by_pos.get(pos, [])]
            self._generic_stems[pos] = self.stems.template_stems(glosses, GENERIC_GLOSS_SHARE[pos])
        return self.stems.text_stems(self.g.glosses[node]) - self._generic_stems[pos]

    def _ancestors_uncached(self, node: int) -> frozenset[int]:
        return frozenset(self.g.all_ancestors(node))

    def reason(self, probe: str, concept: int, gold: int, choice: int) -> str | None:
        """Why ``choice`` is also a right answer of an item of ``probe`` about ``concept``, or None."""
        if choice == gold:
            return None
        if choice == concept:
            return "asked_concept"
        if self.lemma_sets[choice] & self.lemma_sets[gold]:
            return "shares_gold_lemma"
        if self.gloss_keys[choice] == self.gloss_keys[gold]:
            return "same_gloss"
        if choice in self.g.near[gold]:
            return "near_synonym"
        if probe in _ANCESTOR_PROBES and choice in self._ancestors(concept):
            return "ancestor"
        if probe in _DESCENDANT_PROBES and concept in self._ancestors(choice):
            return "descendant"
        if not self.stems or choice in self.g.antonyms[gold] or self.g.pos[gold] != self.g.pos[choice]:
            return None
        if self.g.pos[gold] == "verb" or probe in _GLOSS_PROBES:
            if self._gloss_stems(choice) & self._gloss_stems(gold):
                return "gloss_overlap"
        return None

    def item_reasons(
        self,
        probe: str,
        concept: int,
        answer_index: int,
        choices: Sequence[int],
        labels: Sequence[frozenset[str]],
    ) -> list[str]:
        """The reasons found in one item: one per defensible distractor, one per repeated label.

        ``labels`` are the lemmas each choice shows (:func:`choice_labels`).
        """
        gold = choices[answer_index]
        found = [
            r
            for i, choice in enumerate(choices)
            if i != answer_index and (r := self.reason(probe, concept, gold, choice))
        ]
        found += ["same_label"] * sum(
            1 for i, j in itertools.combinations(range(len(labels)), 2) if labels[i] & labels[j]
        )
        return found


def choice_labels(probe: str, text: str) -> frozenset[str]:
    """What a choice shows as its name.

    The lemma before 'lemma: gloss' (hypernymy, hyponymy), every lemma of a synonymy choice, the
    whole text of a definition.
    """
    if probe == "synonymy":
        return frozenset(normalize_choice(x) for x in text.split(", "))
    if probe == "definitions":
        return frozenset({normalize_choice(text)})
    return frozenset({normalize_choice(text.split(": ", 1)[0])})


ITEM_RULES = {
    "one_right_answer": "no distractor is also right by WordNet: it shares no lemma or gloss with the gold, "
    "no two choices show the same lemma, no verb-group or also-see neighbour of the gold, and no ISA "
    "ancestor (hypernymy, definitions, synonymy) or descendant (hyponymy, definitions, synonymy) of the "
    "concept asked about, at any depth; no gloss sharing a content word with the gold's (verbs; nouns in "
    "definitions and synonymy)",
    "not_given_away": "the question shares no word stem with the gold that it shares with no distractor "
    "(Snowball stems widened by WordNet's morphology, derivational links, compounds and spelling "
    "variants; the words of the question's template aside)",
}


class WordNetItemChecks:
    """The WordNetQA rules :data:`ITEM_RULES`, checked on items as written (table rows)."""

    rules = ITEM_RULES
    columns = ("probe", "question", "concept", "choices", "answer_index", "choice_concepts", "framing")

    def __init__(self, graph: WordNetGraph, reader=None, stems: StemAnalyser | None = None):
        self.graph = graph
        self.stems = stems or StemAnalyser(reader)
        self.answers = SecondAnswers(graph, self.stems)

    def check(self, rows: Sequence[dict]) -> list[list[tuple[str, str]]]:
        """Per row of one config: the (rule, detail) pairs it violates.

        A template's words are the stems found in half or more of the questions of its framing
        (rows without a ``framing`` are one framing), so a word every such question shows gives
        nothing away.
        """
        by_framing: dict[str, list[str]] = {}
        for row in rows:
            by_framing.setdefault(row.get("framing", ""), []).append(row["question"])
        templates = {f: self.stems.template_stems(qs, FRAMING_SHARE) for f, qs in by_framing.items()}
        index = self.graph.index
        out = []
        for row in rows:
            found = []
            nodes = [index.get(name) for name in row["choice_concepts"]]
            concept = index.get(row["concept"])
            if concept is not None and None not in nodes:
                labels = [choice_labels(row["probe"], text) for text in row["choices"]]
                reasons = self.answers.item_reasons(row["probe"], concept, row["answer_index"], nodes, labels)
                found += [("one_right_answer", reason) for reason in sorted(set(reasons))]
            else:
                found.append(("one_right_answer", "a choice names no WordNet synset"))
            template = templates[row.get("framing", "")]
            given = self.stems.gives_away(row["question"], row["choices"], row["answer_index"], template)
            if given:
                found.append(("not_given_away", ", ".join(sorted(given))))
            out.append(found)
        return out
