"""Reading a batch body that must be canonical JSON, fast when it is.

A batch body is accepted only when it is exactly ``canonical_json`` of what it decodes to
(core/storage/canonical.py: sorted keys, no spaces, UTF-8, no NaN), so one batch has one
meaning. The plain check decodes with :mod:`json` and encodes back with its C encoder; for a
500-event body that encoding is the largest single cost of opening a batch.

:func:`value_if_canonical` gives the same answer much faster with orjson, where orjson can
vouch for it: it decodes the body and encodes the value again with sorted keys, and the body
is canonical when the bytes come back unchanged, because orjson and ``canonical_json`` write
the same bytes for every value decoded from JSON (strings with the same escapes, keys in the
same order, integers alike) except floats of decimal exponent -5 to -9, which orjson spells
``0.00001`` or ``1e-7`` where Python writes ``1e-05`` and ``1e-07``. A body with any number
in exponent form or starting ``0.0000`` is therefore left to the plain check, as is anything
orjson refuses, so the fast path never accepts a body the plain check would refuse, and it
returns the same value ``json.loads`` would (tests/sync/test_canonical_read.py holds both).
"""

from __future__ import annotations

import re
from typing import Any

import orjson

# Numbers whose orjson spelling may differ from Python's repr: any exponent form (a number
# ends at , ] or } in a body without spaces), or a fraction with four zeros after "0."
# (a number starts after : , or [). Strings holding the same bytes are left to the plain
# check too, which costs time only.
_EXPONENT = re.compile(rb"e[-+][0-9]+[,\]}]")
_TINY_FRACTION = re.compile(rb"[:,\[]-?0\.0000")


def value_if_canonical(body: bytes) -> Any | None:
    """The value ``body`` encodes when it is certainly ``canonical_json`` of it, else None (then
    the caller decides with the plain check; None says nothing against the body)."""
    try:
        value = orjson.loads(body)
        again = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (ValueError, TypeError):  # orjson's JSONDecodeError and JSONEncodeError among them
        return None
    if again != body or value is None:
        return None
    if _EXPONENT.search(body) or (b"0.0000" in body and _TINY_FRACTION.search(body)):
        return None
    return value
