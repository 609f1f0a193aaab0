"""A set of ids bound as one SQL parameter: ``WHERE id IN_IDS`` with ``ids_param(ids)``.

One bound JSON array instead of one ``?`` per id, so a query over thousands of ids needs no
chunking and compiles to the same statement whatever their number.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

IN_IDS = "IN (SELECT value FROM json_each(?))"


def ids_param(values: Iterable[str]) -> str:
    """The bound value for :data:`IN_IDS`: the distinct ids as a sorted JSON array."""
    return json.dumps(sorted(set(values)))
