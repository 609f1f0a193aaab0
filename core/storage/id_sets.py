"""A set of ids bound as one SQL parameter: ``WHERE id IN_IDS`` with ``ids_param(ids)``.

One bound JSON array instead of one ``?`` per id, so a query over thousands of ids needs no
chunking and compiles to the same statement whatever their number. :func:`chunks` cuts ids into
slices for the statements that still bind one ``?`` per id, and :func:`marks` writes those ``?``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sized

IN_IDS = "IN (SELECT value FROM json_each(?))"


def ids_param(values: Iterable[str]) -> str:
    """The bound value for :data:`IN_IDS`: the distinct ids as a sorted JSON array."""
    return json.dumps(sorted(set(values)))


def chunks(items: list[str], size: int) -> list[list[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def marks(values: Sized) -> str:
    """One ``?`` per value, comma-separated: the list inside ``IN (…)`` for values bound one by one."""
    return ",".join("?" * len(values))
