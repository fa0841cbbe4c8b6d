"""DictionaryQA: word-sense multiple-choice probes from GCIDE.

After the DictionaryQA probe of Richardson & Sabharwal (TACL 2020): a word shown in one of
GCIDE's usage examples ("as, a bank of clouds") must be matched to the definition of the sense
it is used in. The distractors are, first, the definitions of the same word's other senses of the
same part of speech (up to ``other_senses``), then random definitions of other words with the same
part of speech that are themselves golds of the same split, so that they read like a gold. No
question shares a stem with its gold that no other-sense distractor shares (GCIDE defines derived
words by their base: "cultivator", *One who cultivates*): another usage example of the sense is
used, or the item is not made; nor where the word shares a Porter stem with the gold alone.
Splits are by cluster: headwords that share a definition or a usage example (variant spellings,
one block's headwords) or that WordNet's morphy reduces to one another are one cluster, so that no
gold definition, usage example or distractor definition appears in two splits (checked on every
item). GCIDE is GPL-3.0-or-later; so is this config.
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from probesmith.builders.morphology import FUNCTION_WORDS, StemAnalyser
from probesmith.builders.nltk_import import import_nltk
from probesmith.builders.registry import DraftChoice, DraftItem, MultipleChoiceOutput, register_family
from probesmith.builders.sampling import assign_splits, item_rng, stable_hash
from probesmith.builders.sources.gcide import GcideSource, Sense, definition_problem, example_residue
from probesmith.builders.sources.wordnet import WordNetSource
from probesmith.builders.text import find_in_examples, mentions_word, near_duplicate
from probesmith.probes.spec import MultipleChoiceSpec, spec_field
from probesmith.progress import progress
from probesmith.schemas.card import CardInfo

log = logging.getLogger(__name__)

CONFIG = "word_sense"
_RANDOM_TRIES = 64


@dataclass(frozen=True)
class DictionarySpec(MultipleChoiceSpec):
    """Spec of the DictionaryQA family."""

    min_senses: int = spec_field(
        2, help="Only words with at least this many distinct senses (definitions) qualify."
    )
    distractors: int = spec_field(4, help="Distractors per item (choices = distractors + 1).")
    other_senses: int = spec_field(
        4, help="At most this many distractors are the word's other senses; the rest are random."
    )
    examples_per_sense: int = spec_field(
        1, help="Questions per sense: one per usage example containing the word, up to this many."
    )
    perturbations: int = spec_field(
        1, help="Items per (sense, example): the same question with different distractor sets."
    )
    pos: tuple[str, ...] = spec_field(
        (), help="Only senses of these parts of speech (noun, verb, adjective, ...); empty = all."
    )
    words: tuple[str, ...] = spec_field((), help="Only these headwords; empty = every word.")
    limit: int = spec_field(0, help="Keep at most this many words, chosen by keyed hash; 0 = all.")
    framings: tuple[str, ...] = spec_field(
        (
            'In "{example}", what does "{word}" mean?',
            'What is the meaning of "{word}" in the phrase "{example}"?',
            'The word "{word}" in "{example}" means',
        ),
        help="Question templates, one chosen per question by the seed; "
        "placeholders {word} (as it appears in the example) and {example}.",
    )
    source_dir: str = spec_field("/usr/share/dictd", help="Folder with gcide.index and gcide.dict.dz.")

    def __post_init__(self) -> None:
        if self.distractors < 1 or self.min_senses < 2 or self.perturbations < 1:
            raise ValueError("distractors >= 1, min_senses >= 2 and perturbations >= 1 are required")
        if not 0 <= self.other_senses <= self.distractors:
            raise ValueError("other_senses must be between 0 and distractors")
        for template in self.framings:
            if "{word}" not in template or "{example}" not in template:
                raise ValueError(f"framings: template {template!r} must use {{word}} and {{example}}")


GCIDE_LICENCE = """\
Derived from GCIDE, the GNU Collaborative International Dictionary of English, which is free
software under the GNU General Public License, version 3 or later. This config is therefore
distributed under GPL-3.0-or-later: see https://www.gnu.org/licenses/gpl-3.0.html. GCIDE is
based on Webster's Revised Unabridged Dictionary (1913) and WordNet."""


KNOWN_LIMITATION = """\
The `other_sense` distractors are the word's other GCIDE senses, and GCIDE tells senses apart
finely. Other senses that GCIDE's own structure marks as close to the gold are not used as
distractors (counted under "other senses not used as distractors" in `validity.json`):
sub-senses of the gold's numbered sense, a sense derived from it by "Hence" (or the gold from
it), the next sense in the same entry, a general "Of or pertaining to ..." sense, a sense whose
definition shares a content word with the gold's (also on WordNet-widened stems of 3+ letter
words: "oar" / "oars"; GCIDE's v.t. and v.i. entries of a verb so compared), and a sense linked
to the gold by a chain of neighbouring senses that share content stems. Read against WordNet as
well: an earlier sense of the gold's entry that only lists short synonyms (the general sense
Webster puts first: *inhibit* "To check; to hold back; to restrain; to hinder" beside the
chemistry sense), a sense that maps to the gold's WordNet synset or one related to it (ISA, verb
group, similar, also see), and a definition holding a WordNet synonym of a word of the gold's
("a single unit" beside "formed into a whole"). Random definitions fill their places. These are
rules, not a guarantee, and they lean to refusing: of 56 other-sense distractors that readers
judged (two reviewed sheets), they refuse both that readers defended and 11 of the 54 they did
not. Random distractors (golds of other words of the same split and part of speech, never of a
variant of the word; a part of speech with under 20 golds in a split has no items there) are not
compared with the gold by meaning.
Readings of 25 random items of the default build found 4 (+5 arguable) distractors a reader
could defend before any rule, then 1 (+2), 2, 2, and, after the WordNet rules, 0 (+1 arguable: a
random definition of "internal", *Derived from ... the thing itself; inherent*, beside *innate
ideas*). GCIDE's applicability notes ("-- said of a color", "-- of a singer") are kept on every
choice as meaning: golds carry one as often as distractors (4.9% / 5.5%; where one choice alone
has one, it is the gold in 0.19 of items, chance 0.20). Measure it on your build with
`probesmith review-sample BUILD`, whose `other_correct` column gives the validated accuracy."""


@register_family(
    "dictionary",
    DictionarySpec,
    default_spec="dictionary",
    description="DictionaryQA: a word in a GCIDE usage example -> its sense's definition",
)
def generate_dictionary(spec: DictionarySpec) -> MultipleChoiceOutput:
    """Generate a DictionaryQA item per (sense, usage example, perturbation).

    Other senses of the word that a reader would also accept for the example
    (:func:`defensible_reason`) are not distractors; each is counted by its reason.

    Golds and distractors come from one pool of usable definitions (cleaned, with no markup
    residue or cross-reference, at least three words: ``definition_problem``) and pass the
    same rules: no choice mentions the word asked about (in any regular inflection), and no
    two choices of an item are near-duplicates (token Jaccard >= 0.6).
    """
    source = GcideSource(spec.source_dir)
    senses = source.senses()
    dropped: Counter = Counter()
    by_word: dict[str, list[Sense]] = defaultdict(list)
    for sense in senses:
        problem = definition_problem(sense.definition)
        if problem:
            dropped[f"senses: not a usable definition: {problem}"] += 1
            continue
        by_word[sense.word].append(sense)
    words = [w for w in sorted(by_word) if not spec.words or w in set(spec.words)]
    if spec.limit:
        words = sorted(sorted(words, key=lambda w: stable_hash(spec.seed, w))[: spec.limit])
    wordnet = WordNetSource()
    stems = default_stems()
    candidates: list[tuple[Sense, list[Sense], list[tuple]]] = []  # (sense, other senses, questions)
    for word in progress(words, desc="gcide words", unit="word"):
        word_senses = _distinct_senses(by_word[word], dropped)
        if len(word_senses) < spec.min_senses:
            continue
        for sense in word_senses:
            if spec.pos and sense.pos not in spec.pos:
                continue
            contexts = _contexts(sense)
            if sense.examples and not contexts:
                dropped["word_sense: no usage example contains the word"] += 1
            if contexts and mentions_the_word(sense.definition, word):
                dropped["word_sense: definition mentions the word"] += 1
                continue
            if contexts:
                others = _other_senses(sense, word_senses, dropped, stems)
                questions = [_question(spec, sense, e, *c) for e, c in enumerate(contexts)]
                candidates.append((sense, others, questions))
    template = stems.template_stems([q for *_, questions in candidates for _, q, *_ in questions])
    plans = [
        plan
        for sense, others, questions in candidates
        for plan in _plans(spec, stems, template, sense, others, questions, dropped)
    ]
    cluster_of = concept_clusters(by_word, {plan.sense.word for plan in plans}, stems.reader)
    plans = _with_gold_pools(spec, plans, cluster_of, dropped)
    gold_pools = _gold_pools(spec, plans, cluster_of)
    items: list[DraftItem] = []
    for plan in plans:
        pool = gold_pools[(cluster_of[plan.sense.word], plan.sense.pos)]
        item = _item(spec, plan, pool, dropped, cluster_of[plan.sense.word], cluster_of)
        if item is not None:
            items.append(item)
    card = CardInfo(
        pretty_name="DictionaryQA word-sense probes from GCIDE (probesmith)",
        description=spec.description or __doc__.split("\n\n")[1],
        license="gpl-3.0",
        licence_text=GCIDE_LICENCE,
        tags=("probing", "gcide", "word-sense", "multiple-choice"),
        extra_sections=(("Known limitation", KNOWN_LIMITATION),),
    )
    versions = {"gcide": source.version(), "wordnet": wordnet.version()}
    return MultipleChoiceOutput(card, versions, items={CONFIG: items}, dropped=dropped)


# A general sense that covers the specific ones: "Of or pertaining to horses" beside "equestrian statue"
_GENERAL_SENSE = re.compile(
    r"^(?:of,?\s+(?:or\s+)?(?:pertaining|relating|belonging)\s+to|pertaining\s+to|relating\s+to"
    r"|of\s+or\s+like|characteristic\s+of)\b",
    re.I,
)
_STEM = 5
# words of definitions that carry no sense of their own ("the act of ...", "used especially of ...")
_DEFINITION_STOPWORDS = frozenset(
    w[:_STEM]
    for w in (
        "that which with from into upon being having other such some something anything thing things "
        "person persons one ones used especially esp also often usually commonly generally applied "
        "said called manner state quality condition act action process cause make made like kind "
        "sort form part certain any very more most much many given taken same place time way "
        "whose when where there their them they this these those than then what make makes"
    ).split()
)


def _content_stems(text: str) -> frozenset[str]:
    words = re.findall(r"[a-z]{4,}", text.lower())
    return frozenset(w[:_STEM] for w in words) - _DEFINITION_STOPWORDS


def _widened_stems(stems: StemAnalyser, text: str) -> frozenset[str]:
    """Stems of a definition's content words of 3+ letters, widened by WordNet (oar / oars, drift / drive)."""
    words = {
        w
        for w in re.findall(r"[a-z]+", text.lower())
        if len(w) >= 3 and w not in FUNCTION_WORDS and w[:_STEM] not in _DEFINITION_STOPWORDS
    }
    return frozenset().union(*(stems.word_stems(w) for w in words)) if words else frozenset()


@lru_cache(maxsize=1)
def default_stems() -> StemAnalyser:
    """The stem analyser the build uses (WordNet's lemma index), made once per process."""
    return StemAnalyser(WordNetSource().reader())


def _chained(gold: Sense, other: Sense, word_senses: Sequence[Sense], stems: StemAnalyser) -> bool:
    """Whether every pair of neighbouring numbered senses between the two (one entry) shares a content stem.

    "affix" v.: sense 1 *To subjoin, annex ...; to fix to any part of* and sense 3 *To attach, unite,
    or connect with* share no word, but sense 2 *To fix or fasten in any way; to attach physically*
    shares one with each: Webster's senses run into each other there.
    """
    mine, theirs = _sense_number(gold), _sense_number(other)
    if other.entry != gold.entry or mine is None or theirs is None or abs(mine - theirs) < 2:
        return False
    by_number: dict[int, list[Sense]] = defaultdict(list)
    for sense in word_senses:
        if sense.entry == gold.entry and _sense_number(sense) is not None:
            by_number[_sense_number(sense)].append(sense)
    low, high = sorted((mine, theirs))
    return all(
        any(
            _widened_stems(stems, a.definition) & _widened_stems(stems, b.definition)
            for a in by_number.get(n, ())
            for b in by_number.get(n + 1, ())
        )
        for n in range(low, high)
    )


def _sense_number(sense: Sense) -> int | None:
    match = re.match(r"\d+", sense.number)
    return int(match.group(0)) if match else None


SHARED_STEMS = 1  # content-word stems a distractor may share with the gold before it is also right

_WORDNET_POS = {"noun": ("n",), "verb": ("v",), "adjective": ("a", "s"), "adverb": ("r",)}
# a sense that only lists short synonyms ("To check; to hold back; to restrain; to hinder")
_SYNONYM_LIST_PARTS, _SYNONYM_LIST_WORDS = 3, 4


class WordNetSenses:
    """GCIDE senses read against WordNet: which synset a sense is, and which words are synonyms.

    ``synset_of`` maps a sense of a word to the one synset of that word (same part of speech)
    whose gloss, examples, lemmas and neighbours' lemmas share the most base forms with the
    sense's definition and usage examples (none where no synset shares any, or two tie).
    ``synonyms`` of a word are the lemmas of every synset of its base forms.
    """

    def __init__(self, reader):
        self.reader = reader
        self._bases = lru_cache(maxsize=1 << 17)(self._bases_uncached)
        self._synonyms = lru_cache(maxsize=1 << 17)(self._synonyms_uncached)
        self._synset_words = lru_cache(maxsize=1 << 17)(self._synset_words_uncached)
        self._candidates = lru_cache(maxsize=1 << 16)(self._candidates_uncached)
        self._ancestors = lru_cache(maxsize=1 << 16)(self._ancestors_uncached)
        self._mapped: dict[str, object] = {}

    def _candidates_uncached(self, word: str, pos: str) -> tuple:
        return tuple(
            synset
            for tag in _WORDNET_POS.get(pos, ())
            for synset in self.reader.synsets(word, tag)
            if synset.pos() == tag and word in (n.lower() for n in synset.lemma_names())
        )

    def _ancestors_uncached(self, name: str) -> frozenset[str]:
        synset = self.reader.synset(name)
        return frozenset(s.name() for s in synset.closure(lambda s: s.hypernyms() + s.instance_hypernyms()))

    def content_words(self, text: str, word: str) -> frozenset[str]:
        """Content words of 3+ letters of a text, the word asked about and function words aside."""
        return frozenset(
            w
            for w in re.findall(r"[a-z]+", text.lower())
            if len(w) >= 3
            and w != word
            and w not in FUNCTION_WORDS
            and w[:_STEM] not in _DEFINITION_STOPWORDS
        )

    def _bases_uncached(self, word: str) -> frozenset[str]:
        return frozenset({word} | {b for pos in "nvar" if (b := self.reader.morphy(word, pos))})

    def bases(self, words: frozenset[str]) -> frozenset[str]:
        """The words and their WordNet base forms ("restrains" -> restrain)."""
        return frozenset().union(*(self._bases(w) for w in words)) if words else frozenset()

    def _synonyms_uncached(self, word: str) -> frozenset[str]:
        found = {
            name.lower()
            for base in self._bases(word)
            for synset in self.reader.synsets(base)
            for name in synset.lemma_names()
            if "_" not in name
        }
        return frozenset(found - {word})

    def synonym_pair(self, gold: Sense, other: Sense) -> tuple[str, str] | None:
        """A content word of one definition and a WordNet synonym of it in the other ("whole", "unit")."""
        mine = self.content_words(gold.definition, gold.word)
        theirs = self.content_words(other.definition, gold.word)
        my_bases, their_bases = self.bases(mine), self.bases(theirs)
        for word in sorted(mine):
            hit = self._synonyms(word) & their_bases
            if hit:
                return word, min(hit)
        for word in sorted(theirs):
            hit = self._synonyms(word) & my_bases
            if hit:
                return min(hit), word
        return None

    def _synset_words_uncached(self, name: str, word: str) -> frozenset[str]:
        synset = self.reader.synset(name)
        text = " ".join([synset.definition(), *synset.examples()])
        lemmas = {part.lower() for n in synset.lemma_names() for part in n.split("_")}
        for near in synset.hypernyms() + synset.similar_tos() + synset.verb_groups():
            lemmas |= {n.lower() for n in near.lemma_names() if "_" not in n}
        return (self.bases(self.content_words(text, word)) | frozenset(lemmas)) - {word}

    def synset_of(self, sense: Sense):
        """The WordNet synset of the sense's word that the sense is, or None (see the class)."""
        if sense.key in self._mapped:
            return self._mapped[sense.key]
        found = None
        candidates = self._candidates(sense.word, sense.pos)
        text = " ".join([sense.definition, *sense.examples])
        words = self.bases(self.content_words(text, sense.word))
        scored = sorted(
            ((len(words & self._synset_words(s.name(), sense.word)), s.name()) for s in candidates),
            reverse=True,
        )
        if scored and scored[0][0] > 0 and (len(scored) == 1 or scored[1][0] < scored[0][0]):
            found = self.reader.synset(scored[0][1])
        self._mapped[sense.key] = found
        return found

    def relation(self, gold: Sense, other: Sense) -> str | None:
        """How WordNet relates the synsets the two senses map to: same, ISA, verb group, similar, also see."""
        mine, theirs = self.synset_of(gold), self.synset_of(other)
        if mine is None or theirs is None:
            return None
        if mine == theirs:
            return "the same synset"
        if theirs.name() in self._ancestors(mine.name()) or mine.name() in self._ancestors(theirs.name()):
            return "ISA"
        if theirs in mine.verb_groups() or mine in theirs.verb_groups():
            return "verb group"
        similar = set(mine.similar_tos()) | {mine}
        if theirs in similar or similar & (set(theirs.similar_tos()) | {theirs}):
            return "similar"
        if theirs in mine.also_sees() or mine in theirs.also_sees():
            return "also see"
        return None


@lru_cache(maxsize=1)
def default_wordnet_senses() -> WordNetSenses:
    """The WordNet sense reader the build uses (on the stem analyser's reader), made once per process."""
    return WordNetSenses(default_stems().reader)


def _synonym_list(sense: Sense) -> bool:
    parts = [p.strip() for p in sense.definition.rstrip(".").split(";")]
    return len(parts) >= _SYNONYM_LIST_PARTS and all(len(p.split()) <= _SYNONYM_LIST_WORDS for p in parts)


def general_earlier_sense(gold: Sense, other: Sense) -> bool:
    """Whether ``other`` is an earlier sense of the gold's entry that lists short synonyms.

    Webster puts a word's general sense first and its specialised ones after it: *inhibit* 1. *To
    check; to hold back; to restrain; to hinder* covers 3. (Chem.) *To cause the rate of (a
    chemical reaction) to proceed slower*.
    """
    mine, theirs = _sense_number(gold), _sense_number(other)
    return (
        other.entry == gold.entry
        and mine is not None
        and theirs is not None
        and theirs < mine
        and _synonym_list(other)
    )


def defensible_reason(
    gold: Sense,
    other: Sense,
    word_senses: Sequence[Sense] = (),
    stems: StemAnalyser | None = None,
    wordnet: WordNetSenses | None = None,
) -> str | None:
    """Why a reader would accept ``other`` (another sense of the gold's word) for the gold's example.

    Read from GCIDE's own structure: a sub-sense of the same numbered sense ("2a" beside "2b"), a
    sense derived from the gold by "Hence" or the gold derived from it, the sense next to the gold's
    in the same entry (Webster orders senses by their development, so neighbours overlap), a general
    "Of or pertaining to X" sense beside another of the same part of speech, or a definition that
    shares ``SHARED_STEMS`` content words with the gold's. Then, on the stems of content words of 3+
    letters widened by WordNet (``StemAnalyser``: "oar" / "oars", "drift" / "drive"): a transitive and
    an intransitive verb sense (GCIDE puts them in separate entries: "row" v.t. *To propel with oars*,
    v.i. *To use the oar*) sharing one, or any other sense sharing one; and a sense linked to the
    gold by a chain of neighbouring senses of the entry (``word_senses``, the word's senses) that
    each share a widened content stem with the next. Last, read against WordNet
    (:class:`WordNetSenses`, issue 24 round 4): an earlier sense of the gold's entry that lists short
    synonyms (the general sense Webster puts first: *inhibit* "to check; to restrain" beside the
    chemistry sense), a sense that maps to the gold's synset or one related to it (ISA at any depth,
    verb group, similar, also see), and a definition with a WordNet synonym of a word of the gold's
    ("a single unit" beside "formed into a whole"). None: the other sense can stand as wrong.
    """
    if other.word != gold.word or other.key == gold.key:
        return None
    mine, theirs = _sense_number(gold), _sense_number(other)
    if other.entry == gold.entry and mine is not None and theirs is not None:
        if mine == theirs:
            return "a sub-sense of the gold's numbered sense"
        if (theirs == mine + 1 and other.derived) or (mine == theirs + 1 and gold.derived):
            return "derived from the gold's sense by Hence, or the gold from it"
        if abs(mine - theirs) == 1:
            return "the next sense in the gold's entry"
    general = _GENERAL_SENSE.match(other.definition) or _GENERAL_SENSE.match(gold.definition)
    if other.pos == gold.pos and general:
        return "a general 'of or pertaining to' sense beside the gold"
    if len(_content_stems(gold.definition) & _content_stems(other.definition)) >= SHARED_STEMS:
        return "shares content words with the gold"
    stems = stems or default_stems()
    if _widened_stems(stems, gold.definition) & _widened_stems(stems, other.definition):
        if other.entry != gold.entry and {gold.marker, other.marker} == {"v. t.", "v. i."}:
            return "the gold's verb sense in the other voice (v.t./v.i.) sharing a content stem"
        return "shares a WordNet-widened content stem with the gold (3+ letter words)"
    if _chained(gold, other, word_senses, stems):
        return "linked to the gold by neighbouring senses that share content stems"
    if general_earlier_sense(gold, other):
        return "an earlier general sense of the gold's entry that lists short synonyms"
    senses = wordnet or default_wordnet_senses()
    relation = senses.relation(gold, other)
    if relation:
        return f"maps to a WordNet synset of the word related to the gold's ({relation})"
    if senses.synonym_pair(gold, other):
        return "a word of its definition is a WordNet synonym of a word of the gold's"
    return None


def _distinct_senses(senses: list[Sense], dropped: Counter) -> list[Sense]:
    """A word's senses without near-duplicates (the first of each group kept, in source order)."""
    distinct: list[Sense] = []
    for sense in senses:
        if any(near_duplicate(sense.definition, kept.definition) for kept in distinct):
            dropped["senses: near-duplicate of another sense of the word"] += 1
        else:
            distinct.append(sense)
    return distinct


_MIN_POOL = 20  # a split's golds of one part of speech fewer than this: no items of that part of speech


@dataclass(frozen=True)
class _Plan:
    """One item before its random distractors: the sense, the question, the other-sense distractors."""

    sense: Sense
    e: int  # which of the sense's usage examples that contain the word
    p: int  # perturbation
    question: str
    framing_id: int
    others: tuple[DraftChoice, ...]
    rejected: tuple[tuple[str, int], ...]  # distractor candidates refused while choosing ``others``


def _normal_text(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def concept_clusters(by_word: dict[str, list[Sense]], item_words: set[str], reader) -> dict[str, str]:
    """Every word's cluster: the connected components of words linked as one concept.

    Two headwords are linked when they share a (normalised) definition or usage example, which
    also joins the headwords of one GCIDE block and its variant spellings ("folk" / "folks",
    "static" / "statical", "milepost" / "milestone"), or when WordNet's ``morphy`` reduces one to
    the other ("reticulated" -> "reticulate"). A component is named ``gcide:<w>`` after its first
    word (in sort order) that has items, else its first word. Since every definition a choice shows
    is a sense of a word of the item's cluster or of a word in the same split (:func:`_gold_pools`),
    no gold, usage example or distractor text is shown in two splits.
    """
    parent = {word: word for word in by_word}

    def root(word: str) -> str:
        while parent[word] != word:
            parent[word] = parent[parent[word]]
            word = parent[word]
        return word

    def link(a: str, b: str) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    first_with: dict[str, str] = {}
    for word in sorted(by_word):
        texts = {"d:" + _normal_text(s.definition) for s in by_word[word]}
        texts |= {"e:" + _normal_text(e) for s in by_word[word] for e in s.examples}
        for text in texts:
            if text in first_with:
                link(first_with[text], word)
            else:
                first_with[text] = word
        if word.isalpha():
            for tag in "nvar":
                base = reader.morphy(word, tag)
                if base and base != word and base in parent:
                    link(base, word)
    members: dict[str, list[str]] = defaultdict(list)
    for word in sorted(by_word):
        members[root(word)].append(word)
    cluster_of = {}
    for words in members.values():
        named = next((w for w in words if w in item_words), words[0])
        for word in words:
            cluster_of[word] = f"gcide:{named}"
    return cluster_of


def _split_golds(
    spec: DictionarySpec, plans: list[_Plan], cluster_of: dict[str, str]
) -> tuple[dict[str, str], dict[tuple[str, str], dict[str, Sense]]]:
    """The split of each cluster and the golds of each (split, part of speech).

    The splits are the ones the build assigns (``assign_splits`` over the same cluster sizes: one
    item per plan).
    """
    sizes: dict[str, Counter] = defaultdict(Counter)
    for plan in plans:
        sizes[cluster_of[plan.sense.word]][CONFIG] += 1
    split_of, _overflow = assign_splits(sizes, spec.seed, spec.splits.train_items, spec.splits.dev_share)
    golds: dict[tuple[str, str], dict[str, Sense]] = defaultdict(dict)
    for plan in plans:
        split = split_of[cluster_of[plan.sense.word]]
        golds[(split, plan.sense.pos)][plan.sense.key] = plan.sense
    return split_of, golds


def _with_gold_pools(
    spec: DictionarySpec, plans: list[_Plan], cluster_of: dict[str, str], dropped: Counter
) -> list[_Plan]:
    """The plans whose split has at least ``_MIN_POOL`` golds of their part of speech.

    Random distractors are golds of the item's split and part of speech; where a split has fewer
    (pronouns, conjunctions, interjections, prefixes of unknown part of speech), another part of
    speech or a sense that is no gold would fill the slots and give the answer away by its form,
    so those items are not made. Dropping them can move other clusters between splits, so this
    repeats until every remaining (split, part of speech) has its pool.
    """
    while True:
        split_of, golds = _split_golds(spec, plans, cluster_of)
        small = {key for key, pool in golds.items() if len(pool) < _MIN_POOL}
        if not small:
            return plans
        kept = []
        for plan in plans:
            if (split_of[cluster_of[plan.sense.word]], plan.sense.pos) in small:
                dropped[
                    f"{CONFIG}: its split has under {_MIN_POOL} golds of its part of speech "
                    "to draw random distractors from"
                ] += 1
            else:
                kept.append(plan)
        plans = kept


def _gold_pools(
    spec: DictionarySpec, plans: list[_Plan], cluster_of: dict[str, str]
) -> dict[tuple[str, str], list[Sense]]:
    """The senses random distractors are drawn from, by (cluster, part of speech): golds of its split.

    A random distractor is thus a sense that is itself a gold, of the same part of speech, in the
    same split: it reads like a gold (a sense of a polysemous word with a usage example), so a
    choice's text alone does not tell the gold, and no definition is an answer in one split and a
    distractor in another. Every (split, part of speech) has ``_MIN_POOL`` golds or more
    (:func:`_with_gold_pools`).
    """
    split_of, golds = _split_golds(spec, plans, cluster_of)
    return {
        (cluster, pos): list(golds[(split_of[cluster], pos)].values())
        for cluster, pos in {(cluster_of[plan.sense.word], plan.sense.pos) for plan in plans}
    }


def mentions_the_word(text: str, word: str) -> bool:
    """Whether ``text`` uses ``word`` or a regular inflection of it, hyphenated or possessive forms too.

    "ex-wife" mentions *ex*, "hog's back" *hog*, "Self-sufficient" *self*.
    """
    return mentions_word(text, word) or mentions_word(re.sub(r"['\u2019-]+", " ", text), word)


@lru_cache(maxsize=1)
def _porter():
    import_nltk()  # deferred (slow), and without NLTK's scikit-learn and SciPy bridges (~75 MB)
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer().stem


@lru_cache(maxsize=1 << 17)
def porter_stems(text: str, function_words: bool = False) -> frozenset[str]:
    """Porter stems of a text's words of 3+ letters (function words only where asked).

    "communal" and "commune" both give "commun".
    """
    stem = _porter()
    words = re.findall(r"[a-z]+", text.lower())
    return frozenset(stem(w) for w in words if len(w) >= 3 and (function_words or w not in FUNCTION_WORDS))


def word_gives_away(word: str, gold: str, distractors: Sequence[str]) -> frozenset[str]:
    """The Porter stems the word asked about shares with the gold and with no distractor.

    Every word of the headword counts, function words too ("knock down" and *To bring down*).
    """
    shared = porter_stems(word, function_words=True) & porter_stems(gold, function_words=True)
    for text in distractors:
        if not shared:
            break
        shared = shared - porter_stems(text, function_words=True)
    return shared


def _contexts(sense: Sense) -> list[tuple[str, str]]:
    found = []
    for example in sense.examples:
        if example_residue(example):  # "... two lines intersect. intersectant", "See the Note under"
            continue
        match = find_in_examples((sense.word,), (example,))
        if match:
            found.append(match)
    return found


def _acceptable(candidate: Sense, word: str, taken: list[str], dropped: Counter) -> bool:
    """Whether a distractor candidate passes the rules every choice passes."""
    if mentions_the_word(candidate.definition, word):
        dropped["distractor candidates rejected: mention the word"] += 1
        return False
    if any(near_duplicate(candidate.definition, other) for other in taken):
        dropped["distractor candidates rejected: near-duplicate of another choice"] += 1
        return False
    return True


def _other_senses(
    sense: Sense, word_senses: list[Sense], dropped: Counter, stems: StemAnalyser | None = None
) -> list[Sense]:
    """The word's other senses that may be distractors of ``sense``: its part of speech, not defensible.

    A sense of another part of speech is wrong by grammar alone ("to breed" beside a noun sense of
    breed), so a reader would eliminate it without knowing the word: other-sense distractors have
    the gold's part of speech, as random ones do.
    """
    others = []
    for other in word_senses:
        if other.key == sense.key:
            continue
        if other.pos != sense.pos:
            reason = "another part of speech"
        else:
            reason = defensible_reason(sense, other, word_senses, stems)
        if reason:
            dropped[f"{CONFIG}: other senses not used as distractors: {reason}"] += 1
        else:
            others.append(other)
    return others


def _question(spec: DictionarySpec, sense: Sense, e: int, example: str, surface: str) -> tuple:
    """(e, question, framing id, the word as shown) for the sense's ``e``-th example with the word."""
    framing_id, template = item_rng(spec.seed, "framing", sense.key, e).choice(list(enumerate(spec.framings)))
    return e, template.format(word=surface, example=example), framing_id, surface


def _plans(spec, stems, template, sense, others, questions, dropped) -> list[_Plan]:
    """The items of one sense, up to ``examples_per_sense`` usage examples, none giving the gold away.

    GCIDE defines a derived word by its base ("cultivator": *One who cultivates*), and an example
    may repeat a word of the definition ("effortless victory": *Requiring little or no effort*).
    An item whose question shares a stem with the gold that no other-sense distractor shares
    (``StemAnalyser.gives_away``, the stems of the framings aside) is not made: the sense's next
    usage example is tried in its place, and where none is left the item is dropped, counted by
    whether the word itself or the rest of the example shares the stem. The decision looks at
    the gold and the word's other senses only, never at the random distractors (which are drawn
    afterwards and may only add stems), so no random distractor is chosen or refused for its stems.
    """
    plans: list[_Plan] = []
    used = 0
    failed: list[str] = []
    for e, question, framing_id, surface in questions:
        if used == spec.examples_per_sense:
            break
        made = []
        for p in range(spec.perturbations):
            rejected: Counter = Counter()
            rng = item_rng(spec.seed, CONFIG, sense.key, e, p)
            taken = [sense.definition]
            chosen: list[DraftChoice] = []
            for other in rng.sample(others, min(spec.other_senses, len(others))):
                if _acceptable(other, sense.word, taken, rejected):
                    taken.append(other.definition)
                    chosen.append(DraftChoice(other.definition, other.key, "other_sense", None))
            given = stems.gives_away(question, taken, 0, template) or word_gives_away(
                sense.word, taken[0], taken[1:]
            )
            if given:
                by_word = given & (stems.text_stems(surface) | stems.text_stems(sense.word))
                shown_by = "the word asked about" if by_word else "the usage example"
                made.append(f"{shown_by} shares a stem with the gold and no distractor")
            else:
                made.append(_Plan(sense, e, p, question, framing_id, tuple(chosen), tuple(rejected.items())))
        kept = [m for m in made if isinstance(m, _Plan)]
        if kept:
            used += 1
            plans.extend(kept)
            for reason in made:
                if isinstance(reason, str):
                    dropped[f"{CONFIG}: gives the gold away in one perturbation: {reason}"] += 1
        else:
            failed.append(made[0])
    lost = min(spec.examples_per_sense, len(questions)) - used
    for reason in failed[:lost]:
        dropped[f"{CONFIG}: gives the gold away, no other usage example: {reason}"] += 1
    for _ in failed[lost:]:
        dropped[f"{CONFIG}: usage example gives the gold away, another example of the sense used"] += 1
    return plans


def _item(
    spec: DictionarySpec,
    plan: _Plan,
    random_pool: list[Sense],
    dropped: Counter,
    cluster: str,
    clusters: dict[str, str] | None = None,
) -> DraftItem | None:
    """The planned item with random distractors from ``random_pool`` up to ``spec.distractors``."""
    sense = plan.sense
    dropped.update(dict(plan.rejected))
    rng = item_rng(spec.seed, CONFIG, sense.key, plan.e, plan.p, "random")
    taken = [sense.definition] + [c.text for c in plan.others]
    chosen = list(plan.others)
    while len(chosen) < spec.distractors:
        for _try in range(_RANDOM_TRIES):
            candidate = rng.choice(random_pool)
            if candidate.word != sense.word and _acceptable(candidate, sense.word, taken, dropped):
                if clusters and clusters.get(candidate.word, cluster) == cluster:
                    dropped["distractor candidates rejected: a variant of the word (same cluster)"] += 1
                    continue
                taken.append(candidate.definition)
                chosen.append(DraftChoice(candidate.definition, candidate.key, "random", None))
                break
        else:
            break
    if len(chosen) < spec.distractors:
        dropped["word_sense: too few distinct distractors"] += 1
        return None
    return DraftItem(
        id=f"{CONFIG}:{sense.key}:{plan.e}:{plan.p}",
        probe=CONFIG,
        question=plan.question,
        gold=DraftChoice(sense.definition, sense.key, "gold", None),
        distractors=chosen,
        cluster=cluster,
        concept=sense.key,
        hops=0,
        pos=sense.pos,
        framing=f"{CONFIG}-{plan.framing_id}",
        perturbation=plan.p,
        source="gcide-0.48",
    )
