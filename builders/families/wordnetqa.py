"""WordNetQA: definition, hypernymy, hyponymy and synonymy multiple-choice probes.

After Richardson & Sabharwal (TACL 2020), "What Does My QA Model Know? Devising Controlled
Probes using Expert Knowledge". For each WordNet concept ``c``:

* **definitions** — ``c`` introduced in context (an example sentence containing its word) -> its gloss;
* **hypernymy** — ``c`` -> the concept ``k`` ISA hops above it on the path drawn (a shorter path
  may also exist), for every ``k <= max_hops``;
* **hyponymy** — ``c`` -> a concept ``k`` ISA hops below it on the path drawn;
* **synonymy** — the gloss of ``c`` -> the lemmas of its synset.

Distractors are tagged with their type and distance:

* ``sister`` — the l-deep sister family (l=1 siblings, l=2 adds the siblings' children, ...)
  of the gold for hypernymy, and of ``c`` for definitions and synonymy (hyponymy has none: the
  family of ``c``'s parents is refused there, ``parent_family``);
* ``isa_down`` / ``isa_up`` — ISA hops in the opposite direction of the question (hyponyms of
  ``c`` for hypernymy, hypernyms for hyponymy; both directions for definitions and synonymy);
* ``popular`` — for hypernymy and hyponymy, a synset drawn in proportion to how often it would
  be the gold of this probe at this hop over every concept (before items are dropped), so that
  a frequent answer is no cue;
* ``random`` — a random synset of the same part of speech (for hypernymy and hyponymy: one
  that is the answer of some item of the same probe and hop).

Hypernymy and hyponymy guard against answering from the choices alone: popular and random
distractors lie within ``depth_band`` levels of the gold's depth (the gold is not the most
general choice), and ``balance_answers`` drops items until no synset is the answer of more than
its share of the items it appears in (beyond ``balance_floor`` uses), so "this choice is often
the answer" is no cue. How far that goes is measured by the audit (see BENCHMARKS.md).

No distractor is a correct answer (any ancestor of ``c`` for hypernymy, any descendant for
hyponymy, the same gloss for definitions, a shared lemma for synonymy), no two choices are
near-duplicates (the same text, or token Jaccard >= 0.6: "set afloat" / "set afloat again"), the
question never contains the word the gold choice names, and no hypernymy or hyponymy choice names
``c`` itself (a hyponym's gloss usually does: "puppy: a young dog"). Every question about
``c`` shares the cluster ``wn:<synset>``, and splits are by cluster.

The mix of distractor types is a share of each probe's slots (``distractors.mix``, per probe
``mix_by_probe``), scheduled over the items so that a type one item lacks is made up by another
(see :meth:`_Builder.pick_distractors`); ``validity.json`` compares the shares delivered with
the shares asked.
"""

from __future__ import annotations

import bisect
import itertools
import logging
import math
import multiprocessing
import os
import queue
import random
import re
import string
import sys
import time
import traceback
from array import array
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from probesmith.builders import random_draws
from probesmith.builders.batch import NodePairs, build_workers, cyclic_gc_paused, return_freed_memory
from probesmith.builders.families.wordnetqa_answers import (
    GIVEN_AWAY,
    LABEL_PROBES,
    SECOND_ANSWER_REASONS,
    SYNSET_CACHE_SIZE,
    SecondAnswers,
    WordNetItemChecks,
    choice_labels,
    decided_item_key,
    shown_words,
    strip_domain_label,
)
from probesmith.builders.morphology import StemAnalyser
from probesmith.builders.registry import DraftChoice, DraftItem, MultipleChoiceOutput, register_family
from probesmith.builders.sampling import item_rng, stable_hash
from probesmith.builders.sources.wordnet import WordNetGraph, WordNetSource, reopen_after_fork
from probesmith.builders.text import (
    NEAR_DUPLICATE_JACCARD,
    TEXT_CACHE_SIZE,
    WORD_CACHE_SIZE,
    contains_word,
    find_in_examples,
    indefinite_article,
    long_word_stems,
    mentions_word,
    normalize_choice,
    word_tokens,
)
from probesmith.errors import SpecError
from probesmith.probes.spec import MultipleChoiceSpec, spec_field
from probesmith.progress import progress
from probesmith.schemas.card import CardInfo

log = logging.getLogger(__name__)

PROBE_TYPES = ("definitions", "hypernymy", "hyponymy", "synonymy")
DISTRACTOR_TYPES = ("sister", "opposite", "popular", "random")
POPULAR_PROBES = ("hypernymy", "hyponymy")  # the probes whose golds make a popular pool
NO_OPPOSITE = ("definitions", "synonymy")  # every ISA relative of their concept is also right
# same_file: a concept whose descendants are this share of a file's synsets is broad for it (8% of v14's
# hyponymy test items: possession, animal, plant, event, material, time period, body part, condition)
BROAD_CONCEPT_SHARE = 0.05
_FAMILY_LEVEL_CAP = 400  # sister-family members kept per level, so hub concepts stay cheap
_RANDOM_TRIES = 64


@dataclass(frozen=True)
class DistractorSpec:
    """How the wrong answers of each item are drawn."""

    # a spec layer that sets `mix` sets it for every probe: included per-probe mixes go
    SPEC_KEY_REPLACES = {"mix": ("mix_by_probe",)}

    count: int = spec_field(4, help="Distractors per item (choices = count + 1).", minimum=1)
    mix: Mapping[str, int] = spec_field(
        default_factory=lambda: {"sister": 2, "opposite": 1, "random": 1},
        help="Shares of a probe's distractor slots by type, as weights ({sister: 2, opposite: 1, "
        "random: 1} = 50/25/25%), for every probe without its own entry in `mix_by_probe`. Types: "
        "sister, opposite (ISA hops the other way), popular (synsets drawn in proportion to how "
        "often they would be golds of this probe and hop; hypernymy and hyponymy only), random. "
        "Each slot goes to the type furthest behind its share over the probe's items so far, so an "
        "item whose pool of a type runs short (a leaf concept has no hyponyms) gives that slot to "
        "another type and a later item with more of it makes it up; what no asked type can fill "
        "goes to random. validity.json reports the shares delivered beside the shares asked (rule "
        "`mix_delivered`).",
    )
    mix_by_probe: Mapping[str, Mapping[str, int]] = spec_field(
        default_factory=dict,
        help="A mix per probe (definitions, hypernymy, hyponymy, synonymy) where it should differ "
        "from `mix`, e.g. no popular slot for definitions and synonymy, which have no popular pool. "
        "A spec that sets `mix` without `mix_by_probe` sets the mix of every probe: the per-probe "
        "mixes of the specs it includes are dropped.",
    )
    mix_tolerance: float = spec_field(
        0.03,
        help="The validity rule `mix_delivered`: each type's share of a config's distractor slots "
        "lies within this much of the share its mix asks for (a violation is reported, not hidden).",
        minimum=0,
    )
    sister_depth: int = spec_field(
        2, help="Depth L of the sister family: 1 = siblings only, 2 adds the siblings' children, ..."
    )
    sister_from: int = spec_field(
        1,
        help="Controlled distractor depth: how far up the sister family starts. 1 = the anchor's "
        "siblings (they share its parent: the closest distractors, and the ones readers most often "
        "defend, a sister whose gloss also fits); 2 = its cousins (they share its grandparent, not "
        "its parent), and so on. The anchor is the gold for hypernymy, the concept otherwise. "
        "`sister_depth` then adds their children.",
        minimum=1,
    )
    sister_from_by_probe: Mapping[str, int] = spec_field(
        default_factory=dict,
        help="`sister_from` per probe (definitions, hypernymy, hyponymy, synonymy) where it should "
        "differ, e.g. {definitions: 2}: definitions' sisters are then cousins of the concept (they "
        "share its grandparent, never its parent), as every definitions sister readers defended in "
        "three reads was a sibling whose gloss says the concept's in other words (swat / slug under "
        "hit, stand by / help oneself under refrain).",
    )
    opposite_hops: int = spec_field(4, help="Farthest ISA hop of opposite-direction distractors.")
    depth_band: int | None = spec_field(
        1,
        help="Hypernymy and hyponymy: popular and random distractors lie within this many levels "
        "of the gold's depth (its distance from WordNet's root), so the gold is not the most general "
        "or most specific choice; null = any depth.",
    )
    balance_answers: bool = spec_field(
        True,
        help="Hypernymy and hyponymy: beyond its first `balance_floor` items, no synset is the gold "
        "of more than 1/(count + 1) of the items it appears in (the rest are dropped and counted), "
        "so how often a choice is a gold says little about whether it is one here.",
    )
    balance_floor: int = spec_field(
        5, help="Gold uses every synset may have before `balance_answers` applies its share."
    )
    random_from_answers: bool = spec_field(
        True,
        help="Hypernymy and hyponymy: random distractors are drawn from the synsets that are answers "
        "of the same probe and hop (uniformly), not from all of WordNet, and sister and opposite "
        "distractors that are such answers are preferred, so a choice that is never anyone's answer "
        "is no cue.",
    )

    definitions_random_from_golds: bool = spec_field(
        True,
        help="Definitions: random distractors are glosses of synsets that could be definitions golds "
        "themselves (same part of speech, an example sentence that contains their word), not of any "
        "synset: golds need an example, so they are common, general senses ('something', 'the act "
        "of'), and glosses drawn from all of WordNet ('a genus of tropical American shrubs') told a "
        "choice-only model which choice was not the gold (issue 24: 0.260 over chance 0.20).",
    )

    same_file: tuple[str, ...] = spec_field(
        (),
        help="Probes whose popular and random distractors come from the gold's WordNet lexicographer "
        "file (noun.animal, noun.act, verb.motion; any file where that one has no candidate in the "
        "gold's depth band), so the coarse category does not point at the gold: in v13 hyponymy's "
        "gold was the only choice in the concept's file in 62.5% of test items ('a kind of insect': "
        "one animal among a plant, a food, a disease), and picking among the choices in that file "
        "scored 0.761 (chance 0.20). Definitions and synonymy: their random distractors. Empty = any "
        "file.",
    )

    match_gold_length: tuple[str, ...] = spec_field(
        ("synonymy",),
        help="Probes whose items draw the gold's length rank among the choices uniformly (0 = the "
        "shortest, 4 = the longest, in characters) and try first the distractors that put it "
        "there (any valid one where none does), so neither the shortest nor the longest choice is "
        "a cue. Synonymy's golds are shorter lemma lists than its distractors (17 against 20 "
        "characters in v9: a long lemma list more often shares a stem with the gloss asked about, "
        "and such golds are dropped), and 'the shortest choice' found the gold in 0.268 of v9's "
        "test items (chance 0.200). Empty = no matching.",
    )

    def __post_init__(self) -> None:
        unknown_probes = [
            p
            for p in (
                *self.mix_by_probe,
                *self.match_gold_length,
                *self.sister_from_by_probe,
                *self.same_file,
            )
            if p not in PROBE_TYPES
        ]
        if unknown_probes:
            raise ValueError(
                "distractors.mix_by_probe / match_gold_length / sister_from_by_probe / same_file: "
                f"unknown probe {unknown_probes[0]!r}; use {PROBE_TYPES}"
            )
        if any(not isinstance(v, int) or v < 1 for v in self.sister_from_by_probe.values()):
            raise ValueError(
                "distractors.sister_from_by_probe: each value must be a whole number >= 1 "
                "(1 = siblings, 2 = cousins), e.g. {definitions: 2}"
            )
        for where, mix in [("mix", self.mix)] + [
            (f"mix_by_probe.{p}", m) for p, m in self.mix_by_probe.items()
        ]:
            unknown = [k for k in mix if k not in DISTRACTOR_TYPES]
            if unknown:
                raise ValueError(f"distractors.{where}: unknown type {unknown[0]!r}; use {DISTRACTOR_TYPES}")
            if any(v < 0 for v in mix.values()) or not sum(mix.values()):
                raise ValueError(
                    f"distractors.{where} must give a non-negative weight to each type and a positive "
                    f"weight to at least one, e.g. {{sister: 2, opposite: 1, random: 1}}"
                )
        for probe, mix in self.mix_by_probe.items():
            if mix.get("popular") and probe not in POPULAR_PROBES:
                raise ValueError(
                    f"distractors.mix_by_probe.{probe} asks for popular distractors, but only "
                    f"{' and '.join(POPULAR_PROBES)} have a popular pool; give its slots to another type"
                )
        if self.sister_depth < 1 or self.opposite_hops < 1:
            raise ValueError("distractors.sister_depth and distractors.opposite_hops must be >= 1")

    def sister_from_for(self, probe: str) -> int:
        """How far up ``probe``'s sister family starts (1 = siblings, 2 = cousins).

        Its entry in ``sister_from_by_probe``, else ``sister_from``.
        """
        return self.sister_from_by_probe.get(probe, self.sister_from)

    def mix_for(self, probe: str) -> dict[str, int]:
        """The distractor mix ``probe`` asks for: its own entry in ``mix_by_probe``, else ``mix``.

        Definitions and synonymy have no opposite pool: every ISA ancestor of the concept (its gloss
        is true of the concept) and descendant (the concept's gloss is true of it) is also a right
        answer, so their mixes give opposite no slots.
        """
        mix = self.mix_by_probe.get(probe, self.mix)
        return {k: n for k, n in mix.items() if n and not (k == "opposite" and probe in NO_OPPOSITE)}


@dataclass(frozen=True)
class ConceptSpec:
    """Which synsets questions are asked about (distractors come from all of WordNet)."""

    pos: tuple[Literal["noun", "verb"], ...] = spec_field(
        ("noun", "verb"), help="Parts of speech of the concepts: noun, verb."
    )
    roots: tuple[str, ...] = spec_field(
        (), help="Only concepts at or below these synsets (e.g. canine.n.02); empty = all."
    )
    limit: int = spec_field(
        0, help="Keep at most this many concepts, chosen by keyed hash of the seed; 0 = all."
    )


_PLACEHOLDERS = (
    "Placeholders: {word} (the word as it appears), {lemma} (its base form: 'headed' -> head), "
    "{a_word} / {A_word} (the word with its "
    "indefinite article, none for a proper noun: 'an owl', 'Deng Xiaoping'), {example}, {gloss}; a "
    "template with {example} is used only for concepts with an example sentence containing their word."
)
_WORD_FIELDS = {"word", "lemma", "a_word", "A_word"}


@dataclass(frozen=True)
class FramingSpec:
    """Question templates ("framings") per probe type."""

    definitions: tuple[str, ...] = spec_field((), help=f"Templates of definitions questions. {_PLACEHOLDERS}")
    hypernymy: tuple[str, ...] = spec_field((), help=f"Templates of hypernymy questions. {_PLACEHOLDERS}")
    hyponymy: tuple[str, ...] = spec_field((), help=f"Templates of hyponymy questions. {_PLACEHOLDERS}")
    synonymy: tuple[str, ...] = spec_field(
        (), help="Templates of synonymy questions; {gloss} only (the gold names the word)."
    )
    verb_hypernymy: tuple[str, ...] = spec_field(
        (),
        help="Hypernymy templates for verbs (troponymy: 'to whisper is a way to speak'); empty = "
        f"the hypernymy templates. {_PLACEHOLDERS}",
    )
    verb_hyponymy: tuple[str, ...] = spec_field(
        (), help=f"Hyponymy templates for verbs; empty = the hyponymy templates. {_PLACEHOLDERS}"
    )
    instance_hypernymy: tuple[str, ...] = spec_field(
        (),
        help="Hypernymy templates for named instances (Hubel, the Temple of Artemis), which are "
        "examples of a class, not kinds of it: 'Hubel is an example of'; empty = the hypernymy "
        f"templates. Hyponymy never asks for an instance ('a kind of trainer' is no person). {_PLACEHOLDERS}",
    )


@dataclass(frozen=True)
class WordNetSpec(MultipleChoiceSpec):
    """Spec of the WordNetQA family."""

    probes: tuple[Literal["definitions", "hypernymy", "hyponymy", "synonymy"], ...] = spec_field(
        PROBE_TYPES, help="Probe types to build; each becomes one config of the dataset."
    )
    concepts: ConceptSpec = spec_field(default_factory=ConceptSpec, help="Concept selection.")
    max_hops: int = spec_field(4, help="K: hypernymy and hyponymy questions for every k in 1..K.")
    perturbations: int = spec_field(
        2, help="Items per (concept, hop): the same question with different distractor sets."
    )
    choice_format: Literal["lemma_gloss", "lemma"] = spec_field(
        "lemma_gloss", help="How ISA choices are shown: 'lemma: gloss', or the lemma alone."
    )
    distractors: DistractorSpec = spec_field(default_factory=DistractorSpec, help="Distractor policy.")
    no_shared_stems: bool = spec_field(
        True,
        help="No choice shares a word stem with what the question shows of the concept (its word, "
        "example sentence or gloss): a framing whose text shares one with the gold is not used ('a "
        "domesticated canine' -> canine, 'the act of exterminating' -> extermination, 'breeds' -> "
        "breeder), and a distractor that shares one is not drawn. Stems: the first 6 letters of a "
        "word of 6+ letters, and the Snowball stems widened by WordNet's morphology, derivational "
        "links, compounds and spelling variants (probesmith.builders.morphology). Off: the "
        "question-to-choice and lexical-overlap baselines find many golds by their form.",
    )
    framings: FramingSpec = spec_field(
        default_factory=FramingSpec,
        help="Question templates per probe type, one chosen per question by the seed.",
    )
    source_dir: str = spec_field("/usr/share/wordnet", help="Folder of WordNet 3.0's files.")

    def __post_init__(self) -> None:
        if self.max_hops < 1 or self.perturbations < 1:
            raise ValueError("max_hops and perturbations must be >= 1")
        for probe in self.probes:
            if not getattr(self.framings, probe):
                raise ValueError(f"framings: no question template for probe type {probe!r}")
        for probe in (*PROBE_TYPES, "verb_hypernymy", "verb_hyponymy", "instance_hypernymy"):
            for template in getattr(self.framings, probe):
                fields = set(re.findall(r"{(\w+)}", template))
                if not fields <= {*_WORD_FIELDS, "example", "gloss"} or (
                    not fields & _WORD_FIELDS and probe != "synonymy"
                ):
                    raise ValueError(
                        f"framings.{probe}: template {template!r} must use {{word}} (or {{lemma}}, "
                        "{a_word}) and only {word}, {lemma}, {a_word}, {A_word}, {example}, {gloss}"
                    )


def _may_contain(text: str, word: str) -> bool:
    """False only where ``contains_word(text, word)`` is sure to be False: a quick test before the regex.

    For ASCII text and word (all of WordNet 3.0), a case-insensitive match is a substring of the
    lower-cased text; other text always goes on to the regex, whose Unicode case folding differs.
    """
    return not (text.isascii() and word.isascii()) or word.lower() in text.lower()


# a choice's key of text.near_duplicate, once per text (the candidates of an item are tested against each
# choice taken so far, and recur across items)
_choice_key = lru_cache(maxsize=TEXT_CACHE_SIZE)(normalize_choice.__wrapped__)


def _near_duplicate_of_any(text: str, taken_keys: set[str], taken_tokens: list[frozenset[str]]) -> bool:
    """``any(near_duplicate(text, t) for t in taken)``, from the taken texts' keys and tokens read once."""
    if _choice_key(text) in taken_keys:
        return True
    left = word_tokens(text)
    for right in taken_tokens:
        if (len(left & right) / len(left | right) if left or right else 1.0) >= NEAR_DUPLICATE_JACCARD:
            return True
    return False


@lru_cache(maxsize=1 << 16)
def _lemma_words(lemma: str) -> tuple[str, ...]:
    """A lemma's words as :meth:`_Builder.says` matches them ("spitz-like": spitz, like)."""
    return tuple(lemma.lower().replace("-", " ").split())


def with_article(word: str, capital: bool = False) -> str:
    """The word with its indefinite article ("an owl", "a unicorn"); a proper noun takes none."""
    if word[:1].isupper() and not re.fullmatch(r"[A-Z]{2,}\w*", word.split()[0]):
        return word
    return f"{indefinite_article(word, 'A' if capital else 'a')} {word}"


def _anywhere(node: int) -> bool:
    return True


class WeightedSampler:
    """Draws nodes with probability proportional to their weights (seeded by the caller's rng).

    Nodes, weights and the running sums are kept in typed arrays (4 + 8 + 8 bytes a node): the build
    holds ~2,400 samplers, one per popular pool, depth band and lexicographer file, ~160 MB as
    dicts, lists and a frozenset each. The same floats in the same order: the same draws.
    """

    __slots__ = ("nodes", "_weights", "answers", "cumulative")

    def __init__(self, weights: dict[int, float], answers: frozenset[int] | None = None):
        nodes = sorted(weights)
        self.nodes = array("i", nodes)
        self._weights = array("d", [weights[n] for n in nodes])
        # every answer of the probe and hop, also when this sampler is restricted to a depth band
        self.answers = frozenset(nodes) if answers is None else answers
        self.cumulative = array("d", itertools.accumulate(self._weights))

    def weight_of(self, node: int) -> float:
        """``node``'s weight, 0.0 where it is not in the sampler."""
        at = bisect.bisect_left(self.nodes, node)
        return self._weights[at] if at < len(self.nodes) and self.nodes[at] == node else 0.0

    def restricted(self, keep: Callable[[int], bool]) -> WeightedSampler:
        """The same distribution conditioned on ``keep`` (e.g. the gold's depth band)."""
        return WeightedSampler(
            {n: w for n, w in zip(self.nodes, self._weights, strict=True) if keep(n)}, self.answers
        )

    def __bool__(self) -> bool:
        return bool(self.nodes)

    def draw(self, rng: random.Random) -> int:
        """One node."""
        return self.nodes[bisect.bisect_right(self.cumulative, rng.random() * self.cumulative[-1])]


def _once_per_text(test: Callable[[str], bool]) -> Callable[[str], bool]:
    """``test``, a pure test of a choice text, answering each text once (the perturbations redraw them)."""
    answers: dict[str, bool] = {}

    def once(text: str) -> bool:
        found = answers.get(text)
        if found is None:
            found = answers[text] = test(text)
        return found

    return once


class _Decided:
    """One concept's per-candidate decisions, made once however often its items draw the candidate.

    The perturbations of an item draw from the same pools, and the hops of hypernymy and hyponymy
    share the concept's pools: the same candidate comes back. Each decision is a pure function of
    its key (the arguments it was computed from), so a stored answer is the answer computing it
    again would give; only the work is saved. Kept for one concept (:meth:`_Builder.items_for`).
    """

    __slots__ = ("_reasons", "_labels")

    def __init__(self) -> None:
        self._reasons: dict[tuple, str | None] = {}
        self._labels: dict[tuple[str, str], frozenset[str]] = {}

    def reason(
        self, answers: SecondAnswers, probe: str, asked: tuple[int, int], node: int, text: str
    ) -> str | None:
        """``answers.reason(probe, concept, gold, node, shown_words(probe, text))``, once per key."""
        key = (probe, asked, node, text)
        try:
            return self._reasons[key]
        except KeyError:
            found = self._reasons[key] = answers.reason(
                probe, asked[0], asked[1], node, shown_words(probe, text)
            )
            return found

    def labels(self, probe: str, text: str) -> frozenset[str]:
        """:func:`choice_labels` of ``text``, once per (probe, text)."""
        key = (probe, text)
        found = self._labels.get(key)
        if found is None:
            found = self._labels[key] = choice_labels(probe, text)
        return found


class _Builder:
    """Generates the items of one WordNetQA spec over one WordNet graph."""

    def __init__(self, spec: WordNetSpec, graph: WordNetGraph, reader=None):
        self.spec = spec
        self.g = graph
        self.reader = reader
        # not cached here: only _token_forms (cached per token) asks it (a cache had no hit in 16k concepts)
        self.morphy = reader.morphy if reader else None
        # what `says` reads of a text, once per text (choices and questions recur across items)
        self._tokens = lru_cache(maxsize=WORD_CACHE_SIZE)(self._tokens_uncached)
        self._token_forms = lru_cache(maxsize=WORD_CACHE_SIZE)(self._token_forms_uncached)
        self._text_forms = lru_cache(maxsize=TEXT_CACHE_SIZE)(self._text_forms_uncached)
        self.stems = StemAnalyser(reader) if reader else None
        self.second_answers = SecondAnswers(graph, self.stems)
        self.d = spec.distractors
        # each synset's lexicographer file ("noun.animal"), read where a probe draws from the gold's
        self.files: list[str] | None = (
            [reader.synset(name).lexname() for name in graph.names] if reader and self.d.same_file else None
        )
        self.file_sizes = Counter(self.files or ())
        self._file_share = lru_cache(maxsize=1 << 12)(self._file_share_uncached)
        # stratum (probe, hops, gold frequency class) -> distractor slots delivered so far by mix type
        self.slots_delivered: dict[tuple, Counter] = defaultdict(Counter)
        # the (probe, hops) units items_for makes: all of the spec's, or in a worker process its share
        self.units: frozenset[tuple[str, int]] | None = None
        self.dropped: Counter = Counter()
        self._sister_family = lru_cache(maxsize=50_000)(self._sister_family_uncached)
        self._below = lru_cache(maxsize=1 << 15)(self._below_uncached)
        self._cousins = lru_cache(maxsize=1 << 14)(self._cousins_uncached)
        self.popular: dict[tuple[str, int, str], WeightedSampler] = {}
        self.depth = graph.depths()
        self._by_depth_cache: dict[WeightedSampler, dict[int, list[int]]] = {}
        self._popular_band_cache: dict[tuple, WeightedSampler] = {}
        self._band_cache: dict[tuple, tuple[list[int], Callable[[int], bool]]] = {}
        self._definable: dict[str, list[int]] = {}
        # could_be_gold's stems of a concept's shown words and of a candidate gold, asked for every
        # concept and hop: bounded like the synset caches (a dict of every synset's held ~140 MB)
        self._shown_stems = lru_cache(maxsize=SYNSET_CACHE_SIZE)(self._shown_stems_uncached)
        self._choice_stems = lru_cache(maxsize=SYNSET_CACHE_SIZE)(self._choice_stems_uncached)
        self.by_pos_depth: dict[tuple[str, int], list[int]] = defaultdict(list)
        for node, depth in enumerate(self.depth):
            self.by_pos_depth[(graph.pos[node], depth)].append(node)

    def release_caches(self) -> None:
        """Empty the generation's own caches (hundreds of MB on the default build) once items are made.

        The build's garbage collector is paused (``probesmith.builders.batch``), so the builder,
        which its cached methods keep alive in a reference cycle, would hold them through the
        validity report. :attr:`stems` keeps its caches: the item checks read them (:attr:`second_answers`
        is emptied once the items' decided keys are taken, :func:`_generate_wordnet`).
        """
        for cached in (self._tokens, self._token_forms, self._text_forms, self._sister_family):
            cached.cache_clear()
        for cached in (self._below, self._cousins):
            cached.cache_clear()
        for table in (self._band_cache, self._popular_band_cache, self._by_depth_cache):
            table.clear()
        self._shown_stems.cache_clear()
        self._choice_stems.cache_clear()
        # the text module's caches the concept loop filled (every candidate's tokens and long stems);
        # the item checks do not read them
        for cached in (_choice_key, word_tokens, long_word_stems):
            cached.cache_clear()
        return_freed_memory()  # what the caches held, back to the system before the tables are made

    def file_of(self, probe: str, concept: int, gold: int) -> str | None:
        """The gold's lexicographer file where ``probe`` draws distractors from it (``same_file``).

        None (any file) where the concept asked about is broad for that file: its descendants are
        :data:`BROAD_CONCEPT_SHARE` or more of the file's synsets ("a kind of possession" and
        noun.possession, "a kind of animal" and noun.animal). The file then is what the concept
        means, and a synset of it WordNet does not put under the concept still reads as a kind of
        it (the v14 read: "currency" for "a kind of possession").
        """
        if self.files is None or probe not in self.d.same_file:
            return None
        file = self.files[gold]
        return None if self._file_share(concept, file) >= BROAD_CONCEPT_SHARE else file

    def _file_share_uncached(self, concept: int, file: str) -> float:
        files = self.files
        below = sum(1 for node in self.g.all_descendants(concept) if files[node] == file)
        return below / self.file_sizes[file]

    def in_file(self, probe: str, gold: int, pool: list[int]) -> tuple[list[int], Callable[[int], bool]]:
        """Random candidates of a definitions or synonymy item: ``pool`` (a list the builder keeps).

        Where ``probe`` draws from the gold's lexicographer file (``same_file``), only the pool's
        synsets in that file (all of it where it has none).
        """
        return self._pool_in_file(pool, _anywhere, self.file_of(probe, gold, gold))

    def band(
        self, gold: int, answers: WeightedSampler | list, file: str | None = None
    ) -> tuple[list[int], Callable[[int], bool]]:
        """Random candidates for an ISA item, and the test that a node lies in the gold's depth band.

        With ``random_from_answers`` the candidates are the synsets that are answers of this probe
        and hop (so every choice is the answer of some item), else every synset; either way only
        those within ``depth_band`` levels of the gold's depth, and with ``file`` only those of that
        lexicographer file (all files where it has none).
        """
        pool, in_band = self._band(gold, answers)
        # without a depth band the pool is built per item: not cached
        return self._pool_in_file(pool, in_band, file, cache=self.d.depth_band is not None)

    def _pool_in_file(
        self, pool: list[int], in_band: Callable[[int], bool], file: str | None, cache: bool = True
    ) -> tuple[list[int], Callable[[int], bool]]:
        """``pool`` and ``in_band`` restricted to the lexicographer file ``file``.

        Unrestricted where ``file`` is None or none of the pool lies in it; cached by the pool and the
        test, which the builder keeps for the build.
        """
        if file is None or self.files is None:
            return pool, in_band
        key = ("file", id(pool), id(in_band), file)
        if cache and key in self._band_cache:
            return self._band_cache[key]
        files = self.files
        in_file = [n for n in pool if files[n] == file]
        found = (in_file, lambda node: files[node] == file and in_band(node)) if in_file else (pool, in_band)
        if cache:
            self._band_cache[key] = found
        return found

    def _band(self, gold: int, answers: WeightedSampler | list) -> tuple[list[int], Callable[[int], bool]]:
        band = self.d.depth_band
        pos = self.g.pos[gold]
        if band is None:
            pool = list(answers.nodes) if self.d.random_from_answers and answers else self.g.by_pos[pos]
            return pool or self.g.by_pos[pos], lambda node: True
        low, high = self.depth[gold] - band, self.depth[gold] + band
        from_answers = answers if self.d.random_from_answers and answers else None
        key = (from_answers, pos, low, high)  # many golds share a band: the same pool, built once
        if key not in self._band_cache:
            by_depth = self._answers_by_depth(from_answers) if from_answers is not None else None
            by_pos_depth = self.by_pos_depth
            pool = [
                n
                for d in range(max(0, low), high + 1)
                for n in (by_depth.get(d, ()) if by_depth is not None else by_pos_depth.get((pos, d), ()))
            ]
            depth = self.depth
            self._band_cache[key] = (pool or self.g.by_pos[pos], lambda node: low <= depth[node] <= high)
        return self._band_cache[key]

    def definable(self, pos: str) -> list[int]:
        """The synsets of ``pos`` that could be definitions golds: an example sentence contains their word."""
        if pos not in self._definable:
            self._definable[pos] = [
                n
                for n in self.g.by_pos[pos]
                if find_in_examples(self.g.lemmas[n], self.g.examples[n]) is not None
            ] or self.g.by_pos[pos]
        return self._definable[pos]

    def popular_near(
        self, key: tuple[str, int, str], gold: int, file: str | None = None
    ) -> WeightedSampler | list:
        """The popular distractors of ``key`` (probe, hop, pos) conditioned on the gold's depth band.

        Drawing from the whole distribution and rejecting what lies outside the band starved items
        whose gold sits at a rare depth; conditioning draws as often as before within the band.
        With ``file`` (:meth:`file_of`), only its synsets (the band's where it has none).
        """
        sampler = self.popular.get(key)
        if not sampler or self.d.depth_band is None:
            return sampler or []
        low, high = self.depth[gold] - self.d.depth_band, self.depth[gold] + self.d.depth_band
        cache_key = (key, low, high)
        if cache_key not in self._popular_band_cache:
            self._popular_band_cache[cache_key] = sampler.restricted(
                lambda node: low <= self.depth[node] <= high
            )
        in_band = self._popular_band_cache[cache_key]
        if file is None or not in_band:
            return in_band
        if (cache_key, file) not in self._popular_band_cache:
            files = self.files
            in_file = in_band.restricted(lambda node: files[node] == file)
            self._popular_band_cache[(cache_key, file)] = in_file or in_band
        return self._popular_band_cache[(cache_key, file)]

    def _answers_by_depth(self, answers: WeightedSampler) -> dict[int, list[int]]:
        """The answers of one probe and hop grouped by depth (computed once per sampler)."""
        if answers not in self._by_depth_cache:
            grouped: dict[int, list[int]] = defaultdict(list)
            for node in answers.nodes:
                grouped[self.depth[node]].append(node)
            self._by_depth_cache[answers] = grouped
        return self._by_depth_cache[answers]

    # ---- concept selection -------------------------------------------------------------
    def concepts(self) -> list[int]:
        selected = [i for pos in self.spec.concepts.pos for i in self.g.by_pos.get(pos, [])]
        if self.spec.concepts.roots:
            allowed: set[int] = set()
            for root in self.spec.concepts.roots:
                if root not in self.g.index:
                    raise SpecError(
                        f"concepts.roots: {root!r} is not a WordNet synset of the selected parts "
                        "of speech; use a synset name such as 'canine.n.02'."
                    )
                node = self.g.index[root]
                allowed |= {node} | self.g.all_descendants(node)
            selected = [i for i in selected if i in allowed]
        if self.spec.concepts.limit:
            selected = sorted(selected, key=lambda i: stable_hash(self.spec.seed, self.g.names[i]))
            selected = sorted(selected[: self.spec.concepts.limit])
        return selected

    # ---- distractor pools ---------------------------------------------------------------
    def prepare_popular(self, concepts: list[int]) -> None:
        """Weights of "popular" distractors: how often each synset is the gold of a question.

        The gold of a hypernymy question at hop k is drawn uniformly from the concept's k-hop
        ancestors, so a synset's expected count as gold is the sum of 1/|A_k(c)| over the
        concepts c it is a k-hop ancestor of (likewise for hyponymy, with descendants). Drawing
        distractors from the same distribution makes "the answer is a frequent answer" useless.
        Only the synsets that can be the concept's gold count (:meth:`could_be_gold`), so the
        weights follow the golds the build asks for, not every synset k hops away.
        """
        weights: dict[tuple[str, int, str], Counter] = {}
        wanted = {"hypernymy": self.g.ancestors_by_hops, "hyponymy": self.g.descendants_by_hops}
        for probe, levels_of in wanted.items():
            if probe not in self.spec.probes:
                continue
            for c in concepts:
                for k, level in enumerate(levels_of(c, self.spec.max_hops)[1:], 1):
                    if not level:
                        break
                    golds = [node for node in level if self.could_be_gold(probe, c, node)]
                    counter = weights.setdefault((probe, k, self.g.pos[c]), Counter())
                    for node in golds:
                        counter[node] += 1.0 / len(golds)
        self.popular = {key: WeightedSampler(dict(counter)) for key, counter in weights.items()}

    def could_be_gold(self, probe: str, c: int, node: int) -> bool:
        """Whether ``node`` may be the gold of a ``probe`` item about ``c``.

        Not a named instance for hyponymy (no instance is a kind of anything), and with
        ``no_shared_stems`` no WordNet-widened stem shared with the word asked about (every framing
        shows it) or, for a concept without an example sentence, with its gloss (every framing
        then shows that too): such a gold would give itself away.
        """
        if probe == "hyponymy" and self.g.instance[node]:
            return False
        if not (self.stems and self.spec.no_shared_stems):
            return True
        return self._shown_stems(c).isdisjoint(self._choice_stems(node))

    def _shown_stems_uncached(self, c: int) -> frozenset[str]:
        """The stems every framing of ``c`` shows: its lemmas, and its gloss where no example has its word."""
        shown = " ".join(self.g.lemmas[c])
        if find_in_examples(self.g.lemmas[c], self.g.examples[c]) is None:
            shown += " " + self.g.glosses[c]
        return self.stems.text_stems(shown)

    def _choice_stems_uncached(self, node: int) -> frozenset[str]:
        return self.stems.text_stems(self.isa_text(node))

    def not_random(self, probe: str, concept: int) -> set[int]:
        """What ``probe`` never draws as a random distractor of ``concept``.

        The concept itself, and where the probe's sisters are cousins (``sister_from_for(probe) > 1``)
        its siblings too, so that no sibling comes in by another door.
        """
        if self.d.sister_from_for(probe) > 1:
            return {concept} | self._siblings(concept)
        return {concept}

    def _cousins_uncached(self, parents: frozenset[int], up: int) -> tuple[int, ...]:
        """The first level (``up`` > 1) of the sister family of a synset with direct hypernyms ``parents``.

        The synsets ``up`` hops below its ancestors ``up`` hops up, less any that shares a direct
        hypernym with it (the synset itself among them) and its ancestors, sorted: all of which
        depend on its direct hypernyms only, so siblings share one computation.
        """
        top = set(parents)  # the ancestors 1 hop up; then `up` - 1 more hops
        for _ in range(up - 1):
            top = {m for n in top for m in self.g.parents[n]}
        node_parents = self.g.parents
        cousins = {
            n for n in set().union(*(self._below(t, up) for t in top)) if parents.isdisjoint(node_parents[n])
        }
        ancestors = set().union(*(self.g.all_ancestors(p) for p in parents), parents)
        return tuple(sorted(cousins - ancestors))

    def _below_uncached(self, node: int, hops: int) -> frozenset[int]:
        """The synsets exactly ``hops`` ISA hops below ``node`` on some path (a cousin family's pool)."""
        return frozenset(self.g.descendants_by_hops(node, hops)[hops])

    def _siblings(self, node: int) -> set[int]:
        """The synsets that share a direct hypernym with ``node`` (not ``node`` itself)."""
        return {m for p in self.g.parents[node] for m in self.g.children[p]} - {node}

    def _sister_family_uncached(self, anchor: int, up: int) -> NodePairs:
        # the nodes `up` hops below the anchor's ancestors `up` hops up: siblings (1), cousins (2),
        # ...; never the anchor, its ancestors, or (beyond 1) a sibling of it
        node_parents = self.g.parents
        if up > 1:  # the cousins: the same for every synset with these direct hypernyms
            parents = frozenset(node_parents[anchor])
            level = list(self._cousins(parents, up))
        else:
            top = self.g.ancestors_by_hops(anchor, up)[up]
            level = sorted(set().union(*(self._below(t, up) for t in top)) - {anchor})
        members: list[tuple[int, int]] = []
        rng = random.Random(stable_hash(self.spec.seed, "family", anchor))
        for depth in range(1, self.d.sister_depth + 1):
            if up > 1 and depth > 1:  # nor, through a second parent, a child of a cousin that is a sibling
                level = [n for n in level if n != anchor and parents.isdisjoint(node_parents[n])]
            if len(level) > _FAMILY_LEVEL_CAP:
                level = sorted(rng.sample(level, _FAMILY_LEVEL_CAP))
            members.extend((n, depth) for n in level)
            level = sorted({c for n in level for c in self.g.children[n]})
            if not level:
                break
        return NodePairs(members)  # (node, depth) pairs: 5 bytes each in the cache, not 56

    def _isa_pool(self, node: int, direction: str) -> list[tuple[int, int, str]]:
        levels = (
            self.g.ancestors_by_hops(node, self.d.opposite_hops)
            if direction == "up"
            else self.g.descendants_by_hops(node, self.d.opposite_hops)
        )
        kind = f"isa_{direction}"
        seen: set[int] = set()
        pool = []
        for hops, level in enumerate(levels[1:], 1):
            for n in sorted(level - seen):
                pool.append((n, hops, kind))
            seen |= level
        return pool

    def pick_distractors(
        self,
        probe: str,
        stratum: tuple,
        rng: random.Random,
        pools: dict[str, list[tuple[int, int | None, str]] | WeightedSampler],
        pos: str,
        invalid: set[int],
        render,
        taken_texts: list[str],
        is_valid_text=lambda text: True,
        band: tuple[list[int], Callable[[int], bool]] | None = None,
        asked: tuple[int, int] | None = None,
        decided: _Decided | None = None,
    ) -> list[DraftChoice] | None:
        """The distractors of one item of ``probe``, or None when too few valid ones exist.

        Each slot goes to the type of the probe's mix furthest behind its share of the slots
        delivered so far in the item's ``stratum`` (in concept order, so a build is deterministic):
        a leaf concept without hyponyms gives its opposite slot to the next type, and the next
        concept of the stratum that has hyponyms takes one more. A type whose pool is spent for
        this item is skipped; random fills what no asked type can. Strata are what items are later
        dropped by (hop, and how often the gold is a gold), so the mix survives the dropping.

        With ``asked`` (the concept asked about, the gold), a candidate WordNet says is also right
        (:class:`SecondAnswers`) or that shows a lemma another choice shows is refused, and counted.
        ``decided``: the concept's per-candidate decisions so far (:class:`_Decided`), read instead of
        deciding a candidate again when another perturbation or hop draws it.
        """
        if decided is None:
            decided = _Decided()
        chosen: list[DraftChoice] = []
        used: set[int] = set()
        refused: set[int] = set()
        taken_labels = set().union(*(decided.labels(probe, text) for text in taken_texts))
        taken_keys = {_choice_key(text) for text in taken_texts}
        taken_tokens = [word_tokens(text) for text in taken_texts]
        random_pool, in_band = band or (self.g.by_pos[pos], lambda node: True)
        popular = pools.get("popular")
        answers = (
            popular.answers
            if self.d.random_from_answers and isinstance(popular, WeightedSampler)
            else frozenset()
        )

        def refuse(node: int, reason: str) -> bool:
            refused.add(node)
            self.dropped[f"{probe}: distractor refused as also right ({SECOND_ANSWER_REASONS[reason]})"] += 1
            return False

        def accept(node: int, hops: int | None, kind: str) -> bool:
            if node in invalid or node in used or node in refused:
                return False
            if kind in ("popular", "random") and not in_band(node):
                return False
            if probe == "hyponymy" and self.g.instance[node]:  # never a gold either: no cue
                return False
            text = render(node)
            if asked and (reason := decided.reason(self.second_answers, probe, asked, node, text)):
                return refuse(node, reason)
            if _near_duplicate_of_any(text, taken_keys, taken_tokens) or not is_valid_text(text):
                return False
            labels = decided.labels(probe, text)
            if labels & taken_labels:
                return refuse(node, "same_label")
            used.add(node)
            taken_labels.update(labels)
            taken_texts.append(text)
            taken_keys.add(_choice_key(text))
            taken_tokens.append(word_tokens(text))
            chosen.append(DraftChoice(text, self.g.names[node], kind, hops))
            return True

        # match_gold_length: the gold's length rank among the choices is drawn uniformly (0 = the
        # shortest), and distractors that put it there are tried first, so no length is a cue
        match_length = probe in self.d.match_gold_length
        gold_length = len(taken_texts[0]) if taken_texts else 0
        shorter_left = rng.randrange(self.d.count + 1) if match_length else 0
        wanted = {"shorter": shorter_left, "not_shorter": self.d.count - shorter_left}  # distractors

        def side(text: str) -> str:
            return "shorter" if len(text) < gold_length else "not_shorter"

        def fits(node: int) -> bool:  # a tie with the gold fits neither side: it shares the rank
            length = len(render(node))
            return length != gold_length and wanted[side(render(node))] > 0

        def accept_fitting(node: int, hops: int | None, kind: str) -> bool:
            if not accept(node, hops, kind):
                return False
            if match_length:
                wanted[side(chosen[-1].text)] -= 1
            return True

        def shuffle(candidates: list) -> None:
            random_draws.shuffle(rng, candidates)

        def listed(kind: str) -> list:
            candidates = list(pools.get(kind, []))
            shuffle(candidates)  # rng.shuffle's permutation and state, drawn in batches
            if answers:  # sisters and opposite hops that are answers elsewhere come first (stable)
                return [c for c in candidates if c[0] in answers] + [
                    c for c in candidates if c[0] not in answers
                ]
            return candidates

        remaining: dict[str, list] = {}

        def fill_listed(kind: str) -> bool:
            # a candidate tried once is dropped (what refuses it never changes); with
            # match_length, those that fit the gold's drawn rank are tried first
            candidates = remaining.get(kind)
            if candidates is None:
                candidates = remaining[kind] = listed(kind)
            else:  # the pool is shuffled again and the shuffle unused, as ever: only its draws are made
                random_draws.advance_as_shuffle(rng, len(pools.get(kind, ())))
            for wanting_fit in (True, False) if match_length else (False,):
                keep, found = [], False
                for at, candidate in enumerate(candidates):
                    if wanting_fit and not fits(candidate[0]):
                        keep.append(candidate)
                    elif accept_fitting(*candidate):
                        found = True
                        keep += candidates[at + 1 :]  # not tried: all kept, in order
                        break
                candidates = remaining[kind] = keep
                if found:
                    return True
            return False

        def fill_one(kind: str) -> bool:
            pool = pools.get(kind, [])
            if kind == "random":
                if match_length:
                    for _ in range(_RANDOM_TRIES):
                        node = rng.choice(random_pool)
                        if fits(node) and accept_fitting(node, None, "random"):
                            return True
                return any(
                    accept_fitting(rng.choice(random_pool), None, "random") for _ in range(_RANDOM_TRIES)
                )
            if isinstance(pool, WeightedSampler):
                return bool(pool) and any(accept(pool.draw(rng), None, kind) for _ in range(_RANDOM_TRIES))
            return fill_listed(kind)

        mix = self.d.mix_for(probe)
        total = sum(mix.values())
        delivered = self.slots_delivered[stratum]
        here: Counter = Counter()
        spent: set[str] = set()
        while len(chosen) < self.d.count:
            slots = delivered.total() + here.total() + 1
            open_kinds = [kind for kind in mix if kind not in spent]
            if not open_kinds:  # no asked type has anything left for this item: random fills
                if "random" in spent or not fill_one("random"):
                    return None
                here["random"] += 1
                continue
            kind = max(open_kinds, key=lambda k: mix[k] * slots / total - delivered[k] - here[k])
            if fill_one(kind):
                here[kind] += 1
            else:
                spent.add(kind)
        delivered.update(here)
        return chosen

    # ---- rendering -------------------------------------------------------------------------
    def isa_text(self, node: int, lemma: str | None = None) -> str:
        lemma = lemma or self.g.lemmas[node][0]
        return f"{lemma}: {self.g.glosses[node]}" if self.spec.choice_format == "lemma_gloss" else lemma

    def says(self, text: str, lemma: str) -> bool:
        """Whether ``text`` uses ``lemma``, as written or inflected.

        Inflected: a form WordNet's own morphology (``morphy``) reduces to it ("flatworms" ->
        flatworm, "Soviet space stations" -> space station); regular inflections only when no
        morphology is given.
        """
        if _may_contain(text, lemma) and contains_word(text, lemma):
            return True
        if self.morphy is None:
            return mentions_word(text, lemma)
        words = _lemma_words(lemma)
        if len(words) == 1:  # most lemmas: one word, any token or a base form of one
            return words[0] in self._text_forms(text)
        tokens = self._tokens(text)
        n = len(words)
        for i in range(len(tokens) - n + 1):
            if tokens[i : i + n - 1] != words[:-1]:
                continue
            if words[-1] in self._token_forms(tokens[i + n - 1]):
                return True
        return False

    def _tokens_uncached(self, text: str) -> tuple[str, ...]:
        """A text's word tokens, lower-cased ("spitz-like": spitz, like)."""
        # interned: the cached token tuples and token forms of ~100k texts share one string per word
        return tuple(sys.intern(t.lower()) for t in re.findall(r"[A-Za-z][A-Za-z']*", text))

    def _token_forms_uncached(self, token: str) -> frozenset[str | None]:
        """A token and its base forms by WordNet's morphology (noun and verb; None where it has none)."""
        return frozenset((token, self.morphy(token, "n"), self.morphy(token, "v")))

    def _text_forms_uncached(self, text: str) -> frozenset[str | None]:
        """Every token of a text and their base forms: what :meth:`says` matches a one-word lemma with."""
        return frozenset().union(*(self._token_forms(t) for t in self._tokens(text)))

    def lemmas_text(self, node: int) -> str:
        return ", ".join(self.g.lemmas[node])

    # ---- items -------------------------------------------------------------------------------
    def framing_order(
        self, probe: str, key: tuple, has_example: bool, pos: str = "n", instance: bool = False
    ) -> list[tuple[str, str]]:
        """The probe's templates for a concept of part of speech ``pos``, in seeded order.

        Verbs take the ``verb_`` templates and named instances the ``instance_`` ones where the
        spec has them (framing ids ``<probe>-v<i>`` and ``<probe>-i<i>``).
        """
        framings = self.spec.framings
        verb_templates = getattr(framings, f"verb_{probe}", ()) if pos in ("v", "verb") else ()
        instance_templates = getattr(framings, f"instance_{probe}", ()) if instance else ()
        prefix, templates = (
            (f"{probe}-i", instance_templates)
            if instance_templates
            else (f"{probe}-v", verb_templates)
            if verb_templates
            else (f"{probe}-", None)
        )
        templates = [
            (f"{prefix}{i}", t)
            for i, t in enumerate(templates or getattr(self.spec.framings, probe))
            if has_example or "{example}" not in t
        ]
        item_rng(self.spec.seed, "framing", *key).shuffle(templates)
        return templates

    def asks(self, probe: str, hops: int | None = None) -> bool:
        """Whether :meth:`items_for` makes ``probe``'s items (at ``hops``; None: at any hop)."""
        if probe not in self.spec.probes:
            return False
        if self.units is None:
            return True
        return any(p == probe and (hops is None or k == hops) for p, k in self.units)

    def items_for(self, c: int) -> dict[str, list[DraftItem]]:
        g, spec = self.g, self.spec
        context = find_in_examples(g.lemmas[c], g.examples[c])
        word = context[1] if context else g.lemmas[c][0]
        lemma = next((x for x in g.lemmas[c] if x.lower() == word.lower() or self.says(word, x)), word)
        if word[:1].isupper() and word[1:] == word[1:].lower() and lemma[:1].islower():
            # the example capitalises the word (a sentence's first word, a proper name: "Modern
            # Language Association"); the question shows the lemma's case: "a kind of association"
            word = word[:1].lower() + word[1:]
        first = g.lemmas[c][0]
        # the question quotes the example and the gloss in double quotes: quotes inside them single
        gloss = g.glosses[c].replace('"', "'")
        example = context[0].replace('"', "'") if context else ""
        in_context = {"word": word, "lemma": lemma, "example": example, "gloss": gloss}
        out_of_context = {"word": first, "lemma": first, "example": "", "gloss": gloss}
        for fields in (in_context, out_of_context):
            fields["a_word"] = with_article(fields["word"])
            fields["A_word"] = with_article(fields["word"], capital=True)
        name, pos = g.names[c], g.pos[c]
        out: dict[str, list[DraftItem]] = {}
        decided = _Decided()  # what is decided of a candidate, for every item of this concept

        def make(probe, hops, gold_node, gold_text_for, pools, invalid, render, valid_text=None, band=None):
            # the first framing (in seeded order) whose question leaves the gold's word unsaid
            def fill(template: str) -> dict[str, str]:
                return in_context if "{example}" in template else out_of_context

            def shown(template: str) -> str:
                # what the question shows of the concept, not the template's words
                fields = fill(template)
                names = {f for _, f, _, _ in string.Formatter().parse(template) if f}
                return " ".join(fields[f] for f in sorted(names) if f in fields)

            def gives_away(text: str, gold_text: str) -> bool:
                # the gold's name is also matched on particles and light verbs ("smoke out" /
                # "rout out", "to like something" / liking, "down of the swan" / down feather)
                # (definitions' golds are glosses: no name)
                label = gold_text.split(": ", 1)[0] if probe in LABEL_PROBES else ""
                return bool(
                    self.stems
                    and (
                        self.stems.shares_any(text, gold_text)
                        or self.stems.label_stems(text) & self.stems.label_stems(label)
                    )
                )

            found, unsaid, given_away = None, False, False
            instance = probe == "hypernymy" and g.instance[c]
            order = self.framing_order(probe, (name, hops), context is not None, pos, instance)
            for framing, template in order:
                question = template.format(**fill(template))
                gold_text = gold_text_for(question)
                if gold_text is None:
                    continue
                unsaid, stems = True, long_word_stems(shown(template))
                if spec.no_shared_stems and stems & long_word_stems(gold_text):
                    continue
                if spec.no_shared_stems and gives_away(shown(template), gold_text):
                    given_away = True
                    continue
                found = (framing, question, gold_text, stems, shown(template))
                break
            if found is None:
                reason = (
                    f"in every framing, {GIVEN_AWAY}"
                    if given_away
                    else "the gold shares a word stem with every framing"
                    if unsaid
                    else "gold names a word in the question"
                )
                self.dropped[f"{probe}: {reason}"] += 1
                return
            framing, question, gold_text, question_stems, shown_text = found
            is_valid = valid_text or (lambda t: True)
            if spec.no_shared_stems:
                base_valid = is_valid
                shown_stems = self.stems.text_stems(shown_text) if self.stems else frozenset()

                def is_valid(text: str) -> bool:
                    if question_stems & long_word_stems(text):
                        return False
                    return not (self.stems and shown_stems & self.stems.text_stems(text)) and base_valid(text)

            valid_once = _once_per_text(is_valid)
            popular = pools.get("popular")
            expected_gold_uses = popular.weight_of(gold_node) if isinstance(popular, WeightedSampler) else 0
            stratum = (probe, hops, min(8, int(math.log2(1 + expected_gold_uses))))
            for p in range(spec.perturbations):
                rng = item_rng(spec.seed, probe, name, hops, p)
                taken = [gold_text]
                picked = self.pick_distractors(
                    probe,
                    stratum,
                    rng,
                    pools,
                    pos,
                    invalid,
                    render,
                    taken,
                    valid_once,
                    band,
                    (c, gold_node),
                    decided,
                )
                if picked is None:
                    self.dropped[f"{probe}: too few valid distractors"] += 1
                    continue
                out.setdefault(probe, []).append(
                    DraftItem(
                        id=f"{probe}:{name}:{hops}:{p}",
                        probe=probe,
                        question=question,
                        gold=DraftChoice(gold_text, g.names[gold_node], "gold", hops),
                        distractors=picked,
                        cluster=f"wn:{name}",
                        concept=name,
                        hops=hops,
                        pos=pos,
                        framing=framing,
                        perturbation=p,
                        source="wordnet-3.0",
                    )
                )

        neighbours: list = []  # definitions and synonymy: every ISA relative of c is also right

        def sisters_of_c(probe: str) -> list[tuple[int, int, str]]:
            return [(n, d, "sister") for n, d in self._sister_family(c, self.d.sister_from_for(probe))]

        if self.asks("definitions", 0):
            if context is None:
                self.dropped["definitions: no example sentence contains the word"] += 1
            else:
                asked = {word, *(x for x in g.lemmas[c] if self.says(word, x))}

                def names_word(text: str) -> bool:
                    return any(self.says(text, x) for x in asked)

                gloss = g.glosses[c]
                if names_word(gloss):
                    self.dropped["definitions: gloss contains the word"] += 1
                else:
                    # the same rule for every choice: a distractor naming the word ("a common stock
                    # of a nationally known company") would be eliminated on sight
                    make(
                        "definitions",
                        0,
                        c,
                        lambda q: gloss,
                        {"sister": sisters_of_c("definitions"), "opposite": neighbours},
                        self.not_random("definitions", c),
                        lambda n: g.glosses[n],
                        lambda t: normalize_choice(t) != normalize_choice(gloss) and not names_word(t),
                        band=self.in_file(
                            "definitions",
                            c,
                            self.definable(pos)
                            if spec.distractors.definitions_random_from_golds
                            else g.by_pos[pos],
                        ),
                    )
        if self.asks("synonymy", 0):
            own = {lemma.lower() for lemma in g.lemmas[c]}
            make(
                "synonymy",
                0,
                c,
                lambda q: None if any(self.says(q, x) for x in g.lemmas[c]) else self.lemmas_text(c),
                {"sister": sisters_of_c("synonymy"), "opposite": neighbours},
                self.not_random("synonymy", c),
                self.lemmas_text,
                lambda t: not own & {x.strip().lower() for x in t.split(",")},
                band=self.in_file("synonymy", c, g.by_pos[pos]),
            )
        # hypernymy and hyponymy: no choice names the word asked about ("puppy: a young dog" as the
        # kind of dog to find), or the gold could be picked, or a distractor ruled out, on sight
        asked_words = tuple(g.lemmas[c])
        named_in: dict[str, bool] = {}  # a candidate text recurs across the hops and perturbations

        def names_asked(text: str) -> bool:
            found = named_in.get(text)
            if found is None:
                found = named_in[text] = any(self.says(text, x) for x in asked_words)
            return found

        def pick_gold(probe: str, k: int, level: set[int]) -> int | None:
            options = sorted(level)
            item_rng(spec.seed, "gold", probe, name, k).shuffle(options)
            options = [node for node in options if self.could_be_gold(probe, c, node)]
            if not options:
                self.dropped[
                    f"{probe}: every concept {k} hops away is a named instance (hyponymy) or shares a "
                    "word stem with the word asked about"
                ] += 1
                return None
            for node in options:
                if any(not names_asked(self.isa_text(node, lemma)) for lemma in g.lemmas[node]):
                    return node
            self.dropped[f"{probe}: every concept {k} hops away names the word asked about"] += 1
            return None

        def ask_isa(probe: str, levels: list[set[int]], invalid: set[int], opposite, sisters_of) -> None:
            # one item per hop k: a concept k ISA hops away is the gold. A pool the probe's mix gives
            # no slot is never read (pick_distractors fills only the mix's types and random): not built
            mix = self.d.mix_for(probe)
            for k in range(1, spec.max_hops + 1):
                if not levels[k]:
                    break
                if not self.asks(probe, k):
                    continue
                gold = pick_gold(probe, k, levels[k])
                if gold is None:
                    continue
                file = self.file_of(probe, c, gold)
                make(
                    probe,
                    k,
                    gold,
                    self._gold_isa_text(gold, names_asked),
                    {
                        "sister": sisters_of(gold) if "sister" in mix else [],
                        "opposite": opposite() if "opposite" in mix else [],
                        "popular": self.popular_near((probe, k, pos), gold, file),
                    },
                    invalid,
                    self.isa_text,
                    lambda t: not names_asked(t),
                    band=self.band(gold, self.popular.get((probe, k, pos), []), file),
                )

        if self.asks("hypernymy"):  # sisters of the gold; the concept's hyponyms are wrong
            ask_isa(
                "hypernymy",
                g.ancestors_by_hops(c, spec.max_hops),
                {c} | g.all_ancestors(c),
                lru_cache(maxsize=1)(lambda: self._isa_pool(c, "down")),
                lambda gold: [
                    (n, d, "sister")
                    for n, d in self._sister_family(gold, self.d.sister_from_for("hypernymy"))
                ],
            )
        if self.asks("hyponymy"):  # sisters of the concept; its hypernyms are wrong
            # the concept's parent family is refused whole (parent_family): siblings never pass, so
            # the default mix has no sister slot; cousins (`sister_from: 2`) may
            levels = g.descendants_by_hops(c, spec.max_hops)
            if levels[1]:
                ask_isa(
                    "hyponymy",
                    levels,
                    {c} | g.all_descendants(c),
                    lru_cache(maxsize=1)(lambda: self._isa_pool(c, "up")),
                    lambda gold: sisters_of_c("hyponymy"),
                )
        return out

    def _gold_isa_text(self, gold: int, names_asked: Callable[[str], bool]):
        """The gold's choice text, given the question; None when no lemma of the gold will do.

        The first of the gold's lemmas that the question does not say and whose choice text does not
        say the word asked about.
        """

        def text_for(question: str) -> str | None:
            for lemma in self.g.lemmas[gold]:
                text = self.isa_text(gold, lemma)
                if not self.says(question, lemma) and not names_asked(text):
                    return text
            return None

        return text_for


WORDNET_LICENCE = """\
Derived from WordNet 3.0, (c) 2006 Princeton University, under the WordNet 3.0 licence:
permission to use, copy, modify and distribute this software and database and its
documentation for any purpose and without fee or royalty is hereby granted, provided that the
copyright notice and these statements appear on all copies. WordNet 3.0 is provided "as is".
See https://wordnet.princeton.edu/license-and-commercial-use."""

CITATION = """\
@article{richardson-sabharwal-2020-qa,
  title = {What Does My {QA} Model Know? Devising Controlled Probes Using Expert Knowledge},
  author = {Richardson, Kyle and Sabharwal, Ashish},
  journal = {Transactions of the Association for Computational Linguistics},
  volume = {8}, pages = {572--588}, year = {2020}
}"""


def balance_answers(
    items: list[DraftItem], seed: int, floor: int, dropped: Counter, probe: str
) -> list[DraftItem]:
    """Drop items whose gold is the gold more often than its share of the items it appears in.

    A synset that is gold ``G`` times and a distractor ``D`` times is the answer with probability
    ``G / (G + D)`` whenever it is a choice. Beyond ``floor`` gold uses, a synset keeps at most
    ``D / count`` gold items, so that probability stays near chance for every frequent answer
    (``entity``, ``organism``, ``person``): "this choice is often the answer" is no cue. Which items
    go is decided by a keyed hash of their ids, the same in every build.
    """
    if not items:
        return items
    width = len(items[0].distractors)
    order = sorted(items, key=lambda item: stable_hash(seed, "balance", item.id))
    golds_of: dict[str, list[int]] = defaultdict(list)  # each synset's gold items, in hash order
    for i, item in enumerate(order):
        golds_of[item.gold.concept].append(i)
    kept = {synset: len(indices) for synset, indices in golds_of.items()}  # a prefix of golds_of
    as_distractor: Counter = Counter(c.concept for item in order for c in item.distractors)
    queue = deque(golds_of)
    alive = [True] * len(order)
    while queue:  # dropping an item lowers its distractors' counts: those synsets are looked at again
        synset = queue.popleft()
        while kept[synset] > max(floor, as_distractor[synset] // width):
            kept[synset] -= 1
            i = golds_of[synset][kept[synset]]
            alive[i] = False
            for choice in order[i].distractors:
                as_distractor[choice.concept] -= 1
                if choice.concept in golds_of:
                    queue.append(choice.concept)
    kept_ids = {item.id for item, keep in zip(order, alive, strict=True) if keep}
    dropped[f"{probe}: its gold is already the answer of its share of the items it appears in"] += len(
        items
    ) - len(kept_ids)
    return [item for item in items if item.id in kept_ids]


@register_family(
    "wordnet",
    WordNetSpec,
    default_spec="wordnet",
    description="WordNetQA: definitions, hypernymy, hyponymy, synonymy (WordNet 3.0)",
)
def generate_wordnet(spec: WordNetSpec) -> MultipleChoiceOutput:
    """Generate every WordNetQA item ``spec`` asks for, grouped by probe type.

    The cyclic garbage collector is paused meanwhile (:func:`cyclic_gc_paused`): it spent about a
    quarter of the generation's CPU traversing the graph and caches, and freed next to nothing.
    """
    with cyclic_gc_paused():
        return _generate_wordnet(spec)


def _share_texts(
    items: list[DraftItem], texts: dict[str, str], choices: dict[tuple, DraftChoice] | None = None
) -> None:
    """Point equal questions, choice texts and clusters of ``items`` at one string (the first in ``texts``).

    A synset's rendered choice is a new string each time it is drawn, and the default build draws
    ~2.3M choices of ~150k texts: one copy each holds the drafts in about half the memory. With
    ``choices``, equal choices (text, synset, type, hops) become one :class:`DraftChoice` object too
    (nothing changes a draft's choices after this). Equal values either way: nothing built changes.
    """
    for item in items:
        item.cluster = texts.setdefault(item.cluster, item.cluster)
        item.question = texts.setdefault(item.question, item.question)  # a question is made per hop
        item.gold.text = texts.setdefault(item.gold.text, item.gold.text)
        for choice in item.distractors:
            choice.text = texts.setdefault(choice.text, choice.text)
        if choices is not None:
            item.gold = choices.setdefault(_choice_tuple(item.gold), item.gold)
            item.distractors = [choices.setdefault(_choice_tuple(c), c) for c in item.distractors]


# concepts per worker process below which the concept loop stays in the build's process (the small
# spec's ~1k concepts: starting and feeding workers would cost more than they save)
PARALLEL_MIN_CONCEPTS = 3000
_CHUNK_CONCEPTS = 500  # concepts a worker makes before it sends them (the progress bar moves per chunk)
ISA_PROBES = ("hypernymy", "hyponymy")  # one item per hop: each hop is its own unit of work
# CPU seconds of each (probe, hops) unit alone on the 8,000-concept spec (each with its own caches), by
# which _split_units shares them out; a unit not listed counts 1
UNIT_COST: dict[tuple[str, int], float] = {
    ("synonymy", 0): 10.0,
    ("hypernymy", 3): 8.1,
    ("hypernymy", 4): 7.9,
    ("hypernymy", 2): 7.9,
    ("hypernymy", 1): 5.4,
    ("definitions", 0): 4.1,
    ("hyponymy", 1): 1.7,
    ("hyponymy", 2): 1.7,
    ("hyponymy", 3): 1.5,
    ("hyponymy", 4): 1.2,
}
_forked_builder: _Builder | None = None  # the parent's builder and concepts, read by forked workers
_forked_concepts: list[int] = []


def _items_here(builder: _Builder, concepts: list[int]) -> Iterator[dict[str, list[DraftItem]]]:
    """Each concept's drafts, made one after another in this process."""
    for c in progress(concepts, desc="wordnet concepts", unit="concept"):
        yield builder.items_for(c)


def work_units(spec: WordNetSpec) -> list[tuple[str, int]]:
    """The (probe, hops) units of a build's items: definitions and synonymy at 0, ISA probes per hop.

    Items of two units never interact: the only state carried from concept to concept, the
    distractor slots each stratum (probe, hops, gold frequency) has delivered so far, is per unit.
    """
    return [
        (probe, k)
        for probe in spec.probes
        for k in (range(1, spec.max_hops + 1) if probe in ISA_PROBES else (0,))
    ]


def _split_units(units: list[tuple[str, int]], workers: int) -> list[list[tuple[str, int]]]:
    """``units`` in ``workers`` groups of about equal cost (the costliest first, to the cheapest group)."""
    groups: list[list[tuple[str, int]]] = [[] for _ in range(min(workers, len(units)))]
    costs = [0.0] * len(groups)
    for unit in sorted(units, key=lambda u: -UNIT_COST.get(u, 1.0)):
        cheapest = costs.index(min(costs))
        groups[cheapest].append(unit)
        costs[cheapest] += UNIT_COST.get(unit, 1.0)
    return groups


def _items_in_workers(
    builder: _Builder, concepts: list[int], groups: list[list[tuple[str, int]]]
) -> Iterator[dict[str, list[DraftItem]]]:
    """Each concept's drafts, in concept order, made by one forked process per group of units.

    Each worker walks every concept in order and makes only its units' items, so each stratum's
    slot history is the one this process would have had; an item's random numbers are keyed by
    its id and every cache is pure: the same drafts as :func:`_items_here`. Workers are forked after
    the graph, pools and builder are ready (copy on write), call no polars or Arrow, and send their
    drafts per chunk of concepts as tuples; a concept's items of one probe come back in hop order.
    """
    global _forked_builder, _forked_concepts
    starts = range(0, len(concepts), _CHUNK_CONCEPTS)
    chunks = [(start, min(start + _CHUNK_CONCEPTS, len(concepts))) for start in starts]
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    processes = [
        context.Process(target=_work, args=(index, group, chunks, results), daemon=True)
        for index, group in enumerate(groups)
    ]
    try:
        _forked_builder, _forked_concepts = builder, concepts
        for process in processes:
            process.start()
        _forked_builder, _forked_concepts = None, []
        arrived: dict[int, dict[int, list]] = defaultdict(dict)  # chunk -> worker -> its drafts
        with progress(desc="wordnet concepts", unit="concept", total=len(concepts)) as bar:
            for index, (start, stop) in enumerate(chunks):
                while len(arrived[index]) < len(processes):
                    worker, chunk, made, dropped = _next_result(results, processes)
                    arrived[chunk][worker] = made
                    builder.dropped.update(dropped)
                parts = arrived.pop(index)
                for concept_parts in zip(*(parts[w] for w in sorted(parts)), strict=True):
                    yield _merged(concept_parts)
                bar.update(stop - start)
        for process in processes:
            process.join()
    finally:
        _forked_builder, _forked_concepts = None, []
        for process in processes:
            if process.is_alive():
                process.terminate()
                process.join()
        results.close()


def _next_result(results, processes) -> tuple[int, int, list, Counter]:
    """The next chunk a worker sent; raises if a worker failed or died."""
    while True:
        try:
            message = results.get(timeout=5)
        except queue.Empty:
            dead = [p for p in processes if p.exitcode not in (None, 0)]
            if dead:
                raise RuntimeError(f"a WordNetQA worker died (exit code {dead[0].exitcode})") from None
            continue
        if message[1] == "failed":
            raise RuntimeError(f"a WordNetQA worker process failed:\n{message[2]}")
        return message


def _merged(parts: tuple[dict[str, list[tuple]], ...]) -> dict[str, list[DraftItem]]:
    """One concept's drafts from each worker's part, per probe in hop and perturbation order."""
    out: dict[str, list[DraftItem]] = {}
    for part in parts:
        for probe, fields in part.items():
            out.setdefault(probe, []).extend(_draft_from_tuple(f) for f in fields)
    for probe_items in out.values():
        probe_items.sort(key=lambda item: (item.hops, item.perturbation))
    return out


def _work(worker: int, units: list[tuple[str, int]], chunks: list[tuple[int, int]], results) -> None:
    """A worker process: its units' drafts (as tuples) and dropped counts, chunk after chunk."""
    builder, concepts = _forked_builder, _forked_concepts
    try:
        if builder.reader is not None:
            reopen_after_fork(builder.reader)  # NLTK's open data files are shared with the parent
        builder.units = frozenset(units)
        for index, (start, stop) in enumerate(chunks):
            builder.dropped = Counter()
            made = [
                {probe: [_draft_tuple(item) for item in ts] for probe, ts in builder.items_for(c).items()}
                for c in concepts[start:stop]
            ]
            results.put((worker, index, made, builder.dropped))
        log.info("worker %d made %d units' items in %.1f s CPU", worker, len(units), time.process_time())
    except BaseException:
        results.put((worker, "failed", traceback.format_exc(), None))
    results.close()
    results.join_thread()  # everything sent
    os._exit(0)  # no interpreter teardown of the forked heap (seconds)


def _draft_tuple(item: DraftItem) -> tuple:
    """``item`` as plain tuples, which pickle several times faster than the dataclasses."""
    return (
        item.id,
        item.probe,
        item.question,
        _choice_tuple(item.gold),
        tuple(_choice_tuple(choice) for choice in item.distractors),
        item.cluster,
        item.concept,
        item.hops,
        item.pos,
        item.framing,
        item.perturbation,
        item.source,
    )


def _choice_tuple(choice: DraftChoice) -> tuple:
    """A choice's fields as a tuple (:func:`_draft_tuple`)."""
    return (choice.text, choice.concept, choice.kind, choice.hops)


def _draft_from_tuple(fields: tuple) -> DraftItem:
    """The :class:`DraftItem` :func:`_draft_tuple` made a tuple of."""
    item_id, probe, question, gold, distractors, *rest = fields
    return DraftItem(
        item_id, probe, question, DraftChoice(*gold), [DraftChoice(*choice) for choice in distractors], *rest
    )


def _generate_wordnet(spec: WordNetSpec) -> MultipleChoiceOutput:
    source = WordNetSource(spec.source_dir)
    graph = source.load(("noun", "verb"))
    # no choice or question shows a gloss's usage or domain label ("(law)", "(golf)"): a copy of the
    # cached graph, whose glosses stay WordNet's for the other families
    graph = replace(graph, glosses=[strip_domain_label(gloss) for gloss in graph.glosses])
    reader = source.lexicon()  # NLTK's lookups from flat tables: no NLTK Synset or Lemma objects
    builder = _Builder(spec, graph, reader)
    items: dict[str, list[DraftItem]] = {probe: [] for probe in spec.probes}
    concepts = builder.concepts()
    log.info("asking about %d WordNet concepts", len(concepts))
    builder.prepare_popular(concepts)
    texts: dict[str, str] = {}  # one copy of each question, choice text and cluster: drafts repeat them
    choices: dict[tuple, DraftChoice] = {}  # and one object of each equal choice
    units = work_units(spec)
    workers = min(build_workers(), len(units), max(1, len(concepts) // PARALLEL_MIN_CONCEPTS))
    made = (
        _items_in_workers(builder, concepts, _split_units(units, workers))
        if workers > 1
        else _items_here(builder, concepts)
    )
    for concept_items in made:
        for probe, probe_items in concept_items.items():
            _share_texts(probe_items, texts, choices)
            items[probe].extend(probe_items)
    texts.clear()
    choices.clear()

    def rebalance(probe: str, probe_items: list[DraftItem], dropped: Counter) -> list[DraftItem]:
        if not spec.distractors.balance_answers or probe not in POPULAR_PROBES:
            return probe_items
        return balance_answers(probe_items, spec.seed, spec.distractors.balance_floor, dropped, probe)

    for probe in POPULAR_PROBES:  # most of the dropping, before splits are sized
        if probe in items:
            items[probe] = rebalance(probe, items[probe], builder.dropped)
    builder.release_caches()  # the item checks keep only its SecondAnswers and stems
    # every draft's one-right-answer reasons were decided as its distractors were drawn: none
    decided = frozenset(
        decided_item_key(
            item.probe,
            item.concept,
            (item.gold.text, item.gold.concept),
            ((choice.text, choice.concept) for choice in item.distractors),
        )
        for probe_items in items.values()
        for item in probe_items
    )
    # so the checks ask it again only of rows the builder did not draw: its caches go too
    builder.second_answers.release_caches()
    return_freed_memory()
    card = CardInfo(
        pretty_name="WordNetQA probes (probesmith)",
        description=spec.description or __doc__.split("\n\n")[1],
        license="other",
        license_name="wordnet",
        license_link="https://wordnet.princeton.edu/license-and-commercial-use",
        licence_text=WORDNET_LICENCE,
        tags=("probing", "wordnet", "knowledge-probing", "multiple-choice"),
        citation=CITATION,
    )
    return MultipleChoiceOutput(
        card,
        {"wordnet": source.version()},
        items=items,
        dropped=builder.dropped,
        distractor_mixes={probe: spec.distractors.mix_for(probe) for probe in spec.probes},
        mix_tolerance=spec.distractors.mix_tolerance,
        rebalance=rebalance,  # again on what the build keeps: the rule holds on the tables written
        item_checks=WordNetItemChecks(
            graph, stems=builder.stems, answers=builder.second_answers, decided=decided
        ),
    )
