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

What a reader would also accept, though WordNet's graph does not say it (issue 24, round 4: the
readers' defended distractors were mostly such words and sisters; hypernymy, hyponymy and
synonymy only, see ``READER_PROBES``):

* ``word_sense`` — the reader sees words, not synsets: some sense of a word the choice shows
  stands where the question needs it to the concept (whose sense the question's example or
  gloss fixes): hypernymy, a sense of the choice's lemma is an ancestor of the concept; hyponymy,
  a descendant ("abstraction" for "a kind of cognition": abstraction.n.01 is a concept);
  synonymy, the concept itself, or its ancestor or descendant;
* ``gloss_names`` — the glosses name each other: the concept's gloss names a word with a sense at
  or below the choice (hypernymy: "pool: any communal combination of funds" names *fund*, a
  kind of "store"), the choice's gloss names a word with a sense at or below the concept (hyponymy:
  "jump suit: one-piece garment ..." for "a kind of garment"), or either gloss names the other
  (definitions, synonymy);
* ``sister_gloss`` — a sister (a synset sharing a parent with the gold for hypernymy, with the
  concept otherwise) whose gloss shares a content word with the gloss it must fit (the gold's;
  the concept's for hyponymy), each word widened by the lemmas of its first two WordNet senses
  ("kickoff: ... to start a football game" for "the act of beginning something new");
* ``chain_gloss`` — hypernymy only: a member of the gold's sister family (under a parent of the gold,
  not under the gold, at any depth) whose gloss shares a plain content stem with the gloss of the
  concept, the gold or a synset between them ("cook: ... by heating" beside dissolve for rendering
  fat, melt being "... usually by heating"; "wrath: intense anger" beside "bad temper: a persisting
  angry mood" for a fit);
Hyponymy's parent family (issue 24, round 7): every distractor the readers defended in hyponymy
across two reads (8 items: "Progressive Party" for "a kind of association", "telephone order" for
"a kind of sale", "man" for "a way to serve", artifacts for "a kind of creation", ...) lies under a
direct hypernym of the concept. WordNet glosses a concept by its parent's genus, so what lies
under the parent fits the question's gloss to a reader. ``parent_family``: a parent of the concept,
or a descendant of one not through the concept, is refused in hyponymy whatever its type (the
round-6 ``close_sister`` test, which refused only some of that family, is gone).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from array import array
from collections.abc import Iterable, Sequence
from functools import lru_cache

from probesmith.builders.batch import cyclic_gc_paused, return_freed_memory
from probesmith.builders.morphology import FUNCTION_WORDS, StemAnalyser
from probesmith.builders.sources.wordnet import WordNetGraph
from probesmith.builders.sources.wordnet_files import WordNetFiles, synset_key
from probesmith.builders.text import normalize_choice

# entries of the caches keyed by a synset: the recent 32k of WordNet's 95,882 noun and verb synsets hold
# what the concept loop, walking the synsets in file order, asks again (BENCHMARKS "Issue 26, part 11")
SYNSET_CACHE_SIZE = 1 << 15

SECOND_ANSWER_REASONS = {  # what a distractor WordNet says is also right is
    "shares_gold_lemma": "it shares a lemma with the gold",
    "same_label": "it shows a lemma another choice shows",
    "same_gloss": "its gloss is the gold's gloss",
    "near_synonym": "a verb-group or also-see neighbour of the gold",
    "ancestor": "an ISA ancestor of the concept asked about",
    "descendant": "an ISA descendant of the concept asked about",
    "below_concept": "in hypernymy, an ISA descendant of the concept asked about: not right, but the "
    "opposite direction, which hypernymy's mix no longer draws ('minimum' for a peak, a sister of the gold "
    "limit that lies under the concept extremum)",
    "asked_concept": "the concept asked about",
    "gloss_overlap": "its gloss shares a content stem with the gold's gloss (verbs; nouns in definitions "
    "and synonymy; stems in 1% of verb or 0.3% of noun glosses and antonyms of the gold aside)",
    "word_sense": "another sense of a word it shows is right (a reader sees words, not synsets)",
    "gloss_names": "its gloss and the concept's name each other (a word with a sense at or below the other)",
    "sister_gloss": "a sister whose gloss shares a content word (or a WordNet synonym of one) with the "
    "gloss it must fit",
    "chain_gloss": "in hypernymy, it lies under a parent of the gold (not under the gold) and its gloss "
    "shares a content stem with the gloss of the concept, of the gold or of a synset between them: 'cook: "
    "transform ... by heating' beside dissolve for rendering fat (melt: '... usually by heating')",
    "synonym_gloss": "in definitions, its gloss uses a lemma of the concept asked about (a synonym of the "
    "word asked: 'block off the passage through' beside stuff, block; 'consider carefully and deeply' "
    "beside think, consider)",
    "genus_gloss": "in definitions, its gloss names the concept's genus (a word of a lemma of a direct "
    "hypernym of the concept) and at most one other content word: it says what the gold says, less the "
    "difference",
    "parent_family": "in hyponymy, it is a direct hypernym of the concept asked about or descends from one "
    "(not through the concept): the concept's gloss names its parent's genus, which fits it",
}
#: the reasons a reader would accept a distractor that WordNet's graph does not make right
READER_REASONS = frozenset(
    {"word_sense", "gloss_names", "sister_gloss", "chain_gloss", "genus_gloss", "synonym_gloss"}
)
# where they apply: definitions read 0/25 in round 3 already, and with them its choice-only
# baseline rose from 0.254 to 0.265 (the sisters left read less like the gold)
READER_PROBES = frozenset({"hypernymy", "hyponymy", "synonymy"})
GIVEN_AWAY = "what the question shows shares a word stem with the gold (Snowball stems widened by WordNet)"

# a stem in this share of a part of speech's glosses carries no meaning of its own ("cause", "person")
GENERIC_GLOSS_SHARE = {"verb": 0.01, "noun": 0.003}
_GLOSS_PROBES = frozenset({"definitions", "synonymy"})  # the question is, or asks for, the gloss
FRAMING_SHARE = 0.5  # a stem in half of a framing's questions is the template's
_ANCESTOR_PROBES = frozenset({"hypernymy", "definitions", "synonymy"})
_DESCENDANT_PROBES = frozenset({"hyponymy", "definitions", "synonymy"})
_POS_CODES = {"noun": "n", "verb": "v"}
SYNONYM_SENSES = 2  # sister_gloss widens a gloss word by the lemmas of its first this many senses
GENUS_GLOSS_OTHER_WORDS = 1  # genus_gloss: a gloss naming the genus and at most this many other content words


class SecondAnswers:
    """Which choices of an item WordNet says are also right (see the module docstring)."""

    def __init__(self, graph: WordNetGraph, stems: StemAnalyser | None = None):
        self.g = graph
        self.stems = stems
        self.lemma_sets = [frozenset(x.lower() for x in lemmas) for lemmas in graph.lemmas]
        # same_gloss compares two synsets' normalised glosses: one small int per distinct key, equal
        # exactly where the keys are (4 bytes a synset, not a second copy of every gloss: ~30 MB)
        key_ids: dict[str, int] = {}
        self.gloss_key_ids = array(
            "i", (key_ids.setdefault(normalize_choice(gloss), len(key_ids)) for gloss in graph.glosses)
        )
        self._ancestors = lru_cache(maxsize=SYNSET_CACHE_SIZE)(self._ancestors_uncached)
        # asked for the concept of the item at hand (every candidate is tested against it): the
        # "is X below the concept" tests become one set lookup instead of an ancestor set per candidate
        self._descendants = lru_cache(maxsize=1 << 10)(self._descendants_uncached)
        self._generic_stems: dict[str, frozenset[str]] = {}
        self._senses = lru_cache(maxsize=SYNSET_CACHE_SIZE)(self._senses_uncached)
        # asked by the two caches below on their misses, for the same node at about the same time: a
        # few thousand entries keep those hits (1 in 10 calls hit at all on 16k concepts)
        self._gloss_words = lru_cache(maxsize=1 << 12)(self._gloss_words_uncached)
        self._widened_stems = lru_cache(maxsize=SYNSET_CACHE_SIZE)(self._widened_stems_uncached)
        # a gloss word's widening recurs in many glosses: computed once per word
        self._word_widening = lru_cache(maxsize=1 << 16)(self._word_widening_uncached)
        # a sense's node, looked up by name once per synset (not once per word naming it)
        self._node_of_key: dict[int, int | None] = {}
        self._gloss_named = lru_cache(maxsize=SYNSET_CACHE_SIZE)(self._gloss_named_uncached)
        # a few hundred synsets per gloss (~8 KB): kept for the concepts asked about lately only
        self._named_or_above = lru_cache(maxsize=1 << 12)(self._named_or_above_uncached)
        self._gloss_stems = lru_cache(maxsize=SYNSET_CACHE_SIZE)(self._gloss_stems_uncached)
        self._genus_stems = lru_cache(maxsize=SYNSET_CACHE_SIZE)(self._genus_stems_uncached)
        self._chain_stems = lru_cache(maxsize=1 << 12)(self._chain_stems_uncached)

    def release_caches(self) -> None:
        """Empty the per-synset caches (they refill on demand: the answers stay the same).

        For when the items' reasons are decided (:class:`WordNetItemChecks`' ``decided``): the
        checks then ask this only of rows the builder did not draw.
        """
        for cached in (
            self._ancestors,
            self._descendants,
            self._senses,
            self._gloss_words,
            self._widened_stems,
            self._word_widening,
            self._gloss_named,
            self._named_or_above,
            self._gloss_stems,
            self._genus_stems,
            self._chain_stems,
        ):
            cached.cache_clear()
        self._node_of_key.clear()

    def _gloss_stems_uncached(self, node: int) -> frozenset[str]:
        """A gloss's content stems less the generic stems of its part of speech (computed on first use)."""
        assert self.stems is not None
        pos = self.g.pos[node]
        if pos not in self._generic_stems:
            glosses = [self.g.glosses[n] for n in self.g.by_pos.get(pos, [])]
            self._generic_stems[pos] = self.stems.template_stems(glosses, GENERIC_GLOSS_SHARE[pos])
        return self.stems.text_stems(self.g.glosses[node]) - self._generic_stems[pos]

    def _ancestors_uncached(self, node: int) -> frozenset[int]:
        return frozenset(self.g.all_ancestors(node))

    def _descendants_uncached(self, node: int) -> frozenset[int]:
        # ``children`` is ``parents`` inverted: ``n in _descendants(c)`` exactly when ``c in _ancestors(n)``
        return frozenset(self.g.all_descendants(node))

    def _senses_uncached(self, word: str, pos: str) -> tuple[int, ...]:
        """Every sense of ``word`` of part of speech ``pos`` in the graph (WordNet's morphology applies)."""
        reader = self.stems.reader
        code = _POS_CODES[pos]
        if not isinstance(reader, WordNetFiles):
            found = (self.g.index.get(s.name()) for s in reader.synsets(word.replace(" ", "_"), code))
            return tuple(n for n in found if n is not None)
        # reader.synsets(word, code), read as offsets: each synset's name is made once, not per word
        nodes = []
        for form in reader.morphy_forms(word.replace(" ", "_").lower(), code):
            for offset in reader.offsets(form, code):
                key = synset_key(code, offset)
                node = self._node_of_key.get(key, -1)
                if node == -1:
                    node = self._node_of_key[key] = self.g.index.get(reader.sense(code, offset).name())
                if node is not None:
                    nodes.append(node)
        return tuple(nodes)

    def _gloss_words_uncached(self, node: int) -> frozenset[str]:
        """The words (function words aside) and the two- and three-word WordNet lemmas of a gloss."""
        tokens = re.findall(r"[a-z][a-z'-]*", self.g.glosses[node].lower())
        words = {t for t in tokens if len(t) >= 3 and t not in FUNCTION_WORDS}
        vocabulary = self.stems.vocabulary
        phrases = ("_".join(tokens[i : i + n]) for n in (2, 3) for i in range(len(tokens) - n + 1))
        words |= {p.replace("_", " ") for p in phrases if p in vocabulary}
        return frozenset(words)

    def _gloss_named_uncached(self, node: int) -> tuple[int, ...]:
        """Every sense (of the node's part of speech) of every word its gloss names, each once.

        A tuple: its readers only iterate it, and a gloss names tens of senses (a frozenset of them
        held ~4x the memory in a cache of ~100k glosses).
        """
        pos = self.g.pos[node]
        return tuple({s: None for word in self._gloss_words(node) for s in self._senses(word, pos)})

    def _widened_stems_uncached(self, node: int) -> frozenset[str]:
        """A gloss's content stems and those of the lemmas of its words' first senses."""
        stems = set(self._gloss_stems(node))
        for word in self._gloss_words(node):
            if " " not in word:
                stems |= self._word_widening(word)
        return frozenset(stems) - self._generic_stems[self.g.pos[node]]

    def _word_widening_uncached(self, word: str) -> frozenset[str]:
        """The stems of the one-word lemmas of ``word``'s first :data:`SYNONYM_SENSES` senses."""
        stems: set[str] = set()
        for synset in self.stems.reader.synsets(word)[:SYNONYM_SENSES]:
            for name in synset.lemma_names():
                if "_" not in name:
                    stems |= self.stems.word_stems(name.lower())
        return frozenset(stems)

    def _word_sense_right(self, probe: str, concept: int, shown: Sequence[str]) -> bool:
        # the question fixes the concept's sense (its example or gloss); a choice's word, any of its senses
        pos = self.g.pos[concept]
        if len(shown) == 1:  # hypernymy and hyponymy choices show one lemma
            senses = self._senses(shown[0].lower(), pos)
        else:
            senses = [s for word in shown for s in self._senses(word.lower(), pos)]
        if probe == "hypernymy":
            return not self._ancestors(concept).isdisjoint(senses)
        if probe == "hyponymy":
            return not self._descendants(concept).isdisjoint(senses)
        if probe == "synonymy":
            return (
                concept in senses
                or not self._ancestors(concept).isdisjoint(senses)
                or not self._descendants(concept).isdisjoint(senses)
            )
        return False

    def _named_or_above_uncached(self, node: int) -> frozenset[int]:
        """The senses ``node``'s gloss names and all their ancestors: what those senses are at or below."""
        named = self._gloss_named(node)
        return frozenset(named).union(*(self._ancestors(s) for s in named))

    def _names_at_or_below(self, text_node: int, target: int) -> bool:
        """Whether ``text_node``'s gloss names a word with a sense that is ``target`` or below it."""
        named = self._gloss_named(text_node)
        return target in named or not self._descendants(target).isdisjoint(named)

    def _concept_names_at_or_below(self, concept: int, target: int) -> bool:
        """:meth:`_names_at_or_below` for the concept asked about, from one set built once.

        Every candidate of the concept's items is tested against it: the set holds its gloss's senses
        and all their ancestors.
        """
        return target in self._named_or_above(concept)

    def reader_reason(
        self, probe: str, concept: int, gold: int, choice: int, shown: Sequence[str]
    ) -> str | None:
        """Why a reader would accept ``choice`` though WordNet's graph does not make it right, or None.

        ``shown``: the words the choice shows (its lemma, or its lemmas in synonymy; none in definitions).
        See the module docstring: ``word_sense``, ``gloss_names``, ``sister_gloss``.
        """
        if not self.stems or self.g.pos[choice] != self.g.pos[concept]:
            return None
        if probe == "definitions":
            if self.genus_gloss(concept, choice):
                return "genus_gloss"
            return "synonym_gloss" if self.synonym_gloss(concept, choice) else None
        if probe not in READER_PROBES:
            return None
        if shown and self._word_sense_right(probe, concept, shown):
            return "word_sense"
        if probe == "hypernymy":
            named = self._concept_names_at_or_below(concept, choice)
        elif probe == "hyponymy":
            named = self._names_at_or_below(choice, concept)
        else:
            named = self._names_at_or_below(choice, concept) or self._concept_names_at_or_below(
                concept, choice
            )
        if named:
            return "gloss_names"
        anchor = gold if probe == "hypernymy" else concept
        if (
            set(self.g.parents[choice]) & set(self.g.parents[anchor])
            and choice not in self.g.antonyms[anchor]
        ):
            self._gloss_stems(choice)  # the generic stems of its part of speech, counted once
            if self._widened_stems(choice) & self._widened_stems(anchor):
                return "sister_gloss"
        if probe == "hypernymy" and self.chain_gloss(concept, gold, choice):
            return "chain_gloss"
        return None

    def _chain_stems_uncached(self, concept: int, gold: int) -> frozenset[str]:
        """The content stems of the glosses of ``concept``, ``gold`` and every synset between them."""
        between = (n for n in self._ancestors(concept) if gold in self._ancestors(n))
        return frozenset().union(*(self._gloss_stems(n) for n in (concept, gold, *between)))

    def chain_gloss(self, concept: int, gold: int, choice: int) -> bool:
        """Whether ``choice``, under a parent of ``gold`` (not under ``gold``), has a gloss fitting the chain.

        Hypernymy (issue 24, v13 reads): the defended distractors were members of the gold's sister
        family whose gloss shares a content word with the gloss of the concept, the gold or a synset
        between them: "wrath: intense anger" beside "bad temper: a persisting angry mood" for a fit
        (wrath is a child of fury, the gold's sibling: the direct-sister test misses it); "cook:
        transform and make suitable for consumption by heating" beside dissolve for rendering fat,
        whose parent melt is "... usually by heating". Plain content stems (not widened by synonyms:
        widened, a third of all items matched on words such as "state" / province).
        """
        if choice in self.g.antonyms[gold] or gold in self._ancestors(choice):
            return False
        if self._ancestors(choice).isdisjoint(self.g.parents[gold]):
            return False
        return not self._gloss_stems(choice).isdisjoint(self._chain_stems(concept, gold))

    def _genus_stems_uncached(self, concept: int) -> frozenset[str]:
        """The stems of the words of the lemmas of ``concept``'s direct hypernyms (its genus)."""
        return frozenset(
            stem
            for parent in self.g.parents[concept]
            for lemma in self.g.lemmas[parent]
            for word in re.findall(r"[a-z]+", lemma.lower())
            if len(word) >= 3 and word not in FUNCTION_WORDS
            for stem in self.stems.word_stems(word)
        )

    def genus_gloss(self, concept: int, choice: int) -> bool:
        """Whether ``choice``'s gloss names ``concept``'s genus and at most one other content word.

        Definitions (issue 24, v9 read): "voice: give voice to" beside raise.v.03 "cause to be heard
        or known; express or utter" (genus express.v.02), "bait: anything that serves as an
        enticement" beside allurement (genus temptation, enticement), "underbelly: the quality of
        being weak or unprotected" beside feebleness (genus weakness): such a gloss is the genus
        itself, which is true of the concept too. Content words: 3+ letters, not function words,
        not generic (:data:`GENERIC_GLOSS_SHARE`: "quality", "serve"); a word names the genus when
        their WordNet-widened stems meet ("weak" / weakness).
        """
        if choice in self.g.antonyms[concept]:
            return False
        genus = self._genus_stems(concept)
        if not genus:
            return False
        self._gloss_stems(choice)  # the generic stems of its part of speech, counted once
        generic = self._generic_stems[self.g.pos[choice]]
        words = {
            w
            for w in re.findall(r"[a-z]+", self.g.glosses[choice].lower())
            if len(w) >= 3 and w not in FUNCTION_WORDS
        }
        named = other = 0
        for word in words:
            stems = self.stems.word_stems(word)
            if stems & genus:
                named += 1
            elif not stems <= generic:
                other += 1
        return bool(named) and other <= GENUS_GLOSS_OTHER_WORDS

    def synonym_gloss(self, concept: int, choice: int) -> bool:
        """Whether ``choice``'s gloss uses a lemma of ``concept`` (3+ letters, not a function word).

        Definitions (issue 24, v11 read): "My nose is all stuffed" with the gold "obstruct" beside the
        cousin "block off the passage through" (shut_off.v.03): block is a lemma of stuff.v.03, and a
        gloss that says the asked word's synonym reads as its meaning. A one-word lemma matches any
        inflection of a gloss word (their stems meet); a lemma of several words matches them in order.
        """
        words = re.findall(r"[a-z]+", self.g.glosses[choice].lower())
        if not words:
            return False
        gloss_stems = set().union(*(self.stems.word_stems(w) for w in words if len(w) >= 3))
        text = " " + " ".join(words) + " "
        for lemma in self.lemma_sets[concept]:
            parts = re.findall(r"[a-z]+", lemma)
            if len(parts) == 1 and len(parts[0]) >= 3 and parts[0] not in FUNCTION_WORDS:
                if self.stems.word_stems(parts[0]) & gloss_stems:
                    return True
            elif len(parts) > 1 and f" {' '.join(parts)} " in text:
                return True
        return False

    def in_parent_family(self, concept: int, choice: int) -> bool:
        """Whether ``choice`` is a direct hypernym of ``concept`` or descends from one.

        Called after the descendant test, so a node below the parent through the concept never
        reaches it in hyponymy; see ``parent_family`` in the module docstring.
        """
        parents = self.g.parents[concept]
        return any(p == choice for p in parents) or not self._ancestors(choice).isdisjoint(parents)

    def reason(
        self, probe: str, concept: int, gold: int, choice: int, shown: Sequence[str] | None = None
    ) -> str | None:
        """Why ``choice`` is also a right answer of an item of ``probe`` about ``concept``, or None.

        With ``shown`` (the words the choice shows, :func:`shown_words`), what a reader would also
        accept is asked too (:meth:`reader_reason`).
        """
        found = self._graph_reason(probe, concept, gold, choice)
        if found is None and shown is not None:
            found = self.reader_reason(probe, concept, gold, choice, shown)
        return found

    def _graph_reason(self, probe: str, concept: int, gold: int, choice: int) -> str | None:
        if choice == gold:
            return None
        if choice == concept:
            return "asked_concept"
        if not self.lemma_sets[choice].isdisjoint(self.lemma_sets[gold]):
            return "shares_gold_lemma"
        if self.gloss_key_ids[choice] == self.gloss_key_ids[gold]:
            return "same_gloss"
        if choice in self.g.near[gold]:
            return "near_synonym"
        if probe in _ANCESTOR_PROBES and choice in self._ancestors(concept):
            return "ancestor"
        if probe in _DESCENDANT_PROBES and choice in self._descendants(concept):
            return "descendant"
        if probe == "hypernymy" and choice in self._descendants(concept):
            return "below_concept"
        if probe == "hyponymy" and self.in_parent_family(concept, choice):
            return "parent_family"
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
        texts: Sequence[str] | None = None,
    ) -> list[str]:
        """The reasons found in one item: one per defensible distractor, one per repeated label.

        ``labels`` are the lemmas each choice shows (:func:`choice_labels`); with the choices'
        ``texts``, what a reader would also accept counts too (:meth:`reader_reason`).
        """
        gold = choices[answer_index]
        found = [
            r
            for i, choice in enumerate(choices)
            if i != answer_index
            and (
                r := self.reason(
                    probe, concept, gold, choice, shown_words(probe, texts[i]) if texts else None
                )
            )
        ]
        found += ["same_label"] * sum(
            1 for i, j in itertools.combinations(range(len(labels)), 2) if labels[i] & labels[j]
        )
        return found


def shown_words(probe: str, text: str) -> tuple[str, ...]:
    """The words a choice shows as its name, as written.

    The lemma before 'lemma: gloss', every lemma of a synonymy choice, none for a definition.
    """
    if probe == "synonymy":
        return tuple(x.strip() for x in text.split(", "))
    if probe == "definitions":
        return ()
    return (text.split(": ", 1)[0],)


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
    "one_right_answer": "by the build's WordNet rules below, not by a reader (a reader's defence is measured "
    "separately, by reading sampled items: BENCHMARKS.md, issue 24; the v10 reads found 2 defensible and 4 "
    "borderline distractors in 25 definitions items, 3 and 2 in 25 synonymy items): no distractor is also "
    "right by WordNet: it shares no lemma or gloss with the gold, "
    "no two choices show the same lemma, no verb-group or also-see neighbour of the gold, and no ISA "
    "ancestor (hypernymy, definitions, synonymy) or descendant (hyponymy, definitions, synonymy) of the "
    "concept asked about, at any depth; gloss_overlap: where the gold is a verb (every config) or a noun in "
    "definitions and synonymy, no distractor of its part of speech whose gloss shares a content stem with "
    "the gold's gloss, content stems being the WordNet-widened Snowball stems "
    "(probesmith.builders.morphology) of the gloss's words of 3+ letters other than function words, "
    "less every stem found in 1% or more of WordNet's verb glosses or 0.3% or more of its noun glosses "
    "('cause', 'move', 'act', 'area', 'water', 'public', 'military'), and not counting a WordNet "
    "antonym of the gold (hostile / friendly, "
    "yin / yang); "
    "in definitions, no gloss naming the concept's genus (a word of a lemma of its direct hypernym) with at "
    "most one other content word (genus_gloss: 'give voice to' beside raise, genus express); in hypernymy, "
    "hyponymy and synonymy, none a reader would accept: another sense of a word it shows is right, its gloss "
    "and the concept's name each other, or a sister's gloss shares a content word (or a WordNet synonym of "
    "one) with the gloss it must fit; in hypernymy, no distractor under a parent of the gold (at any depth, "
    "not under the gold) whose gloss shares a content stem (generic stems aside, as above) with the gloss "
    "of the concept, the gold or a synset between them (chain_gloss), and no descendant of the concept "
    "(below_concept); in hyponymy, no direct hypernym of the concept and nothing below one other than "
    "through the concept (parent_family)",
    "clean_text": "no choice shows what NLTK's split of a gloss from its quoted examples leaves: an empty "
    "part ('; ;'), an attribution ('--Shakespeare'), an unpaired double quote, a parenthesis emptied of its "
    "words ('(usually expressed as  rather than )'), two spaces or a space before ';' or ',', or WordNet's "
    "backtick quoting ('`good''); no choice or question shows a usage or domain label at the start of a "
    "gloss ('(law)', '(golf)', '(usually plural)', '(meteorology)an': removed, not the parentheses that "
    "narrow a gloss, '(of a ship)', '(in India)'), nor a note on date, origin or spelling at its start "
    "('(c. 1840)', '(from the Sanskrit word for \"knowledge\")', '(HClO3)'), nor a usage note at its end "
    "('-- used especially of plants', '; informal', '(usually used in the plural)'); no question shows "
    "backtick quoting or an unpaired double quote",
    "not_given_away": "the question shares no word stem with the gold that it shares with no distractor "
    "(Snowball stems widened by WordNet's morphology, derivational links, compounds and spelling "
    "variants; a question word, or its inflected form, of 3+ letters that begins a longer word of the gold, "
    "or ends one after a WordNet word of 3+ letters or with 4+ letters of its own: pin / hairpin, tones / "
    "overtones, carbo / carbohydrate; the other way round, a word of the gold that begins or ends a longer "
    "question word, with 4+ letters or beside a WordNet word of 3+ letters: anthill / hill, sheepdog / dog; "
    "a question word and a word of the gold compounded of the same WordNet word of 4+ letters: greenwood / "
    "woodlands, suffix-like words such as ship, hood, less aside); "
    "function words (articles, pronouns, prepositions, auxiliaries, and "
    "use, used, like, make, made: probesmith.builders.morphology.FUNCTION_WORDS) never count against a "
    "gloss, so 'made' in an example beside 'made' in a definitions gold is not checked; against the gold's "
    "name in hypernymy, hyponymy and synonymy they count: particles, 'like' and light verbs (out, up, down, "
    "make) and every function word that is also a WordNet word (will / probate will, May / mid-May, use / "
    "usefulness, there / thereness); the words of the question's template aside",
}


# the probes whose choices name their synset (lemma: gloss, or lemmas): a question's particles and
# light verbs are compared with that name (definitions' choices are glosses)
LABEL_PROBES = frozenset({"hypernymy", "hyponymy", "synonymy"})

# a usage or domain label WordNet puts before a gloss: "(law)", "(golf)", "(usually plural)", "(Greek
# mythology)", "(British informal)"; REVIEW.md asks for no labels. Not a label: a parenthesis that
# narrows the gloss ("(of a ship) ...", "(in India) ..."), a translation
# or formula with quotes or digits, or one of more than six words
_NOT_LABEL = (
    "of|a|an|the|from|when|literally|according|or|with|especially|on|during|in|used|always|often followed|"
    "usually preceded"
)
_LABEL_BODY = rf"(?!(?:{_NOT_LABEL})\b)[A-Za-z][A-Za-z'-]*(?:,? [A-Za-z][A-Za-z'-]*){{0,5}}"
# a usage note on how the word is used, not on what it means (issue 24, v10 read: 23 test choices). The
# forms over all of WordNet 3.0's noun and verb glosses: "(used only in combination[s])", "(used with
# negation)", "(used with a singular noun)", "(always used with a modifier)", "(often used with "pay")",
# "(usually preceded by "in")", "(often followed by "of")", "(with "in")"; and over adjectives (a gloss
# shown beside one): "(followed by "to" or "of")", "(sometimes followed by "to")", "(used informally)",
# "(used colloquially)"; "(a dated Briticism)" is a register label
_QUOTED = r"(?:\"[^\"()]{1,20}\"|`[^`'()]{1,20}')"
_USAGE_NOTE = (
    r"(?:(?:usually|often|sometimes|always) )?(?:"
    rf"used (?:only )?(?:with|in) (?:negation|a [a-z]+(?: [a-z]+)?|combinations?|{_QUOTED})"
    rf"|(?:followed|preceded) by {_QUOTED}(?: or {_QUOTED})?"
    rf"|with {_QUOTED}"
    r"|used (?:informally|colloquially)"
    r"|a dated Briticism"
    r"|an extension of [a-z][a-z ]{0,40})"
)
DOMAIN_LABEL = re.compile(rf"^\(((?:{_USAGE_NOTE})|{_LABEL_BODY})\)\s*(?=\S)")  # "(meteorology)an isogram"
# a usage note at a gloss's end (v11/v12 reads): "creep up -- used especially of plants", "enter uninvited;
# informal", "elastic straps that hold trousers up (usually used in the plural)", "(often used ironically)"
TRAILING_USAGE_NOTE = re.compile(
    r"(?:\s*--\s*used\b[^;()]*|;\s*(?:informal|slang)(?: or [a-z]+)?"
    r"|\s*\((?:(?:usually|often|sometimes) )?used (?:only )?"
    r"(?:in the plural|ironically|in infinitive form)\)"
    # "; used of animals", "; used especially of horses", '; used in the phrase "at second hand"' (the v13
    # read: 13 noun and verb glosses); "; used to raise heavy objects" says what the thing does: kept
    r"|;\s*used (?:especially |chiefly |mostly |only |usually )?"
    r"(?:of|in the phrase|for (?:animals|persons))\b[^;]*"
    # an example cut out of the gloss left its lead-in: "promise of reward as in", "reach a goal, e.g."
    r"|,?\s+(?:as in|e\.g\.)"
    r")\s*$"
)
# a field named before a colon at a verb gloss's start: "psychology: repeat a response ...", "law: grant
# immunity" (the v13 read). Over WordNet 3.0's noun and verb glosses, every one-word lower-case prefix
# before ": " that is a noun with a noun.cognition or noun.act sense (tested), but "hops: hardy perennial
# vines"; "deer: reindeer; moose" and "one species: greasewood" say what the concept is: kept
FIELD_LABELS = frozenset(
    "accounting banking baseball bridge economics electronics geology hunting law math physics printing "
    "psychology".split()
)
FIELD_LABEL = re.compile(rf"^(?:{'|'.join(sorted(FIELD_LABELS))}): (?=\S)")
_QUESTION_LABEL = re.compile(rf"\"\(((?:{_USAGE_NOTE})|{_LABEL_BODY})\)\s*(?=[^\s\"])")


# a note before a gloss that says when, whence or how the word is written, not what it means (the v13
# read: "iron horse: (c. 1840) an early term for a locomotive", "Vedic literature: (from the Sanskrit word
# for "knowledge") ..."). Over WordNet 3.0's noun and verb glosses after DOMAIN_LABEL, 75 still begin with a
# parenthesis: every one but those that narrow the gloss ("(of a ship)", "(in India)", "(especially
# boxing)", "(during prohibition)", "(when capitalized)", "(according to Nazi doctrine)", "(on early
# automobiles)", "(or in some classifications)", "(a piece of)") is such a note: dates "(1568)", "(19th
# century)", origins "(from a combination of MOdulate and DEModulate)", "(literally ...)", "(abbreviated
# "ha")", "(the feminine of raja)", formulas "(HClO3)", "(Genesis 11:1-11)"
LEADING_NOTE = re.compile(
    r"^\((?!(?:of|in|on|especially|during|when|according|or|used|a piece of)\b)[^()]*\)[;,]?\s*(?=\S)"
)


def strip_domain_label(gloss: str) -> str:
    """A gloss without the usage or domain label it begins with ("(law) an agreement" -> "an agreement").

    See :data:`DOMAIN_LABEL` and :data:`LEADING_NOTE`; a gloss that is only a label is kept whole.
    """
    without = FIELD_LABEL.sub("", DOMAIN_LABEL.sub("", gloss, count=1), count=1)
    without = LEADING_NOTE.sub("", without, count=1)
    return TRAILING_USAGE_NOTE.sub("", without)


# a backtick alone in parentheses is the grave accent itself: "a mark (`) placed above a vowel"
# gloss residue, found independently of the cleaning in probesmith.builders.sources.wordnet.clean_gloss
GLOSS_RESIDUE = re.compile(r"(^|;)\s*-+\s*\w|;\s*[;.:,]|\(\s|\s\)|\S\s{2,}\S|\s[;,]|[;,:(]\s*$|`(?!\))")


def gloss_residue(choice: str) -> str | None:
    """The first piece of gloss residue (:data:`GLOSS_RESIDUE`) a choice shows, or None.

    A double quote is residue when it has no partner (WordNet's backtick quotes are shown as pairs).
    """
    gloss = choice.split(": ", 1)[-1]
    found = GLOSS_RESIDUE.search(gloss)
    if found:
        return repr(found.group(0))
    if label := DOMAIN_LABEL.match(gloss):
        return f"a label {label.group(0).strip()!r}"
    if note := LEADING_NOTE.match(gloss):
        return f"a leading note {note.group(0).strip()!r}"
    if note := TRAILING_USAGE_NOTE.search(gloss):
        return f"a usage note {note.group(0).strip()!r}"
    if label := FIELD_LABEL.match(gloss):  # after a shown name ("immunize: law: grant immunity")
        return f"a label {label.group(0).strip()!r}"
    return "'a stray double quote'" if gloss.count('"') % 2 else None


def question_residue(question: str) -> str | None:
    """WordNet's backtick quoting, an unpaired double quote or a gloss's label left in a question, or None."""
    shown = question.replace("(`)", "")  # the grave accent itself: "a mark (`) placed above a vowel"
    if "`" in shown:
        return repr(shown[shown.index("`") : shown.index("`") + 12])
    if label := _QUESTION_LABEL.search(question):
        return f"a label {label.group(0)[1:].strip()!r}"
    for quoted in re.findall(r'"([^"]+)"', question):
        if note := TRAILING_USAGE_NOTE.search(quoted):
            return f"a usage note {note.group(0).strip()!r}"
        if label := FIELD_LABEL.match(quoted):
            return f"a label {label.group(0).strip()!r}"
        if note := LEADING_NOTE.match(quoted):
            return f"a leading note {note.group(0).strip()!r}"
    return "'a stray double quote'" if question.count('"') % 2 else None


def decided_item_key(
    probe: str, concept: str, gold: tuple[str, str], distractors: Iterable[tuple[str, str]]
) -> bytes:
    """A digest of what :meth:`SecondAnswers.item_reasons` reads of an item, its choices' order aside.

    ``gold`` and each distractor: (text, synset name). Two items with the same key ask the same
    concept with the same gold and the same choices (up to a 128-bit collision).
    """
    fields = (probe, concept, gold, tuple(sorted(distractors)))
    return hashlib.blake2b(repr(fields).encode(), digest_size=16).digest()


class WordNetItemChecks:
    """The WordNetQA rules :data:`ITEM_RULES`, checked on items as written (table rows)."""

    rules = ITEM_RULES
    columns = ("probe", "question", "concept", "choices", "answer_index", "choice_concepts", "framing")

    def __init__(
        self,
        graph: WordNetGraph,
        reader=None,
        stems: StemAnalyser | None = None,
        answers: SecondAnswers | None = None,
        decided: frozenset[bytes] = frozenset(),
    ):
        """The rules over ``graph``; ``answers``: the builder's own :class:`SecondAnswers`.

        Given the same graph and stems, its caches, filled during the build, answer again without
        recomputing (the same answers). ``decided``: the :func:`decided_item_key` of every item the
        builder made, whose one-right-answer reasons it decided already with ``answers`` (it drew
        no distractor with a reason, nor one sharing a label with another choice): a row with one
        of those keys has none, and its reasons are not asked again.
        """
        self.graph = graph
        self.stems = stems or StemAnalyser(reader)
        if answers is not None and (answers.g is not graph or answers.stems is not self.stems):
            raise ValueError("WordNetItemChecks: `answers` must read the same graph and stems")
        self.answers = answers or SecondAnswers(graph, self.stems)
        if decided and answers is None:
            raise ValueError("WordNetItemChecks: `decided` holds the decisions of the builder's `answers`")
        self.decided = decided

    def check(self, rows: Sequence[dict]) -> list[list[tuple[str, str]]]:
        """Per row of one config: the (rule, detail) pairs it violates.

        Run with the cyclic garbage collector paused (:func:`probesmith.builders.batch.cyclic_gc_paused`).

        A template's words are the stems found in half or more of the questions of its framing
        (rows without a ``framing`` are one framing), so a word every such question shows gives
        nothing away.
        """
        return_freed_memory()  # the drafts, freed once the tables were made, back to the system
        with cyclic_gc_paused():
            return self._check(rows)

    def release(self) -> None:
        """Empty the caches the checks filled (:class:`SecondAnswers`' and the stem analyser's).

        Called by the build once its validity report is made; the checks answer the same after,
        more slowly.
        """
        self.answers.release_caches()
        self.stems.release_caches()

    def _decided_already(self, row: dict) -> bool:
        if not self.decided:
            return False
        answer, texts, names = row["answer_index"], row["choices"], row["choice_concepts"]
        distractors = ((t, n) for i, (t, n) in enumerate(zip(texts, names, strict=True)) if i != answer)
        key = decided_item_key(row["probe"], row["concept"], (texts[answer], names[answer]), distractors)
        return key in self.decided

    def _check(self, rows: Sequence[dict]) -> list[list[tuple[str, str]]]:
        by_framing: dict[str, list[str]] = {}
        for row in rows:
            by_framing.setdefault(row.get("framing", ""), []).append(row["question"])
        templates = {f: self.stems.template_stems(qs, FRAMING_SHARE) for f, qs in by_framing.items()}
        cue_templates = {
            f: self.stems.template_stems(qs, FRAMING_SHARE, cues=True) for f, qs in by_framing.items()
        }
        index = self.graph.index
        out = []
        for row in rows:
            found = []
            nodes = [index.get(name) for name in row["choice_concepts"]]
            concept = index.get(row["concept"])
            if concept is not None and None not in nodes and self._decided_already(row):
                pass  # the builder drew these choices for this concept and gold: no reason found
            elif concept is not None and None not in nodes:
                labels = [choice_labels(row["probe"], text) for text in row["choices"]]
                reasons = self.answers.item_reasons(
                    row["probe"], concept, row["answer_index"], nodes, labels, row["choices"]
                )
                found += [("one_right_answer", reason) for reason in sorted(set(reasons))]
            else:
                found.append(("one_right_answer", "a choice names no WordNet synset"))
            residue = sorted({r for text in row["choices"] if (r := gloss_residue(text))})
            if in_question := question_residue(row["question"]):
                residue.append(f"question: {in_question}")
            if residue:
                found.append(("clean_text", ", ".join(residue)))
            template = templates[row.get("framing", "")]
            given = self.stems.gives_away(row["question"], row["choices"], row["answer_index"], template)
            if row["probe"] in LABEL_PROBES:
                given |= self.stems.label_gives_away(
                    row["question"],
                    [text.split(": ", 1)[0] for text in row["choices"]],
                    row["choices"],
                    row["answer_index"],
                    cue_templates[row.get("framing", "")],
                )
            if given:
                found.append(("not_given_away", ", ".join(sorted(given))))
            out.append(found)
        return out
