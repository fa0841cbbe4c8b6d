"""The shared statistics, checked by hand and against a direct computation."""

import random

import pytest

from probesmith.stats import accuracy_summary, paired_bootstrap, wilson_interval


def test_wilson_interval_by_hand():
    low, high = wilson_interval(0.5, 100)
    assert round(low, 4) == 0.4038 and round(high, 4) == 0.5962
    assert wilson_interval(0.0, 0) == (0.0, 1.0)


def test_accuracy_summary_carries_interval_n_and_chance():
    summary = accuracy_summary([True] * 30 + [False] * 70, chance=0.2)
    assert summary["accuracy"] == 0.3 and summary["n"] == 100 and summary["chance"] == 0.2
    assert summary["ci95"] == list(wilson_interval(0.3, 100))


def test_paired_bootstrap_interval_covers_the_difference_and_shrinks_with_n():
    rng = random.Random(1)
    a = [float(rng.random() < 0.6) for _ in range(2000)]
    b = [float(rng.random() < 0.5) for _ in range(2000)]
    result = paired_bootstrap(a, b, seed=0)
    assert result["difference"] == pytest.approx(sum(a) / 2000 - sum(b) / 2000)
    low, high = result["ci95"]
    assert low < result["difference"] < high and 0 < low  # a is better, and the interval says so
    small = paired_bootstrap(a[:100], b[:100], seed=0)
    assert small["ci95"][1] - small["ci95"][0] > high - low
    same = paired_bootstrap(a, a)
    assert same["difference"] == 0 and same["ci95"] == [0, 0]
    with pytest.raises(ValueError, match="different sizes"):
        paired_bootstrap(a, b[:10])
