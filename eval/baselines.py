"""Partial-input baselines by name, the torch encoder among them (see :mod:`probesmith.builders.baselines`).

The feature baselines live in ``probesmith.builders.baselines`` (the build's artifact filter uses
them); this module adds the one that needs torch, ``encoder_choice_only``, and re-exports the rest
for the audit's users.
"""

from __future__ import annotations

from probesmith.builders.baselines import (
    BASELINES,
    DEFAULT_BASELINES,
    AnswerFrequency,
    Baseline,
    ChoiceOnly,
    ChoiceToChoice,
    EncodedItems,
    FeatureBaseline,
    FewestWords,
    LengthCue,
    LexicalOverlap,
    Longest,
    MostWords,
    NeverGold,
    QuestionToChoice,
    Shortest,
    item_credit,
    words,
)
from probesmith.errors import SpecError

__all__ = [
    "BASELINES",
    "DEFAULT_BASELINES",
    "AnswerFrequency",
    "Baseline",
    "ChoiceOnly",
    "ChoiceToChoice",
    "EncodedItems",
    "FeatureBaseline",
    "FewestWords",
    "LengthCue",
    "LexicalOverlap",
    "Longest",
    "MostWords",
    "NeverGold",
    "QuestionToChoice",
    "Shortest",
    "item_credit",
    "make_baseline",
    "words",
]


def make_baseline(name: str, seed: int = 0, **options) -> Baseline:
    """A baseline by name; ``encoder_choice_only`` takes ``model=`` (a path or "tiny")."""
    if name == "encoder_choice_only":
        from probesmith.eval.encoder import EncoderChoiceOnly  # deferred: imports torch and transformers

        return EncoderChoiceOnly(seed=seed, **options)
    if name not in BASELINES:
        known = ", ".join([*BASELINES, "encoder_choice_only"])
        raise SpecError(f"unknown baseline {name!r}; known baselines: {known}.")
    cls = BASELINES[name]
    return cls(seed=seed) if issubclass(cls, FeatureBaseline) else cls()
