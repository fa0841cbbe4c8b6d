"""Deterministic randomness: every choice is keyed by (seed, item key), never by call order.

Adding or removing items leaves every other item's samples unchanged, and a build is the same
on every machine and Python version (``random.Random`` with an integer seed is stable).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping


def stable_hash(*parts: Hashable) -> int:
    """A 64-bit hash of ``parts`` that is the same in every process (unlike ``hash``)."""
    text = "\x1f".join(map(str, parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def item_rng(seed: int, *key: Hashable) -> random.Random:
    """The random generator of one item: seeded by the build seed and the item's key."""
    return random.Random(stable_hash(seed, *key))


def assign_splits(
    cluster_sizes: Mapping[str, Mapping[str, int]], seed: int, train_items: int, dev_share: float
) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """Assign whole clusters to train, dev and test, one split per cluster across all configs.

    ``cluster_sizes`` maps cluster -> config -> items. Clusters are taken in the order of their
    keyed hash; a cluster goes to train while at least one of its configs has room for all of
    its items there (at most ``train_items`` per config). Its items in configs whose train is
    already full cannot go to dev or test without putting the concept in two splits, so they
    are returned as ``overflow`` (cluster, config) pairs for the caller to drop and count. Of the
    remaining clusters, one goes to dev when its own hash falls in the first ``dev_share`` of
    the range, else to test, so adding a cluster never moves another between dev and test.
    """
    assignment: dict[str, str] = {}
    overflow: set[tuple[str, str]] = set()
    train_total: Counter = Counter()
    for cluster in sorted(cluster_sizes, key=lambda c: (stable_hash(seed, "split", c), c)):
        sizes = cluster_sizes[cluster]
        fits = {cfg for cfg, n in sizes.items() if train_total[cfg] + n <= train_items}
        if fits:
            assignment[cluster] = "train"
            for cfg in fits:
                train_total[cfg] += sizes[cfg]
            overflow |= {(cluster, cfg) for cfg in sizes if cfg not in fits}
        elif stable_hash(seed, "dev", cluster) / 2**64 < dev_share:
            assignment[cluster] = "dev"
        else:
            assignment[cluster] = "test"
    return assignment, overflow


def balanced_positions(item_ids: Iterable[str], n_choices: int, seed: int) -> dict[str, int]:
    """Gold positions uniform across a set of items: counts per position differ by at most one.

    Items are ranked by their keyed hash and position ``rank mod n_choices`` is given out, so a
    choice-only model cannot learn a position prior.
    """
    ordered = sorted(item_ids, key=lambda i: (stable_hash(seed, "position", i), i))
    return {item_id: rank % n_choices for rank, item_id in enumerate(ordered)}
