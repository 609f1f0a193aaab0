"""The conversations of an export's top-level list, read through a JsonGuard: an oversized one is a
listed problem and the next is read; a field of a type the reader did not expect costs only that
conversation (core/transfer/chats.py reads exports through this)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import ijson
from veramem_desktop.core.transfer.bounded import JsonGuard, Refused, guarded_items
from veramem_desktop.core.transfer.records import Item, Problem

#: what a reader may raise on a record whose fields have unexpected JSON types (a safety net: the
#: readers check types themselves, and whatever slips through costs only that record)
_SHAPE_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError, RecursionError)


def conversations(guard: JsonGuard, read: Callable[[dict[str, Any], int], Iterator[Item]]) -> Iterator[Item]:
    """The items of each conversation of an export's top-level list; an oversized conversation is a
    problem and the next one is read; invalid JSON ends the reading with a problem."""
    n = -1
    try:
        for n, conv in enumerate(guarded_items(guard)):
            if isinstance(conv, Refused):
                yield refused(conv, f"conversation {n + 1}")
            elif isinstance(conv, dict):
                yield from _contained(read, conv, n)
            else:
                yield Problem(f"conversation {n + 1}", "is not a JSON object")
    except ijson.JSONError as exc:
        yield Problem(
            f"after conversation {n + 1}",
            f"the file is not valid JSON from here ({exc}); what came before was read",
        )


def refused(refused: Refused, position: str) -> Problem:
    tail = "; the rest of the file was not read" if refused.rest_unread else ""
    return Problem(position, refused.reason + tail)


def _contained(
    read: Callable[[dict[str, Any], int], Iterator[Item]], conv: dict[str, Any], n: int
) -> Iterator[Item]:
    """One conversation's items; a field of a type the reader did not expect costs only the rest of
    that conversation, listed as a problem."""
    try:
        yield from read(conv, n)
    except _SHAPE_ERRORS as exc:
        yield Problem(f"conversation {n + 1}", f"has a field of an unexpected type ({type(exc).__name__})")
