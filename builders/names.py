"""Names of Wikidata entities: the one name-leak rule and the one name key of every Wikidata family.

A question gives its answer away when the subject and the gold share a *name token*: a word of
two letters or more, acronyms and surnames included ("BMW X5" -> "BMW", "ZIL-130" -> "ZiL", "Nina
Li" -> "Jet Li"), a number of three digits or more, letters joined by "&" ("A&M") or a run of two or
more initials ("A. R."), found in the label or any alias of either side, compared without case or
diacritics. A single letter (an initial, Vienna's alias "W") is no token.
The name stems of ``text.content_stems`` (five letters of a word of four or more: "Sturnus" /
"Sturnidae", "AppleWorks" / "Apple Inc.") count too, so this rule catches everything the stem
rule did, and so does a *compound part*: a token of five letters or more of one side that begins
or ends a longer token of the other and is no English word ("Venediger Group" / "Großvenediger",
``compound_parts``). Tokens that carry no identity are not leaks:

* ``FUNCTION_WORDS``: articles, prepositions and conjunctions of the languages Wikidata names
  are written in, and legal-form abbreviations ("Co.", "Ltd"), a fixed list;
* a relation's *generic* tokens (``generic_tokens``): those in the names (label or aliases) of at
  least ``GENERIC_SHARE`` of the relation's candidate answers, and of at least ``GENERIC_MIN``
  of them. Measured on the shared slice (BENCHMARKS.md, issue 25): the heads of answer names
  reach 0.10 and far above ("language" 0.66 of P1412's answers, "university" 0.78 of P69's,
  "republic" 0.61 of P27's, "records" 0.65 of P264's, "river" 0.62 of P177's, "city" 0.25 of
  P19's), while the identity-bearing tokens the issue lists stay at or below 0.05 in every
  relation ("li" 0.05 of P50's authors, "bbc" 0.04 of P449's networks, "zhu" 0.02 of P53's
  houses); a first name common among a relation's answers ("john", 0.11 of P162's producers) is
  generic in that relation only. At least five answers: a token of three or four still narrows
  the choice to them ("Queen Amina" -> "queen regnant" among P97's 24 candidates, 3 with "queen").

``name_key`` is the key under which two names are the same name (case, diacritics and
punctuation aside): two answers of one space with a common key are one answer to a reader.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache

from probesmith.builders.text import GENERIC_STEMS, STEM_LENGTH, content_stems, english_lexicon, head_noun

GENERIC_SHARE = 0.10
GENERIC_MIN = 5

FUNCTION_WORDS = frozenset(
    (
        # English
        "the of and for from with in on at by to an as or "
        # Romance and Germanic particles of names
        "de del della delle dei degli di da do dos das du des la le les lo los las el al et y e "
        "von vom zu zur zum van der den het ter ten und "
        # legal forms and their abbreviations
        "co inc ltd llc plc corp ag sa gmbh kg nv bv spa srl"
    ).split()
)


@lru_cache(maxsize=1 << 18)
def fold(text: str) -> str:
    """``text`` case-folded with its diacritics removed ("Zürich" -> "zurich", "ZiL" -> "zil")."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=1 << 18)
def name_tokens(text: str) -> frozenset[str]:
    """The name tokens of one name: folded runs of letters and digits, 2+ characters (numbers 3+).

    Hyphens and punctuation split ("ZIL-130" -> {"zil", "130"}, "hsa-miR-548ab" -> {"hsa", "mir",
    "548ab"}); single letters (initials) and numbers of one or two digits ("BBC Radio 1", "Apollo
    11") are no names, while a year or a longer number names ("2012 United States Grand Prix" ->
    "2012 Formula One season", "90210, season 2" -> "90210"). Two tokens more are made of single
    letters: letters joined by "&" ("The Legendary A&M Sessions" -> "a&m", as in "A&M Records") and
    a run of two or more initials ("A. R. Reihana" -> "a.r.", as in "A. R. Rahman"). A run of letters glued
    to digits gives each part as well ("TED2004" -> "ted2004", "ted", "2004"; "ITV3" -> "itv3", "itv").
    """
    folded = fold(text)
    runs = re.findall(r"[^\W_]+", folded)
    # a word glued to a number is both, and each part alone: "TED2004" -> "ted", "2004"; "TVP3" -> "tvp";
    # "870s" -> "870" (an ordinal's or a plural's ending, "1st", "870s", is no name)
    parts = [p for run in runs for p in re.findall(r"\d+|[^\W\d_]+", run) if p != run]
    parts = [p for p in parts if p not in _NUMBER_ENDINGS]
    words = {t for t in runs + parts if len(t) >= 2 and (len(t) >= 3 or not t.isdigit())}
    joined = {re.sub(r"\s+", "", m.group(0)) for m in _AMPERSAND_RUN.finditer(folded)}
    initials = {re.sub(r"\s+", "", m.group(0)) for m in _INITIALS_RUN.finditer(folded)}
    return frozenset(words | joined | initials)


# what follows a number without being a name: ordinals and a decade's or a plural's "s"
_NUMBER_ENDINGS = frozenset("st nd rd th s e er eme".split())
# letters joined by "&" are one name ("A&M", "AT&T"): its single letters alone would be no token
_AMPERSAND_RUN = re.compile(r"(?<![^\W_])[^\W\d_]+(?:\s?&\s?[^\W\d_]+)+(?![^\W_])")
# two or more initials in a row are one name ("A. R." of "A. R. Rahman", "J.R.R."); one initial is none
_INITIALS_RUN = re.compile(r"(?<![^\W_])(?:[^\W\d_]\.\s*){2,}")


def tokens_of(names: Iterable[str]) -> frozenset[str]:
    """The name tokens of every name given (a label and its aliases)."""
    found: set[str] = set()
    for name in names:
        found |= name_tokens(name)
    return frozenset(found)


def generic_tokens(
    answer_names: Iterable[Iterable[str]], share: float = GENERIC_SHARE, minimum: int = GENERIC_MIN
) -> frozenset[str]:
    """Tokens in the names of at least ``share`` (and ``minimum``) of a relation's answers.

    ``answer_names`` holds, per candidate answer, its label and aliases. Such a token is the
    head of the relation's answer names ("language", "university", "records"): sharing it gives
    no answer away.
    """
    per_answer = [tokens_of(names) for names in answer_names]
    counts = Counter(t for tokens in per_answer for t in tokens)
    bound = max(minimum, share * len(per_answer))
    return frozenset(t for t, n in counts.items() if n >= bound)


def name_leak(
    subject_names: Iterable[str], gold_names: Iterable[str], generic: frozenset[str] = frozenset()
) -> frozenset[str]:
    """What the subject's names (label, aliases) share with the gold's: tokens and stems; empty = none.

    Both lists give the label first. A token of the subject's names one letter from one of the gold's label
    is shared too (``respellings``: "Cython" / "Python"), as is one beginning as one of the gold's label does
    for two thirds of the shorter (``inflections``: "Sweden" / "Swedish"). Function words, the relation's
    ``generic`` tokens and their stems are not leaks.
    """
    left, right = list(subject_names), list(gold_names)
    ignored = (FUNCTION_WORDS - named_function_words(left + right)) | generic
    shared = (tokens_of(left) & tokens_of(right)) - ignored
    ignored_stems = {t[:STEM_LENGTH] for t in ignored if len(t) >= 4}
    # stems folded before they are compared: "Antártico" and "Antarctica" share "antar"
    stems_left = {fold(s) for n in left for s in content_stems(n)}
    stems_right = {fold(s) for n in right for s in content_stems(n)}
    stems = (stems_left & stems_right) - ignored_stems
    parts = compound_parts(tokens_of(left) - ignored, tokens_of(right) - ignored) - ignored_stems
    # a respelling of the gold's label, the name the answer is shown by: its aliases hold spellings in other
    # languages one letter from many a name ("Ching" for Beijing beside "China", "Bosna" for Sarajevo)
    respelled = respellings(tokens_of(left) - ignored, tokens_of(right[:1]) - ignored)
    inflected = inflections(tokens_of(left) - ignored, tokens_of(right[:1]) - ignored)
    type_genus = type_genus_stem(left[:1], right[:1])
    return frozenset(shared | stems | parts | respelled | inflected | type_genus)


# rank endings of a family-group taxon's name (ICZN art. 29, ICN art. 18): family, subfamily, superfamily;
# not a tribe's "-ini" nor "-eae", which end Italian surnames and Latin plurals too ("Bellini": "Belgium")
_FAMILY_GROUP = re.compile(r"(?P<stem>[A-Z][a-z]+?)(?:aceae|idae|inae|oideae|oidea)")


def type_genus_stem(subject_label: Iterable[str], gold_label: Iterable[str]) -> frozenset[str]:
    """The stem a family-group taxon's one-word name shares with its type genus's, or none.

    A family-group name is its type genus's stem and a rank ending ("Apiaceae" <- "Apium", "Rutaceae" <-
    "Ruta", "Asiloidea" <- "Asilidae"): a gold of one word opening with the stem's first
    three letters is named by the subject, though no token nor five-letter stem shows it (E1's request, the
    thirty-first read's P427 "The taxonomic type of Rutaceae is Ruda").
    """
    subject, gold = next(iter(subject_label), ""), next(iter(gold_label), "")
    found = _FAMILY_GROUP.fullmatch(subject)
    if not found or len(gold.split()) != 1 or len(found.group("stem")) < 3:
        return frozenset()
    stem = fold(found.group("stem"))[:3]
    return frozenset({stem}) if fold(gold).startswith(stem) else frozenset()


INFLECTION_PREFIX = 4


def inflections(
    left: frozenset[str], right: frozenset[str], prefix: int = INFLECTION_PREFIX
) -> frozenset[str]:
    """Common beginnings of a token of each side that are two thirds or more of the shorter one, 4+ letters.

    One name's derived or inflected form gives the other away where the five-letter stems of
    ``text.content_stems`` differ (the thirty-first read: "Sweden" / "Swedish", "Syrian Arab Republic" /
    "Arabic", "55 Cancri" / "Cancer", "Freyr" / "Freyja", "O.Carm." / "Carmelites"); a shorter share of a
    longer name is a coincidence ("Christopher" / "Christchurch", "Montreal" / "Montana"). Letters only;
    a generic stem ("north" of "Northern", ``text.GENERIC_STEMS``) is no name. :func:`name_leak` asks it of
    the gold's label, as :func:`respellings`: the aliases' spellings in other languages begin as many names
    do ("Ching" for Beijing beside "China").
    """
    found = set()
    for a in left:
        if len(a) < prefix or not a.isalpha() or a[:STEM_LENGTH] in GENERIC_STEMS:
            continue
        for b in right:
            if a[:prefix] != b[:prefix] or not b.isalpha() or b[:STEM_LENGTH] in GENERIC_STEMS:
                continue
            shared = len(os.path.commonprefix([a, b]))
            if shared >= prefix and 3 * shared >= 2 * min(len(a), len(b)):
                found.add(a[:shared])
    return frozenset(found)


RESPELLING_LENGTH = 5


def respellings(
    left: frozenset[str], right: frozenset[str], length: int = RESPELLING_LENGTH
) -> frozenset[str]:
    """Tokens of one side one letter from a token of the other: one changed, added or dropped letter.

    A name respelled by one letter is the name to a reader ("Cython" / "Python", "Khvahan" / "Khwahan",
    "Ikarus" / "Ikarbus"). Both tokens are letters only and ``length`` letters or more (shorter names are
    one letter from too many others: "Lima" / "Lina"); two English words of Link Grammar's dictionary
    ("royal" / "loyal") are two words, not one name respelled. Two letters apart is no respelling
    ("German" / "Hermann"; "Austria" / "Australia" share the stem "austr" of ``text.content_stems``).
    """
    words = english_lexicon().known
    found = set()
    for a in left:
        if len(a) < length or not a.isalpha():
            continue
        for b in right:
            if a == b or len(b) < length or not b.isalpha() or abs(len(a) - len(b)) > 1:
                continue
            if a in words and b in words:
                continue
            if one_edit_apart(a, b):
                found |= {a, b}
    return frozenset(found)


def one_edit_apart(a: str, b: str) -> bool:
    """Whether two different strings differ by one substituted, inserted or deleted character."""
    if len(a) > len(b):
        a, b = b, a
    if len(b) - len(a) > 1 or a == b:
        return False
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :]
    return a[i:] == b[i + 1 :]


def named_function_words(names: Iterable[str]) -> frozenset[str]:
    """Function words that are names here: a whole name ("Lo") or a capitalised part of a hyphenated one.

    "Lo-Reninge" and its gold "Lo" share the name "lo", though "lo" is an Italian article elsewhere;
    a lower-case particle inside a compound ("Saint-Martin-de-Ré") stays a function word.
    """
    found = set()
    for name in names:
        whole = name_key(name)
        if whole in FUNCTION_WORDS:
            found.add(whole)
        if "-" in name:
            for part in re.split(r"[-\s]+", name):
                if part[:1].isupper() and fold(part) in FUNCTION_WORDS:
                    found.add(fold(part))
    return frozenset(found)


COMPOUND_PART = 5


def compound_parts(
    left: frozenset[str], right: frozenset[str], length: int = COMPOUND_PART
) -> frozenset[str]:
    """Tokens of one side (``length`` letters or more) that begin or end a longer token of the other.

    A name is part of a compound name: "Venediger Group" / "Großvenediger" (folded "grossvenediger"
    ends with "venediger"), "Andreas" / "Andreaskirche". Both sides folded (``fold``: case,
    diacritics, "ß" -> "ss"). A shorter token ("berg" of "Heidelberg", "land"), an English word of
    Link Grammar's dictionary or its plural in "s" ("state" of "States", "island", "virus" of
    "Orthopoxvirus"; "Solex" is no plural of "sole", "Brakel" none of "brake") and a generic word of
    ``GENERIC_STEMS`` with at most three letters after its stem ("Southern", "great") are the head of a
    compound, not an identity; "Northampton" of "Northamptonshire" is a name.
    """
    found = set()
    words = english_lexicon().known
    for short_side, long_side in ((left, right), (right, left)):
        for part in short_side:
            plural_of_word = part.endswith("s") and part[:-1] in words
            if len(part) < length or not part.isalpha() or part in words or plural_of_word:
                continue
            # a generic word and its own forms ("south" of "Southern", "great", "nationale") are no identity;
            # a longer name that opens with one is ("Northampton" of "Northamptonshire")
            if part[:STEM_LENGTH] in GENERIC_STEMS and len(part) <= STEM_LENGTH + 3:
                continue
            if any(len(t) > len(part) and (t.startswith(part) or t.endswith(part)) for t in long_side):
                found.add(part)
    return frozenset(found)


@lru_cache(maxsize=1 << 18)
def name_key(text: str) -> str:
    """Folded letters and digits only: two names with the same key are the same name to a reader.

    Case, diacritics, punctuation and spaces aside: "Russia" / "russia", "M-Net" / "Mnet".
    """
    return "".join(re.findall(r"[^\W_]+", fold(text)))


# the first word of a letter's Unicode name for the scripts other than Latin met in the slice's labels
_OTHER_SCRIPTS = frozenset(
    "CYRILLIC GREEK ARABIC HEBREW CJK HIRAGANA KATAKANA HANGUL DEVANAGARI BENGALI TAMIL TELUGU KANNADA "
    "MALAYALAM GUJARATI GURMUKHI SINHALA THAI LAO KHMER MYANMAR TIBETAN MONGOLIAN ARMENIAN GEORGIAN "
    "ETHIOPIC SYRIAC THAANA".split()
)


def other_script(label: str) -> bool:
    """Whether a label holds a letter of a script other than Latin ("Будинок зі скла", "志村").

    Modifier letters and signs of a romanization ("Al-Maʿarri", "Gavril Korenʹkov", "360º") are no other
    script.
    """
    return any(c.isalpha() and unicodedata.name(c, "").split(" ")[0] in _OTHER_SCRIPTS for c in label)


def common_noun_label(label: str) -> bool:
    """Whether a label is a common noun's, no name: no capital letter, no digit, no full stop ("syndication").

    Wikidata writes a common noun's English label in lower case; a name written in lower case has a
    capital inside, a digit or a full stop ("bTV", "laSexta", "m2o", "e.tv").
    """
    return bool(label) and not any(c.isupper() or c.isdigit() or c == "." for c in label)


def bare_count_noun(label: str) -> bool:
    """Whether a common noun's label names one thing of a kind by a head that is only countable.

    The label is ``common_noun_label``'s and its head is a countable singular in Link Grammar's English
    dictionary, never a mass noun ("firearm", "body", "dorsal fin"). English puts an article before such a
    noun ("a firearm"); filled bare it reads as no English ("Firearm includes body"). A head the dictionary
    also lists as a mass noun ("brain", "art"), a field ("arithmetic") and a noun it lacks ("egyptology")
    are none.
    """
    if not common_noun_label(label):
        return False
    head = head_noun(label)
    lexicon = english_lexicon()
    return bool(head) and head in lexicon.singular_nouns and head not in lexicon.mass_nouns


def name_keys(names: Iterable[str]) -> frozenset[str]:
    """The ``name_key`` of every name of an entity (label and aliases); an emoji or a flag names nothing."""
    return frozenset(name_key(n) for n in names) - {""}


def named_like_a_gold(
    golds: Iterable[str], space: Iterable[str], keys_of: Callable[[str], frozenset[str]]
) -> list[str]:
    """The answers of ``space`` that are no gold yet share a name (``keys_of``: label or alias) with a gold.

    Such an answer is right by its name and wrong by its entity ("Russian Empire", alias "Russia",
    for a citizen of Russia; "Seychelles", alias "SC", beside a gold Scotland, alias "SC"): a subject
    with one is not asked, and the ``equal_answers`` rule of every Wikidata family counts it. Every
    gold counts, in the space or not; ``keys_of`` gives an entity's name keys (``name_keys``).
    """
    golds = set(golds)
    gold_keys = frozenset().union(*(keys_of(g) for g in golds))
    return [a for a in space if a not in golds and keys_of(a) & gold_keys]


def label_problem(label: str) -> str | None:
    """Why an entity's label cannot stand for it in a statement, or None.

    A disambiguator in parentheses anywhere in it ("Thomas Hales (dramatist)", "Montgomery (town),
    New York"), coordinates ("Shamsabad (31°43′ N 53°39′ E), Taft") or a sentence (four words or
    more ending in a full stop after a lower-case word: "Dingiswayo real meaning is ... exile."), brackets
    inside a word ("Frontier(s)", "f(x)": a formula or an optional plural no sentence reads) or a wiki
    namespace ("Category:Pink film"). Names with brackets of their own after a hyphen ("kukharenkoite-(Ce)")
    are names. A vandal's sentence of eight words or more in lower case, an "@" (an address, "D@bbe") and
    two names of one thing in two languages joined by a slash ("Biel/Bienne", "Bajo Cinca/Baix Cinca": the
    twenty-sixth read; "AC/DC", "Either/Or" are names) are none either. Formatting residue
    (``formatting_residue``: 'Vladimír  Krajina', '... de Béarn , Princesse'), a
    survey's sky designation ("RAVE J051406.8-400245", whose name NGC 1851 is only an alias) and two words
    glued at a full stop ("Dr.mark W tilden", "Dr.Simpson", an initial: "D.Daly") are not the names a sentence
    writes either.
    """
    if len(label.split()) >= 4 and re.search(r"\s[a-z]{3,}\.$", label):
        return "label is a sentence"  # before its residue: 'Dingiswayo real meaning is "The Exile as ...'
    if len(label.split()) >= 8 and label[:1].islower():
        return "label is a sentence"  # a vandal's 'el patricio un señor loquillo que su ex mujer ...'
    if "@" in label:
        return "label with an '@' (an address or a handle, no name: 'naaboudoufu@nana', 'D@bbe')"
    if slash_joined(label):
        return "label joining two names with a slash ('Biel/Bienne', 'Southern Alps/Kā Tiritiri o te Moana')"
    if residue := formatting_residue(label):
        return f"label with {residue}"
    if _SKY_DESIGNATION.search(label):
        return "label is a survey's sky designation ('RAVE J051406.8-400245'), not the object's name"
    if glued_at_full_stop(label):
        return "label with two words glued at a full stop ('Dr.mark W tilden', 'D.Daly')"
    if re.search(r"\s\([^()]*\)", label):
        return "label with a disambiguator (parentheses)"
    if re.search(r"[^\W\d_]\(", label):
        return "label with brackets inside a word ('Frontier(s)', 'f(x)')"
    if _NAMESPACE.match(label):
        return "label in a wiki namespace ('Category:Pink film')"
    if _COORDINATES.search(label):
        return "label with coordinates"
    if _INVENTORY_HEADING.search(label):
        return "label is a catalogue heading with an inventory number ('Octopus inrō-BHM 1073')"
    if label.endswith(":") and not label.endswith("::"):
        return "label cut at its colon ('Vol. 3:', 'Ascetic:'): a title without its subtitle"
    if _SEASON_HEADING.search(label):
        return "label is a season's heading ('Bones, season 9'), no name a sentence writes"
    if _FIRM_ABBREVIATION_END.search(label):
        return (
            "label ending in a firm's abbreviation and its full stop ('Tose Co.', 'Milestone S.r.l.') with "
            "no alias without it (names.without_legal_form)"
        )
    return None


# a catalogue heading: a description joined by a hyphen to a collection's inventory number, dotted or after a
# code ("Pipe-1906.408.0023.1-2", "Octopus inrō-BHM 1073", "Attic funerary stele-Inv. 376": the thirty-first
# read's P195); aircraft designations ("Yak-9", "Ka-52") have no dotted number and no code before a number
_INVENTORY_HEADING = re.compile(r"[^\W\d_]-(?:\d+(?:\.\d+)+|(?:[A-Z]{2,}|Inv\.)(?: [A-Za-z]+)* [\d.]+)")
# a season of a series titled by an encyclopaedia's heading ("Bones, season 9", "15th season of The Simpsons"
# is a phrase and stays)
_SEASON_HEADING = re.compile(r", season \d+$")
# a firm's abbreviation and its full stop ending the label ("Warner Bros.", "Electric Boat Co.", "Tose Co.",
# "Milestone S.r.l.", "skip Ltd.": the thirty-first read): the full stop ends the sentence it is put in and
# the name is its legal form's; "Jr." and initials are names' own ("Martin Luther King Jr.", "D.C.")
_FIRM_ABBREVIATIONS = (
    r"(?:Bros|Co|Ltd|Inc|Corp|Cie|S\.r\.l|S\.p\.A|S\.A|S\.L|N\.V|B\.V|K\.K|Pty|L\.P|F\.C|A\.F\.C|C\.F)"
)
_FIRM_ABBREVIATION_END = re.compile(rf"\b{_FIRM_ABBREVIATIONS}\.$")


def formatting_residue(text: str) -> str | None:
    """What an editor's formatting left in a name, or None.

    Two spaces in a row ('Vladimír  Krajina'), a space before a comma or a semicolon ('de Béarn , Princesse'),
    space at either end, a direction mark (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069: 'papa Clemente XIV'
    with right-to-left marks), quotes around the whole name ('"El profeta"') or a double quote or a bracket
    left open or closed alone ('"I Am The Actor', 'pre)Thing'), a quoted part of a name (any double quote:
    '"Captain" Lou Albano', 'Edward Kennedy "Duke" Ellington'; words in single quotes before another word:
    "Konrad 'Conny' Plank", not a cultivar's "Rosa 'La France'"), a romanization's tie mark (U+035C-U+0362,
    U+FE20-U+FE2F: 'Otkrytoe akt︠s︡ionernoe obshchestvo') or a bracket opening the name ('(Ne) Polnoye
    sobraniye sochineniy').
    """
    if _DIRECTION_MARKS.search(text):
        return "a right-to-left or left-to-right mark"
    if "  " in text or re.search(r"\s[,;]", text) or text != text.strip():
        return "doubled or stray spaces"
    if len(text) > 2 and text[0] in "\"'“‘«„" and text[-1] in "\"'”’»“":
        return "quotes around the whole name"
    if text.count('"') % 2 or sum(text.count(q) for q in "„“”") % 2 or not _brackets_balanced(text):
        return "an unbalanced quote or bracket ('\"I Am The Actor', 'pre)Thing')"
    if _QUOTED_PART.search(text):
        return "a quoted part of a name ('\"Captain\" Lou Albano', a nickname in single quotes)"
    if "`" in text:
        return "a backtick ('Shafi`i': a transliteration's ayin typed so)"
    if _TIE_MARKS.search(text):
        return "a romanization's tie mark (U+035C-U+0362, U+FE20-U+FE2F: 'akt︠s︡ionernoe', 'I͡Uriĭ')"
    if text[:1] in "([":
        return "a bracket opening the name ('(Ne) Polnoye sobraniye sochineniy')"
    if mixed_script_word(text):
        return "Latin letters mixed with Cyrillic or Greek ones in one word ('principality of Kodа')"
    return None


def letter_script(char: str) -> str:
    """The script of a letter by its Unicode name: "LATIN", "CYRILLIC", "GREEK" or another first word."""
    return unicodedata.name(char, "").split(" ")[0]


def mixed_script_word(text: str) -> str | None:
    """The first word (a run of letters) that mixes Latin letters with Cyrillic or Greek ones, or None.

    A look-alike letter typed in another script ("principality of Kodа" with a Cyrillic "а", U+0430;
    "Doncho Kolеv Danev") or a stylised spelling ("Λucifer", "KoЯn", "CHVRCHΞS") is not the name a
    sentence writes, and a tokenizer reads it as another word. Words of one script ("Київ"), and a Greek
    letter joined to a Latin word by a hyphen ("α-synuclein", two runs of letters) are kept.
    """
    for word in re.findall(r"[^\W\d_]+", text):
        if word.isascii():
            continue
        scripts = {letter_script(c) for c in word}
        if "LATIN" in scripts and scripts & {"CYRILLIC", "GREEK"}:
            return word
    return None


def _brackets_balanced(text: str) -> bool:
    """Whether every bracket opened in ``text`` is closed and none is closed that was not opened.

    "pre)Thing" and a band's "Sunn O)))" close brackets they never opened: a reader takes them for a typo
    or a smiley, not a name.
    """
    depth = 0
    for char in text:
        depth += char in "(["
        if char in ")]":
            if depth == 0:
                return False
            depth -= 1
    return depth == 0


_DIRECTION_MARKS = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# a quoted part of a name: any double quote ('"Captain" Lou Albano', 'Otkrytoe ... "Tupolev"', a nickname
# inside a full name: 'Edward Kennedy "Duke" Ellington'), or words in single quotes with a word after them
# ("Konrad 'Conny' Plank"; the contraction "'n'" of "Cute 'n' Country" is none, nor a cultivar's epithet,
# which ends the name in single quotes by the botanists' code: "Rosa 'La France'", 50 P105 subjects here)
_QUOTED_PART = re.compile("[\"“”„«»]|(?:^|\\s)['‘](?!n['’])[^'’\\s][^'’]*['’](?=\\s)")
# the double diacritics and half marks that tie two letters in a library romanization (ALA-LC:
# "akt︠s︡ionernoe", "I͡Uriĭ"): no sentence writes them, and a model's tokenizer splits them apart
_TIE_MARKS = re.compile("[\u035c-\u0362\ufe20-\ufe2f]")
# a sky survey's designation by J2000 (or B1950) coordinates: "RAVE J051406.8-400245", "2MASS J05141+4002"
_SKY_DESIGNATION = re.compile(r"\b[JB]\d{4,}(?:\.\d+)?[+\-−]\d{2,}")
# a capitalised word, a full stop and a lower-case word of four letters or more with no space ("Dr.mark"),
# or a title's abbreviation glued to a name ("Dr.Simpson"); a stylised name ("India.Arie", "Media.Vision")
# is kept (a web name "Booking.com" ends in a top-level domain of two or three letters)
# or an initial glued to a name ("D.Daly", "K.Bakker": a catalogue's form; "J.R.R. Tolkien" has its space)
_GLUED_WORDS = re.compile(
    r"\b[A-Z][a-z]+\.[a-z]{4,}\b|\b(?:Dr|Mr|Mrs|Ms|Prof|St|Św|Mt|Ft|Capt|Col|Gen|Lt|Sgt|Rev)\.[A-Z][a-z]+"
    r"|(?<![\w.])(?:[A-Z]\.)+[A-Z][a-z]{2,}"  # a run of initials too: "E.W.Zenberger", "K.V.B.Puram"
)


def glued_at_full_stop(text: str) -> bool:
    """Whether two words, or initials and a word, are glued at a full stop ("D.Daly", "E.W.Zenberger").

    The rule for labels: an entity's own stylised name with a dot ("India.Arie", "E.ON", "Fokker D.VIII")
    is its name and is kept; ``alias_glued_at_full_stop`` is the wider rule for aliases.
    """
    return bool(_GLUED_WORDS.search(text))


# a letter, a full stop and a letter with no space between them ("Á.Löve", "S.v.Hoogstraten", "Fran.co")
_LETTER_DOT_LETTER = re.compile(r"[^\W\d_]\.[^\W\d_]")
# a run of initials, each with its full stop, the last one's optional ("U.S.", "J.R.R.", "F.C.", "S.u.S.E.")
_INITIALS_TOKEN = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]?")
# a web name: parts joined by full stops ending in a top-level domain ("Salon.com", "Last.fm", "Kiekko.tk");
# two-letter domains that end Italian and Latin abbreviations ("Fran.co", "Gio.am") are not among them
_WEB_TOKEN = re.compile(
    r"[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|edu|gov|info|biz|fm|tv|io|tk|de|fr|es|nl|uk|ru|jp|pl|se|dk|fi|ch"
    r"|ca|au|cn|br|ie|nz|eu|pt|cz|hu|gr|tr|kr|mx|ar|za|il|ro|sk|lt|lv|ee|ly|gg|cat|hk|bg|tn|li|to|cl|pk)",
    re.IGNORECASE,
)


def alias_glued_at_full_stop(alias: str, label: str = "") -> bool:
    """Whether an alias has a word glued to another at a full stop: a letter, a full stop, a letter, no space.

    Every word of the alias (split at spaces, slashes and dashes; outer punctuation aside) with a letter,
    a full stop and a letter in it is glued ("Á.Löve", "Maarten.H.Tromp", "S.v.Hoogstraten", "Jn.Dalton",
    "Fran.co Trevisani", "Cav.r Celio") unless it is a run of initials ("U.S.", "J.R.R. Tolkien",
    "Sunderland A.F.C.") or a web name ending in a top-level domain ("Salon.com"); a word its label writes
    the same way is the entity's own stylised name ("E.ON SE" under "E.ON"). ``glued_at_full_stop`` too.
    """
    if glued_at_full_stop(alias):
        return True
    own = set(re.split(r"[\s/\-\u2013\u2014]+", label))
    for word in re.split(r"[\s/\-\u2013\u2014]+", alias):
        word = word.strip(",;:!?()[]'\"")
        if not _LETTER_DOT_LETTER.search(word) or word in own:
            continue
        if _INITIALS_TOKEN.fullmatch(word) or _WEB_TOKEN.fullmatch(word.rstrip(".")):
            continue
        return True
    return False


# a wiki namespace before a page's title: the label names a page, not the entity ("Category:Pink film")
_NAMESPACE = re.compile(
    r"(?:Category|Template|Portal|Wikipedia|Help|File|Module|Draft|List|Wikidata|Project):\S"
)
# two names of one thing joined by a slash with no space, each opening with a capital and holding a lower-case
# letter: of one first letter ("Biel/Bienne", "Matarraña/Matarranya", "Bergün/Bravuogn") or of two words or
# more on each side ("Southern Alps/Kā Tiritiri o te Moana"); "AC/DC", "SNCB/NMBS", "Face/Off", "Love/Hate"
# are none
_SLASH_SIDES = re.compile(r"^(?P<left>[A-Z][^/]*[a-z][^/]*)/(?P<right>[A-Z][^/]*[a-z][^/]*)$")


def slash_joined(label: str) -> bool:
    """Whether a label joins two names of one thing with a slash ("Biel/Bienne", "Bajo Cinca/Baix Cinca")."""
    found = _SLASH_SIDES.match(label)
    if not found or " /" in label or "/ " in label:
        return False
    left, right = found.group("left"), found.group("right")
    return left[0] == right[0] or (" " in left and " " in right)


# a coordinate in a label's qualifier: degrees, minutes or seconds ("Shamsabad (31°43′ N 53°39′ E), Taft")
_COORDINATES = re.compile(r"\d\s*°\s*\d+\s*['′]|\d\s*['′]\s*[NSEW]\b|\d\s*°\s*[NSEW]\b")


# heads of a learned or professional body's name, or a school's: such a body is known by its name, its acronym
# is read by few or is another's too ("RSL"; "RCA", the Royal College of Art or RCA Records; "RISD"); a firm
# or a broadcaster is known by its acronym ("IBM", "NBC", "HBO") and keeps it
LEARNED_BODY_HEADS = frozenset("Society Academy Institute Institution Association College School".split())


def plain_name(label: str, aliases: Iterable[str]) -> str:
    """The label, or the plain name of an entity labelled by a periphrasis or an abbreviation.

    A lower-case label "<noun> of <name>" (the name all lower case) one of whose aliases is that name alone
    is shown by it: "worked in the field of painting", not "in the field of the art of painting" (the
    twentieth read; in the slice's P101 answers, "art of painting" and "art of sculpture"). A proper name
    after "of" ("canton of Fribourg", alias "Fribourg": the town) names another thing and is kept. A label
    cut short by an editor (one capitalised word of up to six letters and a full stop, "Lond."; a name then
    abbreviated words of one or two letters, "Freiburg i. B.": the twenty-second read) is shown by its first
    alias that writes its words in full ("London University", "Freiburg im Breisgau"); with none it stays
    ("Janet.", an album's title). A firm's label with its legal form (", Inc.", " Ltd", ", LLC", " Co.") is
    shown by its alias without it ("Cyan, Inc." -> "Cyan").
    """
    return acronym_before_name(label, aliases) or _plain_form(label, aliases)


def _plain_form(label: str, aliases: Iterable[str]) -> str:
    """``plain_name`` less its acronym before a name.

    No such acronym is one of these forms (it has no "." and opens with capitals), so the order is no matter.
    """
    found = re.fullmatch(r"[a-z]+ of ([a-z][a-z -]*)", label)
    if found and found.group(1) in aliases:
        return found.group(1)
    if _ABBREVIATED_LABEL.fullmatch(label) or _ABBREVIATED_QUALIFIER.fullmatch(label):
        return next((alias for alias in aliases if _spells_out(label, alias)), label)
    return without_legal_form(label, aliases)


def spelled_out_plain_name(label: str, aliases: Iterable[str]) -> str:
    """``plain_name(spelled_out(label, aliases), aliases)``, the acronym before a name read once per label.

    How the relations family shows an answer ("HU Berlin" -> "Humboldt University of Berlin", "RSL" -> "Royal
    Society of Literature", "art of painting" -> "painting", "Cyan, Inc." -> "Cyan"). The alias
    :func:`acronym_before_name` gives has an "of", so it is no such acronym again.
    """
    if expanded := acronym_before_name(label, aliases):
        return _plain_form(expanded, aliases)
    spelled = _learned_body_alias(label, aliases)
    return _plain_form(label, aliases) if spelled == label else plain_name(spelled, aliases)


_SCHOOL_HEADS = frozenset("University Institute Academy College School".split())
_ACRONYM_THEN_NAME = re.compile(r"(?P<acronym>[A-Z]{2,5}) (?P<rest>[A-Z][^\W\d_]+(?: [A-Z][^\W\d_]+)*)")


def acronym_before_name(label: str, aliases: Iterable[str]) -> str | None:
    """The alias a label of an acronym and a name abbreviates: "HU Berlin", "Humboldt University of Berlin".

    The alias's capitalised words open with the acronym's letters, one each, then are the label's name, and it
    names a university, an institute, an academy, a college or a school before its "of" ("Humboldt University
    of Berlin", "University of Texas at Austin"). The thirty-first read's P69: "Oskar Fehr studied at HU
    Berlin" (40 of 400 rows). A club, a firm or a person keeps the acronym English knows it by ("AC Milan",
    "PJ Harvey", "EA Canada"); none where no alias spells it out ("BBC One", "TU Dresden").
    """
    found = _ACRONYM_THEN_NAME.fullmatch(label)
    if not found:
        return None
    acronym, rest = found.group("acronym"), found.group("rest").split()
    for alias in aliases:
        words = [w for w in alias.split() if w[:1].isupper()]
        if (
            len(words) == len(acronym) + len(rest)
            and "".join(w[0] for w in words[: len(acronym)]) == acronym
            and words[len(acronym) :] == rest
            and re.fullmatch(r"[^\W\d_][\w'’ -]*", alias)
            and " of " in alias
            and set(alias.split(" of ")[0].split()) & _SCHOOL_HEADS
        ):
            return alias
    return None


def full_name(label: str, aliases: Iterable[str]) -> str | None:
    """A person's full name where the label is a surname alone that an alias writes in full, or None.

    The alias (up to four words) that ends with the one-word label after capitalised given names, one whose
    first given name another alias of the label repeats first, then the fullest: "Nixon" -> "Richard Milhous
    Nixon", "Tempesta" -> "Antonio Tempesta", not the Latin "Antonius Tempesta" (the twenty-sixth read: "Nixon
    was a national of", "Tempesta spoke"). An initial, a title or a nickname before the label ("R. M. Nixon",
    "Pope Zachary", "Emperor of Hindustan Babur", "DJ Avicii") makes no full name. A mononym is no surname: a
    label that opens an alias before another name not among the given names ("Raphael Sanctius", "Vitruvius
    Pollio", "Rembrandt van Rijn", "Paul of Tarsus"), a byname ("called Masaccio") and a name aliased in both
    orders ("Pollio Vitruvius", "Vitruvius Pollio") stay, as "Raphael" does (the twenty-seventh read: "Urbinas
    Raphael", "Pollio Vitruvius", inverted forms). Asked of people only (the caller knows the class: a place
    "Washington" is no surname).
    """
    if len(label.split()) != 1:
        return None
    aliases = list(aliases)
    if handle := _HANDLE.fullmatch(label):  # "GregKH" -> "Greg Kroah-Hartman" (the thirty-first read's P178)
        given, initials = handle.groups()
        return next(
            (
                alias
                for alias in aliases
                if (words := alias.split())[0] == given
                and "".join(part[0] for w in words[1:] for part in w.split("-")) == initials
            ),
            None,
        )
    found = [
        alias
        for alias in aliases
        if 2 <= len(words := alias.split()) <= 4
        and words[-1] == label
        and label not in words[:-1]
        and all(w[:1].isupper() and w[1:].islower() and w.isalpha() for w in words[:-1])
        and not set(words[:-1]) & (PERSON_TITLES | _PARTICLES)
    ]
    # both orders of one name ("Pollio Vitruvius", "Vitruvius Pollio"): no telling the surname
    inverted = {" ".join(reversed(alias.split())) for alias in found} & set(aliases)
    if inverted:
        return None
    # given names of three or more initials ("Celaleddin", "Dschalaluddin", "Mevlana" Rumi) or a birth name
    # with a particle the label is not in ("Cenni Di Pepo" for Cimabue, "Andrea di Pietro della Gondola" for
    # Palladio): a byname that writers complete as they please, no surname
    if len({alias[0] for alias in found}) >= 3 or any(
        len(words := alias.split()) >= 3 and label not in words and {w.lower() for w in words[1:-1]} & _BIRTH
        for alias in aliases
    ):
        return None
    given = {w for alias in found for w in alias.split()[:-1]}
    if any(
        _names_on_after(label, alias, given) or re.search(_NICKNAMED + re.escape(label) + r"\b", alias)
        for alias in aliases
    ):
        return None

    def confirmed(alias: str) -> bool:
        first = alias.split()[0]
        return any(
            first in (words := other.split()) and label in words for other in aliases if other != alias
        )

    return max(found, key=lambda a: (confirmed(a), len(a.split()), a), default=None)


# a user's handle: a given name and the initials of a family name written as one word ("GregKH")
_HANDLE = re.compile(r"([A-Z][a-z]+)([A-Z]{2,3})")


def _names_on_after(label: str, alias: str, given: set[str]) -> bool:
    """Whether an alias opens with the label before another name than a given name of the person's full names.

    "Raphael Sanctius", "Vitruvius Pollio", "Rembrandt van Rijn", "Paul of Tarsus" (a mononym, or a name
    before its family name); not a surname-first citation ("Bertozzi C. R.", "Trevisani Cavaliere Francesco"
    where "Francesco Trevisani" is a full name) nor a qualifier in brackets or after a comma.
    """
    words = alias.split()
    if len(words) < 2 or words[0] != label:
        return False
    rest = words[1:]
    if rest[0] in {"of", "van", "von", "da", "di", "de", "del", "della"}:
        return True
    return (
        rest[0][:1].isupper()
        and rest[0].isalpha()
        and len(rest[0]) > 2
        and rest[0] not in _AGE_QUALIFIERS
        and not set(rest) & given
    )


# words that put a nickname after them ("called Masaccio", "Antonio, genannt Canaletto", "detto il Guercino",
# "dit le Cigoli"): the label is the painter's byname, no surname
_NICKNAMED = r"(?i)(?:^|[ ,])(?:called|detto(?: il)?|dit(?: le)?|gen\.|genannt|known as),? "

# a particle of a patronym or a place between given names and a byname ("Cenni Di Pepo Cimabue", "Lodovico
# Cardi Da Cigoli"): what follows is no surname
_PARTICLES = frozenset("Di Da De Del Della Du Van Von Der Den Ter".split())
_BIRTH = frozenset("di da del della".split())

# a word after a surname that tells a person from a relative of the same name ("Tempesta Vecchio")
_AGE_QUALIFIERS = frozenset("Vecchio Giovane Elder Younger Senior Junior".split())


# words before a one-word name that make it a title's or a nickname's, not a given name
PERSON_TITLES = frozenset(
    "Pope Saint St Emperor Empress King Queen Prince Princess Sir Lord Lady Dame President General Venerable "
    "Blessed Master Drizzy Le La Il El Al Prophet Apostle Antipope Baron Miss Mr Mrs The Mevlana Gosvami "
    "Agha".split()
)


def without_legal_form(label: str, aliases: Iterable[str]) -> str:
    """A firm's label less its legal form where an alias is that short name ("Cyan, Inc." -> "Cyan"), or it.

    The twenty-sixth read: "Electric Boat Co., the manufacturer of", "Kuju Ltd", "Big Machine Records, LLC".
    """
    aliases = list(aliases)
    short = _LEGAL_FORM.sub("", label)
    if short != label and short in set(aliases):
        return short
    if _FIRM_ABBREVIATION_END.search(label):
        return _alias_without_abbreviation(label, short, aliases) or label
    return label


# a firm's name's legal forms at its end, abbreviated or in full, after "&" too ("Kitson & Co.")
_FIRM_FORMS_END = re.compile(rf"(?:,? &?\s?{_FIRM_ABBREVIATIONS}\.|,? Company|,? Limited)+$")
_SPELLED_ABBREVIATIONS = {
    "Bros.": "Brothers",
    "Co.": "Company",
    "Ltd.": "Limited",
    "Inc.": "Incorporated",
    "Corp.": "Corporation",
    "F.C.": "Football Club",
    "A.F.C.": "Association Football Club",
}


def _alias_without_abbreviation(label: str, short: str, aliases: list[str]) -> str | None:
    """An alias naming a firm or a club labelled with an abbreviation's full stop at its end without it.

    The name without its legal form ("Mediaset S.p.A." -> "Mediaset", "Chelsea F.C." -> "Chelsea"), then the
    label with the abbreviation spelled out ("Sun Shipbuilding & Drydock Co." -> "... Company", "Warner Bros."
    -> "Warner Brothers", "Rhyl F.C." -> "Rhyl Football Club"), then for "Bros." one that goes on after the
    label ("Warner Bros." -> "Warner Bros. Records"), then one of capitalised words holding the name without
    the legal form ("Electric Boat Co." -> "General Dynamics Electric Boat"); none that ends in a full stop
    itself ("Tose Co., Ltd."), holds a figure ("Modena F.C. 2018", another club) or a lower-case word other
    than a particle ("Beijing Guoan in Asian football").
    """
    usable = [
        a
        for a in aliases
        if not a.endswith(".")
        and len(a) > 3
        and not re.search(r"\d", a)
        and all(w[:1].isupper() or w in _ALIAS_PARTICLES for w in a.split())
    ]
    stem = _FIRM_FORMS_END.sub("", label).rstrip(",&. ")
    last = label.split()[-1]
    if stem in usable and stem != label and last != "Bros.":  # "Bros." is the name's ("Super Smash Bros.")
        return stem
    spelled = label[: -len(last)] + _SPELLED_ABBREVIATIONS[last] if last in _SPELLED_ABBREVIATIONS else None
    if spelled in usable:
        return spelled
    going_on = [a for a in usable if last == "Bros." and a.startswith(label + " ")]
    if going_on:
        return min(going_on, key=len)
    holding = [a for a in usable if stem and re.search(rf"(?<![\w.]){re.escape(stem)}(?![\w.])", a)]
    return min(holding, key=len) if holding else None


_ALIAS_PARTICLES = frozenset("of and de del della di du da la le & the".split())


# a firm's legal form after its name ("Cyan, Inc.", "Kuju Ltd", "Big Machine Records, LLC", "Alpha Denshi Co.,
# Ltd.")
_LEGAL_FORM = re.compile(r"(?:,? (?:Inc\.?|Ltd\.?|LLC|Co\.|Corp\.?|Limited|plc|GmbH|A/S|S\.A\.))+$")


# a label cut short by an editor: one capitalised word of two to six letters and a full stop ('Lond.' for the
# University of London), or a name then two or more abbreviated words of one or two letters ('Freiburg i. B.')
_ABBREVIATED_LABEL = re.compile(r"[A-Z][a-z]{1,5}\.")
_ABBREVIATED_QUALIFIER = re.compile(r".+?(?: [A-Za-z][a-z]?\.){2,}")


def _spells_out(label: str, alias: str) -> bool:
    """Whether an alias with no full stop writes the label's words in full.

    Each label word, its full stop dropped, opens one of a run of the alias's words ('Lond.': 'London
    University'; 'Freiburg i. B.': 'Freiburg im Breisgau').
    """
    stems = [word.rstrip(".") for word in label.split()]
    words = alias.split()
    if "." in alias or len(words) < len(stems):
        return False
    return any(
        all(word.startswith(stem) for word, stem in zip(words[start:], stems, strict=False))
        for start in range(len(words) - len(stems) + 1)
    )


def spelled_out(label: str, aliases: Iterable[str]) -> str:
    """The label, or the alias it abbreviates where it is a learned body's acronym ("RSL", "NAS").

    An acronym label (two to five capitals, nothing else) whose alias spells it out (the initials
    of its capitalised words, or of those before its "of": "RA", Royal Academy of Arts; the acronym
    not among them) and names a society, academy, institute,
    institution, association or college (its head before "of") is shown by that alias: "a member of
    the Royal Society of Literature", not "of RSL". Firms and broadcasters keep the acronym they are
    known by ("IBM", "NBC"; "NEC Electronics Corporation" spells "NEC" but holds it: another firm).
    """
    # "HU Berlin" -> "Humboldt University of Berlin"
    return acronym_before_name(label, aliases) or _learned_body_alias(label, aliases)


def _learned_body_alias(label: str, aliases: Iterable[str]) -> str:
    """``spelled_out`` but for an acronym before a name: the alias a learned body's acronym abbreviates."""
    if not re.fullmatch(r"[A-Z]{2,5}", label):
        return label
    for alias in aliases:
        words = re.findall(r"[^\W\d_][\w'-]*", alias)
        initials = "".join(w[0] for w in words if w[0].isupper())
        before_of = alias.split(" of ")[0]
        head = before_of.split()[-1] if before_of.split() else ""
        short = "".join(w[0] for w in before_of.split() if w[0].isupper())  # "RA": Royal Academy (of Arts)
        spells = initials == label or (short == label and " of " in alias)
        if spells and len(words) >= 2 and label not in words and head in LEARNED_BODY_HEADS:
            return alias
    return label
