"""The statistics every part of probesmith shares: one Wilson interval, one paired bootstrap."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054


def wilson_interval(accuracy: float, n: int) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``accuracy`` observed over ``n`` trials."""
    if n == 0:
        return 0.0, 1.0
    denom = 1 + Z95**2 / n
    centre = (accuracy + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(accuracy * (1 - accuracy) / n + Z95**2 / (4 * n * n)) / denom
    # the bounds hold the estimate itself: at 0 and 1 rounding would put it a hair outside
    return min(accuracy, max(0.0, centre - half)), max(accuracy, min(1.0, centre + half))


def accuracy_summary(correct: Sequence[bool], chance: float | None) -> dict:
    """An accuracy with its 95% Wilson interval, its n and the chance rate it should beat."""
    n = len(correct)
    accuracy = sum(bool(c) for c in correct) / n if n else None
    low, high = wilson_interval(accuracy or 0.0, n)
    return {"accuracy": accuracy, "ci95": [low, high], "n": n, "chance": chance}


def paired_bootstrap(a: Sequence[float], b: Sequence[float], *, resamples: int = 2000, seed: int = 0) -> dict:
    """Mean of ``a - b`` over paired items, with a 95% percentile bootstrap interval.

    Items are resampled with replacement, the same items for both, so the interval reflects
    the models' difference on these items and not the items' difficulty.
    """
    if len(a) != len(b):
        raise ValueError(f"paired samples of different sizes: {len(a)} and {len(b)}")
    n = len(a)
    if n == 0:
        return {"difference": None, "ci95": [None, None], "n": 0, "resamples": resamples}
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    rng = random.Random(seed)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    low, high = means[int(0.025 * resamples)], means[min(resamples - 1, int(0.975 * resamples))]
    return {"difference": sum(diffs) / n, "ci95": [low, high], "n": n, "resamples": resamples}
