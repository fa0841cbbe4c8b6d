"""The stem analyser's compound-part tests by word slices equal the per-part loops they replaced (issue 26)."""

import re

import polars as pl
import pytest

from probesmith.builders.morphology import StemAnalyser
from probesmith.builders.sources.wordnet import WordNetSource

from ..conftest import needs_wordnet


@pytest.fixture(scope="module")
def stems():
    return StemAnalyser(WordNetSource().lexicon())


def reference_compound_parts(stems: StemAnalyser, question: str, text: str) -> frozenset[str]:
    """``compound_parts`` as it was: every question word tested against every form of every text word."""
    words, joined, _ = stems._question_parts(question)
    found = set()
    for word in set(stems_words(text)):
        if word in joined:
            found.add(word)
        forms = {word} | stems._base_forms(word)
        for part in words:
            for form in forms:
                if len(form) <= len(part):
                    continue
                head = form[: -len(part)]
                if form.startswith(part) or (
                    form.endswith(part) and (len(part) >= 4 or (len(head) >= 3 and stems._is_word(head)))
                ):
                    found.add(part)
    return frozenset(f"part:{part}" for part in found)


def reference_parts_inside(stems: StemAnalyser, question: str, text: str) -> frozenset[str]:
    """``parts_inside`` as it was: every part of ``text`` tested against every form of every question word."""
    parts, _, _ = stems._question_parts(text)
    found = set()
    for word in set(stems_words(question)):
        for form in {word} | stems._base_forms(word):
            for part in parts:
                if len(form) <= len(part) or not stems._is_word(part):
                    continue
                if form.endswith(part):
                    rest = form[: -len(part)]
                elif form.startswith(part):
                    rest = form[len(part) :]
                else:
                    continue
                if (
                    len(part) >= 5
                    or (len(part) == 4 and len(rest) >= 2)
                    or (len(rest) >= 3 and stems._is_word(rest))
                ):
                    found.add(part)
    return frozenset(f"part:{part}" for part in found)


def stems_words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


PLANTED = [
    ("a twig", "twiglike"),
    ("the gas", "gasoline"),
    ("dry-wall", "drywall"),
    ("tones", "overtones"),
    ("pin", "hairpin"),
    ("art", "heart"),
    ("anthill", "hill"),
    ("overtax", "tax"),
    ("sexploitation", "exploitation"),
    ("stools", "tool"),
    ("career", "car"),
    ("category", "cat"),
    ("rebind", "bind"),
    ("abab", "ab"),
    ("dogdog", "dog"),
]


@needs_wordnet
def test_planted_pairs_equal_the_reference(stems):
    found = 0
    for left, right in PLANTED:
        for question, text in ((left, right), (right, left)):
            assert stems.compound_parts(question, text) == reference_compound_parts(stems, question, text)
            assert stems.parts_inside(question, text) == reference_parts_inside(stems, question, text)
            found += bool(stems.compound_parts(question, text)) + bool(stems.parts_inside(question, text))
    assert found >= 8  # the pairs hold parts: the comparison is not of empty sets only


@needs_wordnet
def test_every_question_and_choice_of_a_real_build_equals_the_reference(stems, small_wordnet_build):
    pairs = set()
    for path in sorted(small_wordnet_build.out.glob("*/*.parquet")):
        for question, choices in pl.read_parquet(path, columns=["question", "choices"]).iter_rows():
            for choice in choices:
                pairs.add((question, choice))
                pairs.add((choice, question))
                pairs.add((choice.split(": ", 1)[0], choice))
    assert len(pairs) > 20_000
    differ, non_empty = [], 0
    for question, text in sorted(pairs):
        ours = (stems.compound_parts(question, text), stems.parts_inside(question, text))
        theirs = (
            reference_compound_parts(stems, question, text),
            reference_parts_inside(stems, question, text),
        )
        non_empty += bool(ours[0] or ours[1])
        if ours != theirs:
            differ.append((question, text, ours, theirs))
    assert differ == []
    assert non_empty > 900  # 1,058 of 32,343 pairs hold a part
