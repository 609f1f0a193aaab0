"""Canonical JSON for batch bodies, through orjson where orjson writes the same bytes.

A batch body is ``canonical_json`` of its events (core/storage/canonical.py: sorted keys,
no spaces, UTF-8, no NaN), and opening a batch accepts only that spelling, so one batch has
one meaning. Done with :mod:`json`, writing and checking a 500-event body is the largest
single cost of exporting and of opening a batch; orjson does both many times faster.

orjson and ``canonical_json`` write the same bytes for every plain JSON value (strings with
the same escapes, keys in the same order, integers alike) except floats of decimal exponent
-5 to -9, which orjson spells ``0.00001`` or ``1e-7`` where Python writes ``1e-05`` and
``1e-07``. So bytes from orjson stand only when they hold no number in exponent form and none
starting ``0.0000``; everything else, and anything orjson refuses, goes the plain way:

- :func:`value_if_canonical` (opening): the body decoded by orjson and encoded back must be
  the same bytes; then it is canonical JSON of that value and ``json.loads`` reads the same
  value. Otherwise it answers None and the caller runs the plain check.
- :func:`canonical_bytes` (sealing): orjson's bytes when they decode back to a value equal to
  the one given (which rules out what orjson writes but ``canonical_json`` refuses or writes
  otherwise: NaN, tuples, dataclasses, enums, dates), else ``canonical_json`` itself.
- :func:`canonical_plain` (landing a batch: the chain hash of each received ledger entry, the
  commitments and chain hashes of this device's own entries): ``canonical_json`` of a value made
  of JSON's own types, as decoders and SQLite give them, without decoding the bytes back.

tests/sync/test_canonical_fast.py holds all three to the plain functions.
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from veramem_desktop.core.storage.canonical import canonical_json

# Numbers whose orjson spelling may differ from Python's repr: any exponent form (in JSON
# without spaces a number ends at , ] } or the end), or a fraction with four zeros after "0."
# (a number starts at the start or after : , or [). Strings holding the same bytes take the
# plain way too, which costs time only.
# The exponent is looked for as "e-" and "e+" apart: with a literal two-byte start the regex engine
# skips from one to the next instead of trying a match at every "e" of the text (a batch body's
# check takes about half the time); "+" is rare enough to be looked for first.
_EXPONENT_NEGATIVE = re.compile(rb"e-[0-9]+(?:[,\]}]|\Z)")
_EXPONENT_POSITIVE = re.compile(rb"e\+[0-9]+(?:[,\]}]|\Z)")
_TINY_FRACTION = re.compile(rb"(?:\A|[:,\[])-?0\.0000")


def _may_be_respelled(data: bytes) -> bool:
    return (
        bool(_EXPONENT_NEGATIVE.search(data))
        or (b"+" in data and bool(_EXPONENT_POSITIVE.search(data)))
        or (b"0.0000" in data and bool(_TINY_FRACTION.search(data)))
    )


def value_if_canonical(body: bytes) -> Any | None:
    """The value ``body`` encodes when it is certainly ``canonical_json`` of it, else None (then
    the caller decides with the plain check; None says nothing against the body)."""
    try:
        value = orjson.loads(body)
        again = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (ValueError, TypeError):  # orjson's JSONDecodeError and JSONEncodeError among them
        return None
    if again != body or value is None or _may_be_respelled(body):
        return None
    return value


def canonical_bytes(value: Any) -> bytes:
    """``canonical_json(value)``: the same bytes, and the same errors."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        same = bool(orjson.loads(data) == value)
    except (ValueError, TypeError):
        same = False
    if same and not _may_be_respelled(data):
        return data
    return canonical_json(value)


# Dataclasses, dates and subclasses of str, int, float, dict and list raise here, and so go to
# canonical_json (orjson would write them its own way). Enums are written by their value either way.
_PLAIN_ONLY = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def canonical_plain(value: Any) -> bytes:
    """``canonical_json(value)`` (the same bytes and errors) for a value made only of dicts with str
    keys, lists, tuples, str, int, float, bool and None: the values of a decoded batch, of SQLite
    rows, and dicts built of them. Cheaper than :func:`canonical_bytes` for the many small values a
    landed batch hashes: orjson's bytes are not decoded back. Only a float can make them differ (a
    NaN or an infinity, which orjson writes as null and canonical_json refuses, or a number orjson
    spells otherwise), so a value holding none is taken as it is, without looking at the bytes.
    Not for other types (orjson writes plain enums and UUIDs, which canonical_json refuses): use
    :func:`canonical_bytes`."""
    try:
        data = orjson.dumps(value, option=_PLAIN_ONLY)
    except TypeError:  # orjson's JSONEncodeError: a type above, an integer over 64 bits, a lone surrogate
        return canonical_json(value)
    if _without_floats(value) or not (
        (b"null" in data and orjson.loads(data) != value) or _may_be_respelled(data)
    ):
        return data
    return canonical_json(value)


_NOT_FLOATS = frozenset({str, int, bool, type(None)})


def _without_floats(value: Any) -> bool:
    """True when ``value`` holds only str, int, bool and None in dicts, lists and tuples (orjson has
    written it, so it is no deeper than orjson's limit of 255 levels)."""
    kind = type(value)
    if kind in _NOT_FLOATS:
        return True
    if kind is dict:
        value = value.values()
    elif kind is not list and kind is not tuple:
        return False
    for item in value:  # noqa: SIM110 (all() over a generator takes about twice as long here)
        if type(item) not in _NOT_FLOATS and not _without_floats(item):
            return False
    return True
