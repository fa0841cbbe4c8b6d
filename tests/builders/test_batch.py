"""builders.batch: the compact pair sequence the WordNet builder caches sister families in, Arrow's pool in a build."""

from __future__ import annotations

import pyarrow as pa
import pytest

from probesmith.builders.batch import NodePairs, arrow_on_the_c_heap


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


def test_arrow_allocates_from_the_c_heap_in_a_build_and_from_its_own_pool_after():
    before = pa.default_memory_pool().backend_name
    if before == "system":  # ARROW_DEFAULT_MEMORY_POOL=system, or a pyarrow built without its own pools
        pytest.skip("Arrow already allocates from the C heap here")
    heap_before = pa.system_memory_pool().bytes_allocated()
    with arrow_on_the_c_heap():
        assert pa.default_memory_pool().backend_name == "system"
        table = pa.table({"text": ["word " * 40] * 5_000})
        assert pa.system_memory_pool().bytes_allocated() - heap_before >= table.nbytes
    assert pa.default_memory_pool().backend_name == before
    assert table.column("text")[4_999].as_py() == "word " * 40  # its buffers outlive the body
    del table
    assert pa.system_memory_pool().bytes_allocated() <= heap_before  # freed to the pool that made them
    with pytest.raises(RuntimeError), arrow_on_the_c_heap():
        raise RuntimeError("a failed build")
    assert pa.default_memory_pool().backend_name == before
