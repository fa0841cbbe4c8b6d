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
from collections.abc import Iterator
from contextlib import contextmanager


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
