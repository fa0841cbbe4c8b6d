"""``random.Random.shuffle``'s permutation and generator state, drawn faster.

:func:`shuffle` gives the permutation ``rng.shuffle(items)`` gives and leaves ``rng`` in the state
it leaves, so a build keyed by its seeds (``probesmith.builders.sampling``) writes the same rows
either way. ``Random.shuffle`` calls a Python method per element (``_randbelow``, which calls
``getrandbits``); this draws the Mersenne Twister's 32-bit outputs in batches
(``getrandbits(32 * m)`` consumes exactly ``m`` outputs, the first in the lowest 32 bits) and
applies the same rejection sampling to them: ``j`` = the top ``(i + 1).bit_length()`` bits of an
output, redrawn while ``j > i``. A batch is never larger than the positions left, each of which
takes at least one output, so no output is drawn that ``Random.shuffle`` would not draw.
``tests/builders/test_random_draws.py`` compares the two over many seeds and lengths.
"""

from __future__ import annotations

import random
import sys
from array import array

_WORD = "I" if array("I").itemsize == 4 else "L"
_SHORT = 40  # from this length on, batched draws beat Random.shuffle (2.2x at 800 items)


def _outputs(rng: random.Random, count: int) -> array:
    """The generator's next ``count`` 32-bit outputs, in the order it makes them."""
    if count == 1:
        return array(_WORD, [rng.getrandbits(32)])
    words = array(_WORD, rng.getrandbits(32 * count).to_bytes(4 * count, "little"))
    if sys.byteorder != "little":
        words.byteswap()
    return words


def shuffle(rng: random.Random, items: list) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` does, generator state included.

    Short lists go to ``rng.shuffle`` itself, which is faster below a few dozen items.
    """
    if len(items) < _SHORT:
        rng.shuffle(items)
        return
    _fisher_yates(rng, len(items), items)


def advance_as_shuffle(rng: random.Random, length: int) -> None:
    """Leave ``rng`` in the state shuffling a list of ``length`` items would, without shuffling one.

    For a shuffle whose result is never read: only how many outputs the rejection sampling takes
    matters, so no list is copied or swapped.
    """
    _fisher_yates(rng, length, None)


def _fisher_yates(rng: random.Random, length: int, items: list | None) -> None:
    """``Random.shuffle``'s draws over ``length`` positions, swapping ``items`` when given."""
    i = length - 1
    if i < 1:
        return
    shift = 32 - (i + 1).bit_length()  # j = an output's top (i + 1).bit_length() bits
    least = (1 << (31 - shift)) - 1  # the least i whose i + 1 has that bit length
    while True:
        for output in _outputs(rng, i):  # i positions left, each takes one output or more
            j = output >> shift
            if j <= i:
                if items is not None:
                    items[i], items[j] = items[j], items[i]
                i -= 1
                if i < 1:
                    return
                if i < least:  # i + 1 is one bit shorter now
                    shift += 1
                    least >>= 1
