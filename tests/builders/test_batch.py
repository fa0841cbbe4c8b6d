"""builders.batch: the compact pair sequence the WordNet builder caches sister families in."""

from __future__ import annotations

import pytest

from probesmith.builders.batch import NodePairs


def test_node_pairs_are_the_pairs_they_were_made_of():
    pairs = [(0, 1), (95_000, 2), (2**31 - 1, 255), (7, 0)]
    compact = NodePairs(pairs)
    assert list(compact) == pairs
    assert list(compact) == pairs  # iterable again, not a one-shot iterator
    assert compact == tuple(pairs) and tuple(pairs) == compact
    assert compact != tuple(pairs[:-1])
    assert len(compact) == 4 and compact[1] == (95_000, 2)
    assert list(NodePairs([])) == [] and len(NodePairs(())) == 0


def test_node_pairs_refuse_what_they_cannot_hold():
    with pytest.raises(ValueError):
        NodePairs([(1, 256)])  # the second value is one byte
    with pytest.raises(OverflowError):
        NodePairs([(2**31, 1)])  # nodes are 32-bit
