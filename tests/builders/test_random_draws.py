"""random_draws.shuffle is random.Random.shuffle: the same permutation and generator state after."""

import random

import pytest

from probesmith.builders.random_draws import shuffle

LENGTHS = [*range(0, 70), 127, 128, 129, 255, 256, 257, 400, 801, 1024, 4097]


@pytest.mark.parametrize("seed", [0, 1, 2, 12345, 2**63 - 1])
def test_shuffle_is_random_shuffle(seed):
    for length in LENGTHS:
        expected, got = list(range(length)), list(range(length))
        reference, fast = random.Random(seed + length), random.Random(seed + length)
        reference.shuffle(expected)
        shuffle(fast, got)
        assert got == expected, length
        assert fast.getstate() == reference.getstate(), length
        # the next draws too: a build's later choices read the same generator
        assert [fast.random() for _ in range(3)] == [reference.random() for _ in range(3)]


def test_shuffle_after_other_draws_and_of_any_items():
    reference, fast = random.Random("item:dog.n.01:2:1"), random.Random("item:dog.n.01:2:1")
    for round_ in range(200):
        items = [(f"n{i}", i % 7) for i in range(round_ * 3)]
        expected, got = list(items), list(items)
        reference.shuffle(expected)
        shuffle(fast, got)
        assert got == expected
        assert fast.randrange(1000) == reference.randrange(1000)
    assert fast.getstate() == reference.getstate()
