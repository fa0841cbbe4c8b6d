"""Word stems for answer-given-away checks: the Snowball stemmer widened by WordNet's morphology.

Shared by the builders that ask whether a question gives its gold away by the form of a word
("breeds" / breeder, "farm" / farmyard, "sumac" / sumach): WordNetQA and DictionaryQA.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

from probesmith.builders.nltk_import import import_nltk
from probesmith.builders.text import TEXT_CACHE_SIZE, WORD_CACHE_SIZE

AFFIX_WORDS = 100  # words of WordNet's vocabulary an affix begins or ends, at least
# words that end compounds as suffixes do (friendship / hardship, childhood / falsehood, wireless / useless):
# a compound part two words share is no give-away when it is one of these (StemAnalyser.shared_parts)
SUFFIX_WORDS = frozenset("ship ships hood hoods less like wise ward wards able ness some ment".split())
TEMPLATE_SHARE = 0.1  # a stem in this share of a config's questions is its template's, not the concept's

# Words that carry no identity of their own: sharing one gives nothing away.
FUNCTION_WORDS = frozenset(
    "a an the of and or to in on at by for with from as is are was were be been being it its this "
    "that these those which who whom whose what when where how than then there their they them he "
    "she his her him you your we our us not no nor but so such some any all each every other another "
    "one ones into onto out up down over under off about after before between through during without "
    "within upon more most less least very much many few can could may might must shall should will "
    "would do does did done has have had having e g etc something someone especially usually often "
    "used use like make made".split()
)

# Function words a reader still matches between a question and a choice's name: the particles of
# phrasal verbs ("smoke out" / "rout out"), "like" ("to like something" / liking), "down" (the
# feathers: "down of the swan" / "down feather") and light verbs ("make a rattling sound" / "make
# noise"). They are compared with a choice's name only (:meth:`StemAnalyser.label_stems`), where
# they name it; in glosses they are too common to say anything. Every other function word of 3+
# letters that is also a WordNet word counts there too (:attr:`StemAnalyser.label_words`): in a
# name it is a content word ("a will is genuine" / probate will, "May" / mid-May, "Very pistol" /
# Very light, "practical use" / usefulness, "being there" / thereness).
CUE_WORDS = frozenset(
    "up down out off over under about into onto away back around along through apart aside like "
    "make made go get give take put set come".split()
)


class StemAnalyser:
    """Word stems for answer-given-away checks: Snowball stems widened by WordNet's morphology.

    A word's stems are the Snowball stem of the word and of its base forms (``morphy``), of the
    lemmas WordNet links to those by a derivational pointer ("breeds" -> breed, breeder,
    breeding), of the parts of a compound whose two parts are WordNet words of 4+ letters
    ("farmyard" -> farm, yard), of a WordNet word of 5+ letters it begins or ends with
    ("subpopulation" -> population, "Nepalese" -> Nepal, "afterworld" -> world), and of the word
    less its last one or two letters where that is a WordNet word of 4+ letters (spelling
    variants: "sumach" -> sumac, "charr" -> char). Two texts
    share a stem when any of their content words' stem sets meet.
    """

    def __init__(self, reader):
        import_nltk()  # deferred, and without NLTK's scikit-learn and SciPy bridges (~75 MB)
        from nltk.stem.snowball import SnowballStemmer

        self.reader = reader
        self.vocabulary = frozenset(name.lower() for name in reader.all_lemma_names())
        words = [w for w in self.vocabulary if w.isalpha()]
        # how many WordNet words each WordNet word begins (ends): only words are ever looked up
        # (:meth:`_is_part`), so the counts of other letter runs (~2/3 of them) are not kept
        heads = Counter(w[:n] for w in words for n in range(4, min(len(w) - 2, 8)))
        tails = Counter(w[-n:] for w in words for n in range(4, min(len(w) - 2, 8)))
        self.heads = Counter({part: n for part, n in heads.items() if part in self.vocabulary})
        self.tails = Counter({part: n for part, n in tails.items() if part in self.vocabulary})
        del heads, tails
        # NLTK's Snowball stemmer is pure Python (~20 µs a word) and the checks stem the same few
        # thousand words millions of times (every question word, every cue word): once per word
        self.snowball = lru_cache(maxsize=1 << 17)(SnowballStemmer("english").stem)
        # the function words a choice's name may show as content words (see CUE_WORDS)
        self.label_words = CUE_WORDS | frozenset(
            w for w in FUNCTION_WORDS if len(w) >= 3 and w in self.vocabulary
        )
        self.word_stems = lru_cache(maxsize=WORD_CACHE_SIZE)(self._word_stems_uncached)
        self.text_stems = lru_cache(maxsize=TEXT_CACHE_SIZE)(self._text_stems_uncached)
        # ~0.9 KB an entry: at 2**16 a full cache held ~58 MB through a WordNet build for 8% fewer
        # misses than 2**12 (368k against 400k of 952k calls, ~20 us each: +0.6 s)
        self._question_parts = lru_cache(maxsize=1 << 12)(self._question_parts_uncached)
        self._base_forms = lru_cache(maxsize=WORD_CACHE_SIZE)(self._base_forms_uncached)
        self._compound_parts = lru_cache(maxsize=1 << 18)(self._compound_parts_uncached)

    def release_caches(self) -> None:
        """Empty every cache (they refill on demand: the same stems), for when a build is done reading them.

        The cached methods keep the analyser alive in a reference cycle, which a build's paused
        collector does not free: emptied here, what they held goes at once.
        """
        for cached in (
            self.snowball,
            self.word_stems,
            self.text_stems,
            self._question_parts,
            self._base_forms,
            self._compound_parts,
        ):
            cached.cache_clear()

    def _is_word(self, word: str) -> bool:
        return word in self.vocabulary

    def _is_part(self, part: str, affixes: Counter) -> bool:
        # a word that begins or ends hundreds of WordNet's words is an affix there, not a word
        # ("-ness" in abruptness, "over-" in overcome), so it joins no compound
        return part in self.vocabulary and affixes[part] < AFFIX_WORDS

    def _word_stems_uncached(self, word: str) -> frozenset[str]:
        stems = {self.snowball(word)}
        bases = {word} | {b for pos in ("n", "v", "a") if (b := self.reader.morphy(word, pos))}
        for base in bases:
            stems.add(self.snowball(base))
            for name in self._derived_names(base):
                if "_" not in name and "-" not in name:
                    stems.add(self.snowball(name))
        for cut in range(4, len(word) - 3):  # compounds of two words of 4+ letters
            head, tail = word[:cut], word[cut:]
            if self._is_part(head, self.heads) and self._is_part(tail, self.tails):
                stems |= {self.snowball(head), self.snowball(tail)}
        for cut in range(5, len(word) - 1):  # a word of 5+ letters at either end: subpopulation, Nepalese
            if self._is_part(word[:cut], self.heads):
                stems.add(self.snowball(word[:cut]))
            if self._is_part(word[-cut:], self.tails):
                stems.add(self.snowball(word[-cut:]))
        for trim in (1, 2):  # spelling variants: sumach / sumac, charr / char
            if len(word) - trim >= 4 and self._is_word(word[:-trim]):
                stems.add(self.snowball(word[:-trim]))
        return frozenset(s for s in stems if len(s) >= 3)

    def _derived_names(self, word: str) -> frozenset[str] | set[str]:
        """The lemmas (lower case) WordNet links to a lemma named ``word`` by a derivational pointer.

        From :class:`~probesmith.builders.sources.wordnet_files.WordNetFiles`' table where the reader
        has one, else through NLTK's lemma objects (the same names).
        """
        table = getattr(self.reader, "derived_names", None)
        if table is not None:
            return table(word)
        return {
            related.name().lower()
            for lemma in self.reader.lemmas(word)
            for related in lemma.derivationally_related_forms()
        }

    def _text_stems_uncached(self, text: str) -> frozenset[str]:
        words = {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 3 and w not in FUNCTION_WORDS}
        return frozenset().union(*(self.word_stems(w) for w in words)) if words else frozenset()

    def label_stems(self, text: str) -> frozenset[str]:
        """A text's content stems and its :attr:`label_words` (stemmed): what a reader matches with a name.

        A name's derived words count by their Snowball stem ("usefulness" -> use, "thereness" -> there).
        """
        cues = {self.snowball(w) for w in re.findall(r"[a-z]+", text.lower()) if w in self.label_words}
        return self.text_stems(text) | cues

    def label_gives_away(
        self,
        question: str,
        labels: Sequence[str],
        choices: Sequence[str],
        answer_index: int,
        ignore: frozenset[str] = frozenset(),
    ) -> frozenset[str]:
        """The stems (:data:`CUE_WORDS` included) the question shares with the gold's name and with no choice.

        ``labels``: each choice's name (the word before its gloss); ``ignore``: the template's stems.
        """
        with_gold = self.label_stems(question) & self.label_stems(labels[answer_index])
        return _shown_by_no_distractor(with_gold - ignore, choices, answer_index, self.label_stems)

    def _base_forms_uncached(self, word: str) -> frozenset[str]:
        return frozenset(b for pos in ("n", "v", "a") if (b := self.reader.morphy(word, pos)))

    def _question_parts_uncached(self, text: str) -> tuple[frozenset[str], frozenset[str], tuple[int, ...]]:
        """A question's content words (3+ letters, WordNet words), joined word pairs and the words' lengths.

        Base forms count ("twigged" -> twig); a pair of content words joined by a hyphen or a space
        is also read as one word ("dry-wall" -> drywall, "free hand" -> freehand). The distinct
        lengths of the words, ascending, let a longer word be matched by slicing it at each length
        (:meth:`compound_parts`, :meth:`parts_inside`) rather than by testing every word against it.
        """
        tokens = re.findall(r"[a-z]+|[-\s]+|[^a-z\s-]+", text.lower())
        content = {t for t in tokens if t.isalpha() and len(t) >= 3 and t not in FUNCTION_WORDS}
        bases = {b for t in content for b in self._base_forms(t)}
        # a WordNet word, an inflected form of one ("tones" / overtones), or a word of 5+ letters
        # WordNet lacks ("carbo" / carbohydrate)
        words = frozenset(
            w
            for w in content | bases
            if len(w) >= 3 and (self._is_word(w) or self._base_forms(w) or len(w) >= 5)
        )
        joined = frozenset(
            tokens[i] + tokens[i + 2]
            for i in range(len(tokens) - 2)
            if tokens[i + 1] in ("-", " ")
            and all(t.isalpha() and len(t) >= 3 and t not in FUNCTION_WORDS for t in tokens[i : i + 3 : 2])
        )
        return words, joined, tuple(sorted({len(w) for w in words}))

    def compound_parts(self, question: str, text: str) -> frozenset[str]:
        """The question's words that begin or end a longer word of ``text``, as ``"part:<word>"``.

        What Snowball stems and WordNet's links miss, a reader sees: "twig" in "twiglike", "gas"
        in "gasoline", "auto" in "automobile", "air" in "airwaves"; a question's hyphen- or
        space-joined pair is matched whole ("dry-wall" / drywall). Inflected forms count on both
        sides ("tones" / overtones, "tone" / overtones). A 3-letter word counts where it begins the
        longer word, or ends it after a WordNet word of 3+ letters ("pin" / hairpin, "nap" /
        catnap; "art" ends heart, start, part by chance).
        """
        words, joined, lengths = self._question_parts(question)
        text_words = set(re.findall(r"[a-z]+", text.lower()))
        found = set()
        for word in text_words:
            if word in joined:
                found.add(word)
            for form in {word} | self._base_forms(word):
                # a question word that begins or ends the form is the form's slice at its length
                for size in lengths:
                    if size >= len(form):
                        break
                    if form[:size] in words:
                        found.add(form[:size])
                    end, head = form[-size:], form[:-size]
                    if end in words and (size >= 4 or (len(head) >= 3 and self._is_word(head))):
                        found.add(end)
        return frozenset(f"part:{part}" for part in found)

    def parts_inside(self, question: str, text: str) -> frozenset[str]:
        """``text``'s words that begin or end a longer word of the question, as ``"part:<word>"``.

        :meth:`compound_parts` the other way round (issue 24, v12 read: anthill / hill, overtax / tax,
        sheepdog / dog, voltmeter / meter, rebind / bind, adnoun / noun). A word of 4+ letters counts at
        either end beside 2+ letters ("re" + bind; not "s" + tool in stools), one of 5+ beside any
        ("s" + exploitation in sexploitation); a 3-letter word only beside a
        WordNet word of 3+ letters (over+tax, sheep+dog, dog+house), so that "car" is not found in career
        nor "cat" in category.
        """
        parts, _, lengths = self._question_parts(text)
        question_words = set(re.findall(r"[a-z]+", question.lower()))
        found = set()

        def beside(part: str, rest: str) -> bool:
            return (
                len(part) >= 5
                or (len(part) == 4 and len(rest) >= 2)
                or (len(rest) >= 3 and self._is_word(rest))
            )

        for word in question_words:
            for form in {word} | self._base_forms(word):
                # a part that ends the form is read there; one that only begins it, at the start
                for size in lengths:
                    if size >= len(form):
                        break
                    end, start = form[-size:], form[:size]
                    if end in parts and self._is_word(end) and beside(end, form[:-size]):
                        found.add(end)
                    if start != end and start in parts and self._is_word(start):
                        if beside(start, form[size:]):
                            found.add(start)
        return frozenset(f"part:{part}" for part in found)

    def _compound_parts_uncached(self, word: str) -> frozenset[str]:
        """The WordNet words of 4+ letters a word is compounded of ("greenwood" -> green, wood).

        Each split of the word into two WordNet words (or inflected forms of them) of 4+ letters
        ("woodlands" -> wood, lands) gives its parts that are WordNet words, but a part that begins
        (or ends) :data:`AFFIX_WORDS` or more of WordNet's words where it stands ("over-", "inter-",
        "-ally") and suffix-like words (:data:`SUFFIX_WORDS`: "ship" in friendship and hardship).
        """
        parts = set()
        for cut in range(4, len(word) - 3):
            head, tail = word[:cut], word[cut:]
            if all(self._is_word(x) or self._base_forms(x) for x in (head, tail)):
                if self._is_part(head, self.heads) and head not in SUFFIX_WORDS:
                    parts.add(head)
                if self._is_part(tail, self.tails) and tail not in SUFFIX_WORDS:
                    parts.add(tail)
        return frozenset(parts)

    def shared_parts(self, question: str, text: str) -> frozenset[str]:
        """Compound parts a question word and a word of ``text`` both have, as ``"part:<word>"``.

        The v14 read of definitions: "the greenwood" beside "woodlands in full leaf" (wood), which
        neither Snowball stems nor :meth:`compound_parts` (one word inside the other) see. Words of
        6+ letters; the same word on both sides is the stems' business.
        """

        def words(t: str) -> set[str]:
            return {w for w in re.findall(r"[a-z]+", t.lower()) if len(w) >= 6}

        question_words, text_words = words(question), words(text)
        found = set()
        for q in question_words:
            for w in text_words - {q}:
                found |= self._compound_parts(q) & self._compound_parts(w)
        return frozenset(f"part:{p}" for p in found)

    def shares_any(self, left: str, right: str) -> bool:
        """``bool(self.shared(left, right))``, its four parts asked in turn until one is found."""
        return bool(
            not self.text_stems(left).isdisjoint(self.text_stems(right))
            or self.compound_parts(left, right)
            or self.parts_inside(left, right)
            or self.shared_parts(left, right)
        )

    def shared(self, left: str, right: str) -> frozenset[str]:
        """The stems two texts share, and the compound parts each shows of the other.

        See :meth:`compound_parts` and :meth:`parts_inside`.
        """
        return (
            (self.text_stems(left) & self.text_stems(right))
            | self.compound_parts(left, right)
            | self.parts_inside(left, right)
            | self.shared_parts(left, right)
        )

    def gives_away(
        self, question: str, choices: Sequence[str], answer_index: int, ignore: frozenset[str] = frozenset()
    ) -> frozenset[str]:
        """The stems the question shares with the gold and with no distractor.

        ``ignore``: the stems of the question's template, which every item shows; a template word is
        also no container of the gold's words ("text" in "context", "wing" in "following").
        """
        gold = choices[answer_index]
        own_words = " ".join(
            w for w in re.findall(r"[a-z]+", question.lower()) if self.snowball(w) not in ignore
        )
        shared = (
            (self.text_stems(question) & self.text_stems(gold))
            | self.compound_parts(question, gold)
            | self.parts_inside(own_words, gold)
            | self.shared_parts(own_words, gold)
        )
        with_gold = {
            stem
            for stem in shared
            if stem not in ignore and self.snowball(stem.removeprefix("part:")) not in ignore
        }

        def shown_by(choice: str) -> frozenset[str]:
            return (
                self.text_stems(choice)
                | self.compound_parts(question, choice)
                | self.shared_parts(question, choice)
                | _part_words(choice)
            )

        return _shown_by_no_distractor(frozenset(with_gold), choices, answer_index, shown_by)

    def template_stems(
        self, questions: Sequence[str], share: float = TEMPLATE_SHARE, cues: bool = False
    ) -> frozenset[str]:
        """Stems found in at least ``share`` of the questions: the words of their templates.

        ``cues``: count :data:`CUE_WORDS` too (:meth:`label_stems`), for :meth:`label_gives_away`.
        """
        of = self.label_stems if cues else self.text_stems
        counts: Counter = Counter(stem for q in questions for stem in of(q))
        return frozenset(stem for stem, n in counts.items() if n >= share * len(questions))


def _part_words(text: str) -> frozenset[str]:
    """A text's own words as ``"part:<word>"``: a distractor that shows the word itself shows the part."""
    return frozenset(f"part:{w}" for w in re.findall(r"[a-z]+", text.lower()))


def _shown_by_no_distractor(
    stems: frozenset[str],
    choices: Sequence[str],
    answer_index: int,
    stems_of: Callable[[str], frozenset[str]],
) -> frozenset[str]:
    """Those of ``stems`` (shared by the question and the gold) that no other choice shows."""
    for i, choice in enumerate(choices):
        if not stems:
            break
        if i != answer_index:
            stems = stems - stems_of(choice)
    return stems
