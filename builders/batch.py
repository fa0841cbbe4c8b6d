"""Helpers for the builders' long pure-Python batch loops.

A build generating items allocates millions of small, long-lived objects (synsets, cached sets
and strings, items). Python's cyclic garbage collector runs after every few hundred net
allocations and, now and then, traverses every object alive: on the default WordNet build that
was about a quarter of the generation's CPU time, spent finding almost nothing (the loops make
few reference cycles; reference counting frees the rest as it goes). :func:`cyclic_gc_paused`
turns the cyclic collector off for such a loop and back on (as it was) after; memory that only a
cyclic collection frees waits until then. Nothing a build writes depends on it.

Turned back on, the collector would find every object the loop made in its youngest generation
and traverse them all at the next allocation (seconds after a WordNet build). They are moved to
the oldest generation instead, untraversed (``gc.freeze()`` then ``gc.unfreeze()``: two list
splices), where the next full collection, which Python runs rarely, still frees any cycle among them.
"""

from __future__ import annotations

import gc
from array import array
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import pyarrow as pa

_WORKERS: int | None = None
_LIBC: list = []  # glibc, loaded on first use (empty: not tried yet; [None]: not available)


def return_freed_memory() -> bool:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``); False where unavailable.

    Python asks the C allocator for every object over 512 bytes (most cached sets) and for its own
    small-object arenas; memory freed there stays in the process (RSS) until it is trimmed, so a phase
    that frees caches of hundreds of MB and a next phase that allocates elsewhere (Arrow, polars) would
    add up. Nothing a build writes depends on it.
    """
    if not _LIBC:
        try:
            import ctypes  # deferred: most builds never call this

            _LIBC.append(ctypes.CDLL("libc.so.6"))
            _LIBC[0].malloc_trim  # noqa: B018 - glibc's, absent from other C libraries
        except (OSError, AttributeError):
            _LIBC[:] = [None]
    if _LIBC[0] is None:
        return False
    _LIBC[0].malloc_trim(0)
    return True


def set_build_workers(workers: int | None) -> None:
    """How many processes a build may use (None: the default, 1); 0 is refused.

    One process-wide setting, like the progress bars' (``probesmith build --workers``); 1 keeps
    every loop in the build's own process. Nothing a build writes depends on it. The default is
    1: on the shared 2-core box two workers bought no wall time and cost ~2 GB more memory
    (BENCHMARKS.md, issue 26 part 5); ``--workers N`` opts in where cores are free.
    """
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be 1 or more, not {workers}")
    global _WORKERS
    _WORKERS = workers


def build_workers() -> int:
    """The processes a build may use: what :func:`set_build_workers` set, else 1."""
    return _WORKERS or 1


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Run the body with Python's cyclic garbage collector off; restore its state after.

    Nested uses are fine: only the outermost one that turned it off turns it back on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()  # every tracked object to the permanent generation ...
            gc.unfreeze()  # ... and from there to the oldest: collectable, not traversed now
            gc.enable()


@contextmanager
def arrow_on_the_c_heap() -> Iterator[None]:
    """Run the body with pyarrow's default memory pool the C heap (``malloc``); restore the pool after.

    Arrow's own pool (mimalloc in the wheels) maps memory of its own, while the C heap holds what a
    build's generation freed (cached sets, drafts): the tables, checks and Parquet writing that pyarrow
    calls make without a ``memory_pool`` argument reuse it instead of adding to the build's peak
    (~120 MB less on the default WordNet build). Buffers remember the pool that made them, so those
    that outlive the body are freed right. The default pool is process-wide: two builds in threads of
    one process that overlap may leave the C heap as the default (memory only; no row changes).
    """
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


class NodePairs:
    """A read-only sequence of ``(node, small int)`` pairs, held as two flat arrays.

    A cache of such pairs as tuples costs 56 bytes a pair (the default WordNet build's sister
    families held ~3M of them); here 5 bytes. Iterating yields the same pairs, as new tuples.
    Nodes are non-negative ints below 2**31, the second values ints in 0..255.
    """

    __slots__ = ("_nodes", "_values")

    def __init__(self, pairs: Iterable[tuple[int, int]]):
        pairs = list(pairs)
        self._nodes = array("i", [node for node, _ in pairs])
        self._values = bytes(value for _, value in pairs)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return zip(self._nodes, self._values, strict=True)

    def __len__(self) -> int:
        return len(self._nodes)

    def __getitem__(self, index: int) -> tuple[int, int]:
        return self._nodes[index], self._values[index]

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (NodePairs, tuple, list)) else NotImplemented

    __hash__ = None  # type: ignore[assignment]
