"""Pausing Python's cyclic garbage collector while one batch is opened and applied, or sealed.

Opening a batch builds tens of thousands of small dicts and lists (the events) that live until
the batch is applied; each allocation burst makes the collector walk them again (about a tenth
of the apply's CPU time in the sync bench, issue 17), although they hold no reference cycles and
are freed by reference counting when the batch is done. :func:`paused` switches the collector off
for one such bounded piece of work and back on after it (also when it raises), so garbage with
cycles made meanwhile is collected at the next allocation after it. Nested and concurrent pauses
(several threads, one process) are counted: the collector comes back on when the last one ends,
and only if it was on when the first began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _Pauses:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.was_enabled = False


_PAUSES = _Pauses()


@contextmanager
def paused() -> Iterator[None]:
    """The block runs with the cyclic garbage collector off (see the module docstring)."""
    with _PAUSES.lock:
        if _PAUSES.depth == 0:
            _PAUSES.was_enabled = gc.isenabled()
            gc.disable()
        _PAUSES.depth += 1
    try:
        yield
    finally:
        with _PAUSES.lock:
            _PAUSES.depth -= 1
            if _PAUSES.depth == 0 and _PAUSES.was_enabled:
                gc.enable()
