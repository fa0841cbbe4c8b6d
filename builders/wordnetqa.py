"""WordNetQA: definition, hypernymy, hyponymy and synonymy multiple-choice probes.

After Richardson & Sabharwal (TACL 2020), "What Does My QA Model Know? Devising Controlled
Probes using Expert Knowledge". For each WordNet concept ``c``:

* **definitions** — ``c`` introduced in context (an example sentence containing its word) -> its gloss;
* **hypernymy** — ``c`` -> the concept ``k`` ISA hops above it, for every ``k <= max_hops``;
* **hyponymy** — ``c`` -> a concept ``k`` ISA hops below it;
* **synonymy** — the gloss of ``c`` -> the lemmas of its synset.

Distractors are tagged with their type and distance:

* ``sister`` — the l-deep sister family (l=1 siblings, l=2 adds the siblings' children, ...)
  of the gold for hypernymy, and of ``c`` for the other probes (the gold's own siblings are
  correct answers of a hyponymy question);
* ``isa_down`` / ``isa_up`` — ISA hops in the opposite direction of the question (hyponyms of
  ``c`` for hypernymy, hypernyms for hyponymy; both directions for definitions and synonymy);
* ``popular`` — for hypernymy and hyponymy, a synset drawn as often as it is the gold of
  this probe at this hop across the build, so that a frequent answer is no cue;
* ``random`` — a random synset of the same part of speech (for hypernymy and hyponymy: one
  that is the answer of some item of the same probe and hop).

Hypernymy and hyponymy guard against answering from the choices alone: popular and random
distractors lie within ``depth_band`` levels of the gold's depth (the gold is not the most
general choice), and ``balance_answers`` drops items until no synset is the answer of more than
its share of the items it appears in (beyond ``balance_floor`` uses), so "this choice is often
the answer" is no cue. How far that goes is measured by the audit (see BENCHMARKS.md).

No distractor is a correct answer (any ancestor of ``c`` for hypernymy, any descendant for
hyponymy, the same gloss for definitions, a shared lemma for synonymy), no two choices are
near-duplicates (the same text, or token Jaccard >= 0.6: "set afloat" / "set afloat again"), and the
question never contains the word the gold choice names. Every question about
``c`` shares the cluster ``wn:<synset>``, and splits are by cluster.
"""

from __future__ import annotations

import bisect
import itertools
import logging
import random
import re
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from tqdm.auto import tqdm

from probesmith.builders.registry import DraftChoice, DraftItem, FamilyOutput, register_family
from probesmith.builders.sampling import item_rng, stable_hash
from probesmith.builders.text import (
    contains_word,
    find_in_examples,
    indefinite_article,
    mentions_word,
    near_duplicate,
    normalize_choice,
)
from probesmith.builders.wordnet import WordNetGraph, WordNetSource
from probesmith.probes.spec import ProbeSpec, spec_field
from probesmith.schemas.card import CardInfo

log = logging.getLogger(__name__)

PROBE_TYPES = ("definitions", "hypernymy", "hyponymy", "synonymy")
DISTRACTOR_TYPES = ("sister", "opposite", "popular", "random")
_FAMILY_LEVEL_CAP = 400  # sister-family members kept per level, so hub concepts stay cheap
_RANDOM_TRIES = 64


@dataclass(frozen=True)
class DistractorSpec:
    """How the wrong answers of each item are drawn."""

    count: int = spec_field(4, help="Distractors per item (choices = count + 1).", minimum=1)
    mix: Mapping[str, int] = spec_field(
        default_factory=lambda: {"sister": 2, "opposite": 1, "random": 1},
        help="Distractors of each type per item: sister, opposite (ISA hops the other way), "
        "popular (synsets drawn as often as they are golds of this probe and hop; hypernymy "
        "and hyponymy only), random. Must add up to `count`; a type whose pool runs short is "
        "filled with random.",
    )
    sister_depth: int = spec_field(
        2, help="Depth L of the sister family: 1 = siblings only, 2 adds the siblings' children, ..."
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
    less_specific: bool = spec_field(
        False,
        help="Definitions and synonymy: also draw 'opposite' distractors from the concept's own "
        "ancestors (tagged isa_up). Their glosses are true of the concept, only less specific "
        "('examine carefully' for 'vet'), so a reader may defend them: off unless asked.",
    )

    def __post_init__(self) -> None:
        unknown = [k for k in self.mix if k not in DISTRACTOR_TYPES]
        if unknown:
            raise ValueError(f"distractors.mix: unknown type {unknown[0]!r}; use {DISTRACTOR_TYPES}")
        if sum(self.mix.values()) != self.count or any(v < 0 for v in self.mix.values()):
            raise ValueError(
                f"distractors.mix adds up to {sum(self.mix.values())}, but distractors.count is "
                f"{self.count}; make the non-negative counts add up to it"
            )
        if self.sister_depth < 1 or self.opposite_hops < 1:
            raise ValueError("distractors.sister_depth and distractors.opposite_hops must be >= 1")


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
    "Placeholders: {word} (the word as it appears), {a_word} / {A_word} (the word with its "
    "indefinite article, none for a proper noun: 'an owl', 'Deng Xiaoping'), {example}, {gloss}; a "
    "template with {example} is used only for concepts with an example sentence containing their word."
)
_WORD_FIELDS = {"word", "a_word", "A_word"}


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


@dataclass(frozen=True)
class WordNetSpec(ProbeSpec):
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
        for probe in (*PROBE_TYPES, "verb_hypernymy", "verb_hyponymy"):
            for template in getattr(self.framings, probe):
                fields = set(re.findall(r"{(\w+)}", template))
                if not fields <= {*_WORD_FIELDS, "example", "gloss"} or (
                    not fields & _WORD_FIELDS and probe != "synonymy"
                ):
                    raise ValueError(
                        f"framings.{probe}: template {template!r} must use {{word}} (or {{a_word}}) "
                        "and only {word}, {a_word}, {A_word}, {example}, {gloss}"
                    )


def with_article(word: str, capital: bool = False) -> str:
    """The word with its indefinite article ("an owl", "a unicorn"); a proper noun takes none."""
    if word[:1].isupper() and not re.fullmatch(r"[A-Z]{2,}\w*", word.split()[0]):
        return word
    return f"{indefinite_article(word, 'A' if capital else 'a')} {word}"


class WeightedSampler:
    """Draws nodes with probability proportional to their weights (seeded by the caller's rng)."""

    def __init__(self, weights: dict[int, float]):
        self.nodes = sorted(weights)
        self.node_set = frozenset(self.nodes)
        self.cumulative = list(itertools.accumulate(weights[n] for n in self.nodes))

    def __bool__(self) -> bool:
        return bool(self.nodes)

    def draw(self, rng: random.Random) -> int:
        """One node."""
        return self.nodes[bisect.bisect_right(self.cumulative, rng.random() * self.cumulative[-1])]


class _Builder:
    """Generates the items of one WordNetQA spec over one WordNet graph."""

    def __init__(self, spec: WordNetSpec, graph: WordNetGraph, morphy=None):
        self.spec = spec
        self.g = graph
        self.morphy = lru_cache(maxsize=1 << 18)(morphy) if morphy else None
        self.d = spec.distractors
        self.dropped: Counter = Counter()
        self._sister_family = lru_cache(maxsize=50_000)(self._sister_family_uncached)
        self.popular: dict[tuple[str, int, str], WeightedSampler] = {}
        self.depth = graph.depths()
        self._by_depth_cache: dict[WeightedSampler, dict[int, list[int]]] = {}
        self.by_pos_depth: dict[tuple[str, int], list[int]] = defaultdict(list)
        for node, depth in enumerate(self.depth):
            self.by_pos_depth[(graph.pos[node], depth)].append(node)

    def band(self, gold: int, answers: WeightedSampler | list) -> tuple[list[int], Callable[[int], bool]]:
        """Random candidates for an ISA item, and the test that a node lies in the gold's depth band.

        With ``random_from_answers`` the candidates are the synsets that are answers of this probe
        and hop (so every choice is the answer of some item), else every synset; either way only
        those within ``depth_band`` levels of the gold's depth.
        """
        band = self.d.depth_band
        pos = self.g.pos[gold]
        if band is None:
            pool = list(answers.nodes) if self.d.random_from_answers and answers else self.g.by_pos[pos]
            return pool or self.g.by_pos[pos], lambda node: True
        low, high = self.depth[gold] - band, self.depth[gold] + band
        by_depth = self._answers_by_depth(answers) if self.d.random_from_answers and answers else None
        pool = [
            n
            for d in range(max(0, low), high + 1)
            for n in (by_depth.get(d, ()) if by_depth is not None else self.by_pos_depth.get((pos, d), ()))
        ]
        return pool or self.g.by_pos[pos], lambda node: low <= self.depth[node] <= high

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
                    from probesmith.errors import SpecError

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
                    counter = weights.setdefault((probe, k, self.g.pos[c]), Counter())
                    for node in level:
                        counter[node] += 1.0 / len(level)
        self.popular = {key: WeightedSampler(dict(counter)) for key, counter in weights.items()}

    def _sister_family_uncached(self, anchor: int) -> tuple[tuple[int, int], ...]:
        siblings = {s for p in self.g.parents[anchor] for s in self.g.children[p]} - {anchor}
        members: list[tuple[int, int]] = []
        level = sorted(siblings)
        rng = random.Random(stable_hash(self.spec.seed, "family", anchor))
        for depth in range(1, self.d.sister_depth + 1):
            if len(level) > _FAMILY_LEVEL_CAP:
                level = sorted(rng.sample(level, _FAMILY_LEVEL_CAP))
            members.extend((n, depth) for n in level)
            level = sorted({c for n in level for c in self.g.children[n]})
            if not level:
                break
        return tuple(members)

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
        rng: random.Random,
        pools: dict[str, list[tuple[int, int | None, str]] | WeightedSampler],
        pos: str,
        invalid: set[int],
        render,
        taken_texts: list[str],
        is_valid_text=lambda text: True,
        band: tuple[list[int], Callable[[int], bool]] | None = None,
    ) -> list[DraftChoice] | None:
        chosen: list[DraftChoice] = []
        used: set[int] = set()
        random_pool, in_band = band or (self.g.by_pos[pos], lambda node: True)
        popular = pools.get("popular")
        answers = (
            popular.node_set
            if self.d.random_from_answers and isinstance(popular, WeightedSampler)
            else frozenset()
        )

        def accept(node: int, hops: int | None, kind: str) -> bool:
            if node in invalid or node in used or (kind in ("popular", "random") and not in_band(node)):
                return False
            text = render(node)
            if any(near_duplicate(text, other) for other in taken_texts) or not is_valid_text(text):
                return False
            used.add(node)
            taken_texts.append(text)
            chosen.append(DraftChoice(text, self.g.names[node], kind, hops))
            return True

        shortfall = 0
        for kind, wanted in self.d.mix.items():
            if kind == "random" or wanted == 0:
                shortfall += wanted if kind == "random" else 0
                continue
            pool = pools.get(kind, [])
            got = 0
            if isinstance(pool, WeightedSampler):
                for _try in range(_RANDOM_TRIES * wanted):
                    if got == wanted:
                        break
                    got += accept(pool.draw(rng), None, kind)
            else:
                candidates = list(pool)
                rng.shuffle(candidates)
                if answers:  # sisters and opposite hops that are answers elsewhere come first
                    candidates.sort(key=lambda candidate: candidate[0] not in answers)
                for node, hops, tag in candidates:
                    if got == wanted:
                        break
                    got += accept(node, hops, tag)
            shortfall += wanted - got
        for _ in range(shortfall):
            for _try in range(_RANDOM_TRIES):
                if accept(rng.choice(random_pool), None, "random"):
                    break
            else:
                return None
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
        if contains_word(text, lemma):
            return True
        if self.morphy is None:
            return mentions_word(text, lemma)
        words = lemma.lower().replace("-", " ").split()
        tokens = [t.lower() for t in re.findall(r"[A-Za-z][A-Za-z'-]*", text)]
        n = len(words)
        for i in range(len(tokens) - n + 1):
            if tokens[i : i + n - 1] != words[:-1]:
                continue
            token, last = tokens[i + n - 1], words[-1]
            if token == last or any(self.morphy(token, pos) == last for pos in ("n", "v")):
                return True
        return False

    def lemmas_text(self, node: int) -> str:
        return ", ".join(self.g.lemmas[node])

    # ---- items -------------------------------------------------------------------------------
    def framing_order(
        self, probe: str, key: tuple, has_example: bool, pos: str = "n"
    ) -> list[tuple[str, str]]:
        """The probe's templates for a concept of part of speech ``pos``, in seeded order."""
        verb_templates = getattr(self.spec.framings, f"verb_{probe}", ()) if pos in ("v", "verb") else ()
        prefix, templates = (f"{probe}-v", verb_templates) if verb_templates else (f"{probe}-", None)
        templates = [
            (f"{prefix}{i}", t)
            for i, t in enumerate(templates or getattr(self.spec.framings, probe))
            if has_example or "{example}" not in t
        ]
        item_rng(self.spec.seed, "framing", *key).shuffle(templates)
        return templates

    def items_for(self, c: int) -> dict[str, list[DraftItem]]:
        g, spec = self.g, self.spec
        context = find_in_examples(g.lemmas[c], g.examples[c])
        word = context[1] if context else g.lemmas[c][0]
        in_context = {"word": word, "example": context[0] if context else "", "gloss": g.glosses[c]}
        out_of_context = {"word": g.lemmas[c][0], "example": "", "gloss": g.glosses[c]}
        for fields in (in_context, out_of_context):
            fields["a_word"] = with_article(fields["word"])
            fields["A_word"] = with_article(fields["word"], capital=True)
        name, pos = g.names[c], g.pos[c]
        out: dict[str, list[DraftItem]] = {}

        def make(probe, hops, gold_node, gold_text_for, pools, invalid, render, valid_text=None, band=None):
            # the first framing (in seeded order) whose question leaves the gold's word unsaid
            def fill(template: str) -> dict[str, str]:
                return in_context if "{example}" in template else out_of_context

            candidates = (
                (framing, question, gold_text_for(question))
                for framing, template in self.framing_order(probe, (name, hops), context is not None, pos)
                for question in [template.format(**fill(template))]
            )
            found = next((c for c in candidates if c[2] is not None), None)
            if found is None:
                self.dropped[f"{probe}: gold names a word in the question"] += 1
                return
            framing, question, gold_text = found
            for p in range(spec.perturbations):
                rng = item_rng(spec.seed, probe, name, hops, p)
                taken = [gold_text]
                picked = self.pick_distractors(
                    rng, pools, pos, invalid, render, taken, valid_text or (lambda t: True), band
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

        # an ancestor's gloss is true of the concept, only less specific: not a wrong answer
        neighbours = (self._isa_pool(c, "up") if self.d.less_specific else []) + self._isa_pool(c, "down")
        sisters_of_c = [(n, d, "sister") for n, d in self._sister_family(c)]
        if "definitions" in spec.probes:
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
                        {"sister": sisters_of_c, "opposite": neighbours},
                        {c},
                        lambda n: g.glosses[n],
                        lambda t: normalize_choice(t) != normalize_choice(gloss) and not names_word(t),
                    )
        if "synonymy" in spec.probes:
            own = {lemma.lower() for lemma in g.lemmas[c]}
            make(
                "synonymy",
                0,
                c,
                lambda q: None if any(self.says(q, x) for x in g.lemmas[c]) else self.lemmas_text(c),
                {"sister": sisters_of_c, "opposite": neighbours},
                {c},
                self.lemmas_text,
                lambda t: not own & {x.strip().lower() for x in t.split(",")},
            )
        if "hypernymy" in spec.probes:
            levels = g.ancestors_by_hops(c, spec.max_hops)
            invalid = {c} | g.all_ancestors(c)
            down = self._isa_pool(c, "down")
            for k in range(1, spec.max_hops + 1):
                if not levels[k]:
                    break
                gold = item_rng(spec.seed, "gold", "hypernymy", name, k).choice(sorted(levels[k]))
                sisters = [(n, d, "sister") for n, d in self._sister_family(gold)]
                make(
                    "hypernymy",
                    k,
                    gold,
                    self._gold_isa_text(gold),
                    {
                        "sister": sisters,
                        "opposite": down,
                        "popular": self.popular.get(("hypernymy", k, pos), []),
                    },
                    invalid,
                    self.isa_text,
                    band=self.band(gold, self.popular.get(("hypernymy", k, pos), [])),
                )
        if "hyponymy" in spec.probes:
            levels = g.descendants_by_hops(c, spec.max_hops)
            if levels[1]:
                invalid = {c} | g.all_descendants(c)
                up = self._isa_pool(c, "up")
                for k in range(1, spec.max_hops + 1):
                    if not levels[k]:
                        break
                    gold = item_rng(spec.seed, "gold", "hyponymy", name, k).choice(sorted(levels[k]))
                    make(
                        "hyponymy",
                        k,
                        gold,
                        self._gold_isa_text(gold),
                        {
                            "sister": sisters_of_c,
                            "opposite": up,
                            "popular": self.popular.get(("hyponymy", k, pos), []),
                        },
                        invalid,
                        self.isa_text,
                        band=self.band(gold, self.popular.get(("hyponymy", k, pos), [])),
                    )
        return out

    def _gold_isa_text(self, gold: int):
        def text_for(question: str) -> str | None:
            for lemma in self.g.lemmas[gold]:
                if not self.says(question, lemma):
                    return self.isa_text(gold, lemma)
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
def generate_wordnet(spec: WordNetSpec) -> FamilyOutput:
    """Generate every WordNetQA item ``spec`` asks for, grouped by probe type."""
    source = WordNetSource(spec.source_dir)
    graph = source.load(("noun", "verb"))
    builder = _Builder(spec, graph, source.reader().morphy)
    items: dict[str, list[DraftItem]] = {probe: [] for probe in spec.probes}
    concepts = builder.concepts()
    log.info("asking about %d WordNet concepts", len(concepts))
    builder.prepare_popular(concepts)
    for c in tqdm(concepts, desc="wordnet concepts", unit="concept", mininterval=1.0, disable=None):
        for probe, probe_items in builder.items_for(c).items():
            items[probe].extend(probe_items)
    if spec.distractors.balance_answers:
        for probe in ("hypernymy", "hyponymy"):
            if probe in items:
                items[probe] = balance_answers(
                    items[probe], spec.seed, spec.distractors.balance_floor, builder.dropped, probe
                )
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
    return FamilyOutput(card, {"wordnet": source.version()}, items=items, dropped=builder.dropped)
