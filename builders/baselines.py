"""Partial-input baselines: models that see less than the whole item and should be at chance.

Each baseline is trained on a train split and scores every choice of held-out items; the item
is answered by the highest-scoring choice (ties share the credit: with ``k`` choices tied at the
top, one of which is gold, the item counts ``1/k``). Where a baseline beats chance, the data has
an artifact: the answer can be found without the knowledge the probe is about.

* ``choice_only`` — each choice alone: word and bigram identities, first and last words, length,
  punctuation (Poliak et al. 2018; Richardson & Sabharwal 2020);
* ``choice_to_choice`` — a choice against the other choices: length rank, longest/shortest, word
  overlap with the others (the odd one out is often the gold, or never is);
* ``question_to_choice`` — lexical overlap of the question with the choice (trained weights);
* ``lexical_overlap`` — the same overlap, untrained: the choice sharing most words wins;
* ``answer_frequency`` — how often a choice's text was the gold in train (the majority-class
  baseline of relation sets: LAMA-style sets reward always naming the frequent answer);
* ``shortest``, ``longest``, ``fewest_words``, ``most_words`` — untrained length cues: the choice
  with the fewest / most characters or words wins, ties broken at random (the tied choices share
  the credit, which is the expected score of a random tie-break). ``choice_to_choice`` learns
  these and more from train; these four say which plain rule a test-taker could use, and how far
  above chance it gets (issue 24: synonymy's shortest choice 0.269 beside chance 0.200);
* ``encoder_choice_only`` (:mod:`probesmith.eval.encoder`, made by
  :func:`probesmith.eval.baselines.make_baseline`) — a transformer trained on the choices alone;
  it needs torch, so it lives in eval, above the builders.

The feature baselines are here, below the build, because the artifact filter of a multiple-choice
build uses them (:mod:`probesmith.builders.artifact_filter`); the audit (eval) imports them.

Feature models are conditional-logit (softmax over an item's choices) linear models over hashed
features, trained with scipy sparse products on CPU in seconds.
"""

from __future__ import annotations

import abc
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
import scipy.sparse

N_BUCKETS = 1 << 18
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    """Lower-cased word tokens."""
    return _WORD.findall(text.lower())


def _bucket(name: str) -> int:
    return zlib.crc32(name.encode()) & (N_BUCKETS - 1)


def item_credit(scores: np.ndarray, answer: int) -> float:
    """1/k if the gold is among the k top-scoring choices, else 0."""
    top = np.flatnonzero(scores >= scores.max() - 1e-9)
    return 1.0 / len(top) if answer in top else 0.0


class Baseline(abc.ABC):
    """A partial-input model: ``fit`` on train items, ``scores`` per choice of any items."""

    name = "baseline"

    def fit(self, train: pl.DataFrame) -> Baseline:
        """Train on a frame with ``question``, ``choices``, ``answer_index``."""
        return self

    @abc.abstractmethod
    def scores(self, data: pl.DataFrame) -> list[np.ndarray]:
        """One score per choice for every item of ``data``."""

    def credits(self, data: pl.DataFrame) -> np.ndarray:
        """Per-item credit (1, 0, or 1/k for ties at the top)."""
        answers = data["answer_index"].to_list()
        return np.array([item_credit(s, a) for s, a in zip(self.scores(data), answers, strict=True)])


class FeatureBaseline(Baseline):
    """A linear conditional-logit model over hashed features of each choice."""

    def __init__(self, epochs: int = 60, learning_rate: float = 0.05, seed: int = 0):
        self.epochs, self.learning_rate, self.seed = epochs, learning_rate, seed
        self.weights: np.ndarray | None = None

    @abc.abstractmethod
    def features(self, question: str, choices: Sequence[str]) -> list[list[str]]:
        """Feature names of every choice of one item."""

    def encode(self, data: pl.DataFrame) -> EncodedItems:
        """Hash every choice's features once; the result can be subset, fit on and scored."""
        ids: list[int] = []
        choice_start = [0]
        item_start = [0]
        for question, choices in zip(data["question"].to_list(), data["choices"].to_list(), strict=True):
            for names in self.features(question, choices):
                ids.extend(_bucket(n) for n in names)
                choice_start.append(len(ids))
            item_start.append(len(choice_start) - 1)
        return EncodedItems(
            np.array(ids, dtype=np.int64),
            np.array(choice_start, dtype=np.int64),
            np.array(item_start, dtype=np.int64),
            np.array(data["answer_index"].to_list(), dtype=np.int64),
        )

    def fit(self, train: pl.DataFrame | EncodedItems) -> FeatureBaseline:
        """Train by full-batch Adam on the softmax over each item's choices.

        Only features present in ``train`` get parameters; the choices x features matrix is a
        scipy CSR matrix built once, and the gradient of the softmax cross-entropy is written
        out (``X^T (p - y)``), so an epoch is two sparse products.
        """
        encoded = train if isinstance(train, EncodedItems) else self.encode(train)
        present, column = np.unique(encoded.ids, return_inverse=True)
        n_choices = len(encoded.choice_start) - 1
        matrix = scipy.sparse.csr_matrix(
            (np.ones(len(column)), column, encoded.choice_start), shape=(n_choices, len(present))
        )
        transposed = matrix.T.tocsr()
        starts = encoded.item_start[:-1]
        widths = np.diff(encoded.item_start)
        gold_rows = starts + encoded.answers
        rng = np.random.default_rng(self.seed)
        weights = rng.normal(0.0, 0.001, len(present))
        first, second = np.zeros_like(weights), np.zeros_like(weights)
        beta1, beta2, eps = 0.9, 0.999, 1e-8
        for step in range(1, self.epochs + 1):
            probabilities = _softmax_per_item(matrix @ weights, starts, widths)
            probabilities[gold_rows] -= 1.0
            gradient = transposed @ (probabilities / len(widths))
            first = beta1 * first + (1 - beta1) * gradient
            second = beta2 * second + (1 - beta2) * gradient**2
            step_size = self.learning_rate * np.sqrt(1 - beta2**step) / (1 - beta1**step)
            weights -= step_size * first / (np.sqrt(second) + eps)
        self.weights = np.zeros(N_BUCKETS)
        self.weights[present] = weights
        return self

    def scores(self, data: pl.DataFrame | EncodedItems) -> list[np.ndarray]:
        """Linear scores of every choice."""
        if self.weights is None:
            raise RuntimeError(f"{self.name}: call fit() before scores()")
        encoded = data if isinstance(data, EncodedItems) else self.encode(data)
        n_choices = len(encoded.choice_start) - 1
        rows = np.repeat(np.arange(n_choices), np.diff(encoded.choice_start))
        flat = np.bincount(rows, weights=self.weights[encoded.ids], minlength=n_choices)
        return np.split(flat, encoded.item_start[1:-1])

    def predict(self, data: pl.DataFrame | EncodedItems) -> tuple[np.ndarray, np.ndarray]:
        """Per item: credit (1, 0, or 1/k for k-way ties at the top) and the gold's probability."""
        encoded = data if isinstance(data, EncodedItems) else self.encode(data)
        flat = np.concatenate(self.scores(encoded))
        starts, widths = encoded.item_start[:-1], np.diff(encoded.item_start)
        gold_rows = starts + encoded.answers
        top = flat >= np.repeat(np.maximum.reduceat(flat, starts), widths) - 1e-9
        credit = top[gold_rows] / np.add.reduceat(top.astype(float), starts)
        return credit, _softmax_per_item(flat, starts, widths)[gold_rows]

    def credits(self, data: pl.DataFrame | EncodedItems) -> np.ndarray:
        """Per-item credit (1, 0, or 1/k for ties at the top)."""
        return self.predict(data)[0]


@dataclass(frozen=True)
class EncodedItems:
    """Hashed features of items in CSR form.

    The choices of item ``i`` are ``item_start[i]:item_start[i+1]``; the feature ids of choice
    ``j`` are ``ids[choice_start[j]:choice_start[j+1]]``.
    """

    ids: np.ndarray
    choice_start: np.ndarray
    item_start: np.ndarray
    answers: np.ndarray

    def __len__(self) -> int:
        return len(self.answers)

    def subset(self, items: np.ndarray) -> EncodedItems:
        """The encoding of the items at positions ``items``, in that order."""
        first, last = self.item_start[items], self.item_start[items + 1]
        choices = _ranges(first, last)
        feature_ids = self.ids[_ranges(self.choice_start[choices], self.choice_start[choices + 1])]
        feature_counts = self.choice_start[choices + 1] - self.choice_start[choices]
        return EncodedItems(
            feature_ids,
            np.concatenate([[0], np.cumsum(feature_counts)]),
            np.concatenate([[0], np.cumsum(last - first)]),
            self.answers[items],
        )


def _softmax_per_item(scores: np.ndarray, starts: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """Softmax of choice scores within each item (items are consecutive runs of choices)."""
    shifted = np.exp(scores - np.repeat(np.maximum.reduceat(scores, starts), widths))
    return shifted / np.repeat(np.add.reduceat(shifted, starts), widths)


def _ranges(starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(start, stop)`` for every pair, without a Python loop."""
    lengths = stops - starts
    if lengths.sum() == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return np.arange(lengths.sum()) + offsets


class ChoiceOnly(FeatureBaseline):
    """Each choice alone."""

    name = "choice_only"

    def features(self, question: str, choices: Sequence[str]) -> list[list[str]]:
        """Word and bigram identities, edges, length and punctuation of each choice."""
        out = []
        for text in choices:
            w = words(text)
            names = [f"w:{x}" for x in set(w)] + [f"b:{a}_{b}" for a, b in set(zip(w, w[1:], strict=False))]
            if w:
                names += [f"first:{w[0]}", f"last:{w[-1]}"]
            names += [
                f"nw:{min(len(w), 40)}",
                f"nc:{min(len(text) // 8, 40)}",
                f"end:{text[-1:]}",
                f"cap:{text[:1].isupper()}",
            ]
            names += [f"p:{ch}" for ch in ",;:()'\"-" if ch in text]
            out.append(names)
        return out


class ChoiceToChoice(FeatureBaseline):
    """A choice against the other choices of its item."""

    name = "choice_to_choice"

    def features(self, question: str, choices: Sequence[str]) -> list[list[str]]:
        """Length rank, extremes and word overlap of each choice with the others."""
        tokens = [set(words(t)) for t in choices]
        lengths = [len(t) for t in choices]
        order = sorted(set(lengths))
        out = []
        for i, _text in enumerate(choices):
            others = [tokens[j] for j in range(len(choices)) if j != i]
            overlaps = [_jaccard(tokens[i], o) for o in others] or [0.0]
            shared = len(tokens[i] & set().union(*others)) / max(1, len(tokens[i]))
            rank = order.index(lengths[i])
            names = [
                f"rank:{rank}",
                f"rank_from_top:{len(order) - 1 - rank}",
                f"maxj:{int(max(overlaps) * 10)}",
                f"meanj:{int(np.mean(overlaps) * 10)}",
                f"shared:{int(shared * 10)}",
                f"unique_words:{min(len(tokens[i] - set().union(*others)), 20)}",
            ]
            if lengths[i] == max(lengths):
                names.append("longest")
            if lengths[i] == min(lengths):
                names.append("shortest")
            out.append(names)
        return out


class QuestionToChoice(FeatureBaseline):
    """Lexical overlap between the question and each choice, with trained weights."""

    name = "question_to_choice"

    def features(self, question: str, choices: Sequence[str]) -> list[list[str]]:
        """Overlap size, Jaccard and containment of each choice with the question."""
        q = set(words(question))
        out = []
        for text in choices:
            c = set(words(text))
            shared = q & c
            names = [
                f"jac:{int(_jaccard(q, c) * 20)}",
                f"nshared:{min(len(shared), 10)}",
                f"cover:{int(len(shared) / max(1, len(c)) * 10)}",
            ]
            names += [f"in_question:{text.lower() in question.lower()}"]
            out.append(names)
        return out


class LexicalOverlap(Baseline):
    """Untrained: the choice sharing the largest share of words with the question wins."""

    name = "lexical_overlap"

    def scores(self, data: pl.DataFrame) -> list[np.ndarray]:
        """Jaccard similarity of each choice's words with the question's."""
        result = []
        for question, choices in zip(data["question"].to_list(), data["choices"].to_list(), strict=True):
            q = set(words(question))
            result.append(np.array([_jaccard(q, set(words(c))) for c in choices]))
        return result


class AnswerFrequency(Baseline):
    """How often each choice's text was the gold answer in train (majority class)."""

    name = "answer_frequency"

    def __init__(self) -> None:
        self.gold_counts: Counter = Counter()

    def fit(self, train: pl.DataFrame) -> AnswerFrequency:
        """Count gold answer texts."""
        self.gold_counts = Counter(
            c[a].strip().lower()
            for c, a in zip(train["choices"].to_list(), train["answer_index"].to_list(), strict=True)
        )
        return self

    def scores(self, data: pl.DataFrame) -> list[np.ndarray]:
        """Gold count in train of every choice's text."""
        return [
            np.array([float(self.gold_counts[c.strip().lower()]) for c in choices])
            for choices in data["choices"].to_list()
        ]


class NeverGold(AnswerFrequency):
    """The answer-pool cue: a choice whose text was never a gold answer in train wins (ties share).

    Where splits are disjoint by concept, a test gold is never a train gold, while distractors drawn
    from the pool of golds are; this cue then beats chance though ``answer_frequency`` (the majority
    class) falls below it, and the audit flags only cues above chance.
    """

    name = "never_gold"

    def scores(self, data: pl.DataFrame) -> list[np.ndarray]:
        """Minus the gold count in train of every choice's text."""
        return [-counts for counts in super().scores(data)]


class LengthCue(Baseline):
    """Untrained: the choice with the extreme length wins; ties share the credit (a random tie-break).

    Subclasses set ``name``, ``measure`` (``"chars"`` or ``"words"``) and ``sign`` (+1 longest, -1 shortest).
    """

    measure = "chars"
    sign = 1.0

    def scores(self, data: pl.DataFrame) -> list[np.ndarray]:
        """Each choice's length in characters or words, negated for the shortest-wins cues."""
        size = len if self.measure == "chars" else (lambda text: len(words(text)))
        return [np.array([self.sign * size(c) for c in choices], dtype=float) for choices in data["choices"]]


class Shortest(LengthCue):
    """The choice with the fewest characters wins."""

    name, measure, sign = "shortest", "chars", -1.0


class Longest(LengthCue):
    """The choice with the most characters wins."""

    name, measure, sign = "longest", "chars", 1.0


class FewestWords(LengthCue):
    """The choice with the fewest words wins."""

    name, measure, sign = "fewest_words", "words", -1.0


class MostWords(LengthCue):
    """The choice with the most words wins."""

    name, measure, sign = "most_words", "words", 1.0


def _jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


BASELINES: dict[str, type[Baseline]] = {
    cls.name: cls
    for cls in (
        ChoiceOnly,
        ChoiceToChoice,
        QuestionToChoice,
        LexicalOverlap,
        AnswerFrequency,
        NeverGold,
        Shortest,
        Longest,
        FewestWords,
        MostWords,
    )
}
DEFAULT_BASELINES = (
    "choice_only",
    "choice_to_choice",
    "question_to_choice",
    "lexical_overlap",
    "answer_frequency",
    "never_gold",
    "shortest",
    "longest",
    "fewest_words",
    "most_words",
)
