"""Progress bars for long steps: on stderr, on a terminal only, off with ``--quiet``, never in data.

``progress(...)`` is a ``tqdm`` bar (rate and ETA) whose visibility is one process-wide setting:
``None`` (the default) shows it when stderr is a terminal, ``False`` (``probesmith --quiet``)
never, ``True`` always (tests that prove a bar changes nothing a build writes).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from typing import Any

from tqdm.auto import tqdm
from tqdm.std import tqdm as std_tqdm

_SHOWN: bool | None = None
_ROW = 0  # the terminal row of this process's bars below the cursor (a second build beside the first: 1)


def show_progress(shown: bool | None) -> None:
    """Show bars always (True), never (False), or when stderr is a terminal (None)."""
    global _SHOWN
    _SHOWN = shown


def set_bar_row(row: int) -> None:
    """Draw this process's bars ``row`` rows below the cursor (0: on it), beside another process's."""
    global _ROW
    _ROW = row


def bars_lock_in_this_process_only() -> None:
    """Give this process's bars a thread lock in place of tqdm's default, which holds a semaphore too.

    For a process that multiprocessing spawned and that ends by ``os._exit`` (``build all``'s side
    builds): tqdm's default lock makes a named semaphore at the first bar, multiprocessing's resource
    tracker records it, and with no exit handlers run to remove it the tracker warned of "1 leaked
    semaphore" as the command ended. A spawned process shares no lock with its parent, so a thread
    lock guards what the default did there: its own threads' writes.
    """
    std_tqdm.set_lock(threading.RLock())  # the base class: every tqdm class (tqdm.auto's too) reads it


def progress_shown() -> bool | None:
    """The current setting of :func:`show_progress`."""
    return _SHOWN


def progress(
    iterable: Iterable[Any] | None = None, *, desc: str, unit: str = "it", total: int | None = None
) -> tqdm:
    """A bar over ``iterable`` (or updated by hand with ``total``) on stderr, per the setting."""
    return tqdm(
        iterable,
        desc=desc,
        unit=f" {unit}",  # '58 query [00:01, 57.9 query/s]'
        total=total,
        file=sys.stderr,
        mininterval=1.0,
        leave=False,
        dynamic_ncols=True,
        disable=None if _SHOWN is None else not _SHOWN,
        position=_ROW,
    )
