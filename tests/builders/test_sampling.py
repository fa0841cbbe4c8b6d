from collections import Counter

from probesmith.builders.sampling import assign_splits, balanced_positions, item_rng, stable_hash


def test_stable_hash_and_item_rng_are_keyed_not_ordered():
    assert stable_hash(0, "a", 1) == stable_hash(0, "a", 1) != stable_hash(1, "a", 1)
    assert item_rng(0, "x").random() == item_rng(0, "x").random()


def test_balanced_positions_are_uniform():
    ids = [f"item{i}" for i in range(1003)]
    counts = Counter(balanced_positions(ids, 5, seed=0).values())
    assert set(counts) == {0, 1, 2, 3, 4} and max(counts.values()) - min(counts.values()) <= 1


def test_splits_keep_clusters_whole_and_respect_train_cap():
    sizes = {f"c{i}": {"a": 1 + i % 7, "b": i % 3} for i in range(500)}
    split, overflow = assign_splits(sizes, seed=0, train_items=300, dev_share=0.5)
    assert set(split) == set(sizes)
    for config in ("a", "b"):
        train = sum(
            s[config] for c, s in sizes.items() if split[c] == "train" and (c, config) not in overflow
        )
        assert 290 <= train <= 300
    assert all(split[c] == "train" for c, _ in overflow)  # only train clusters overflow
    counts = Counter(split.values())
    assert counts["dev"] > 50 and counts["test"] > 50


def test_adding_a_cluster_does_not_move_dev_and_test_clusters():
    sizes = {f"c{i}": {"a": 3} for i in range(200)}
    before, _ = assign_splits(sizes, 0, 0, 0.5)
    after, _ = assign_splits({**sizes, "new": {"a": 3}}, 0, 0, 0.5)
    assert all(after[c] == s for c, s in before.items())
