"""Text helpers shared by the builders: word matching and choice normalisation."""

from __future__ import annotations

import re
from functools import lru_cache


def contains_word(text: str, word: str) -> bool:
    """Whether ``word`` occurs in ``text`` as a whole word or phrase, ignoring case."""
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.IGNORECASE) is not None


def inflections(lemma: str) -> set[str]:
    """Regular inflected forms of a one-word lemma (enough to find it in WordNet's examples)."""
    forms = {lemma, lemma + "s", lemma + "es", lemma + "ed", lemma + "d", lemma + "ing", lemma + "er"}
    if lemma.endswith("y") and len(lemma) > 2:
        forms |= {lemma[:-1] + "ies", lemma[:-1] + "ied"}
    if lemma.endswith("e"):
        forms.add(lemma[:-1] + "ing")
    if len(lemma) > 2 and lemma[-1] not in "aeiouwxy" and lemma[-2] in "aeiou":
        forms |= {lemma + lemma[-1] + "ed", lemma + lemma[-1] + "ing"}
    return forms


def find_in_examples(lemmas: tuple[str, ...], examples: tuple[str, ...]) -> tuple[str, str] | None:
    """The first (example, word as it appears) where an example contains one of the lemmas."""
    for example in examples:
        tokens = re.findall(r"[A-Za-z][A-Za-z'-]*", example)
        for lemma in lemmas:
            low = lemma.lower()
            if " " in low or "-" in low:
                match = re.search(re.escape(low), example, re.IGNORECASE)
                if match:
                    return example, example[match.start() : match.end()]
                continue
            forms = inflections(low)
            for token in tokens:
                if token.lower() in forms:
                    return example, token
    return None


@lru_cache(maxsize=1 << 18)  # every pair check of a build asks again for the same texts
def normalize_choice(text: str) -> str:
    """Lower-cased words only: two choices with the same key read as the same answer."""
    return re.sub(r"\W+", " ", text.lower()).strip()


NEAR_DUPLICATE_JACCARD = 0.6


@lru_cache(maxsize=1 << 18)
def word_tokens(text: str) -> frozenset[str]:
    """The set of lower-cased word tokens of ``text``."""
    return frozenset(re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower()))


def token_jaccard(a: str, b: str) -> float:
    """Jaccard similarity of two texts' word-token sets (1.0: the same words)."""
    left, right = word_tokens(a), word_tokens(b)
    return len(left & right) / len(left | right) if left or right else 1.0


def near_duplicate(a: str, b: str, threshold: float = NEAR_DUPLICATE_JACCARD) -> bool:
    """Whether two choices read as the same answer reworded (token Jaccard >= ``threshold``)."""
    return normalize_choice(a) == normalize_choice(b) or token_jaccard(a, b) >= threshold


def mentions_word(text: str, word: str) -> bool:
    """Whether ``text`` uses ``word`` or a regular inflection of it ("flatworms" for *flatworm*)."""
    low = word.lower()
    if " " in low or "-" in low:
        return contains_word(text, low)
    forms = inflections(low)
    return any(token in forms for token in re.findall(r"[a-z][a-z'-]*", text.lower()))
