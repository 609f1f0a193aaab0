"""Batch bodies are written and checked as canonical JSON through orjson where orjson gives the same
answer (sync/canonical_fast.py), and through json's decoder and core's canonical encoder otherwise.

Opening: whatever the fast check accepts, the plain check accepts, with the same value, and orjson's own
spellings of small floats (which are not Python's) are refused as before. Sealing: the bytes, and the
errors, are those of canonical_json for every value, including those orjson writes otherwise."""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from datetime import UTC, datetime
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from veramem_desktop.core.storage.canonical import canonical_json
from veramem_desktop.sync.canonical_fast import canonical_bytes, canonical_plain, value_if_canonical
from veramem_desktop.sync.errors import RejectReason, SyncRejected
from veramem_desktop.sync.keys import AccountKey, DeviceIdentity

from tests.sync.test_envelope import events_for, forge, open_as

LAPTOP = DeviceIdentity.generate("laptop")
KEY1 = AccountKey.generate(1)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.floats(min_value=1e-10, max_value=1e-3)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


def _plain(body: bytes) -> Any | None:
    """The plain check: the decoded value when the body is canonical JSON, else None."""
    try:
        value = json.loads(body.decode("utf-8"))
        return value if canonical_json(value) == body else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same types in the same order (1 and 1.0 differ, as do key orders)."""
    return repr(a) == repr(b)


def _open(events: list[dict[str, Any]], body: bytes) -> list[dict[str, Any]]:
    forged = forge(LAPTOP, KEY1, claimed_device=LAPTOP.device_id, body=body, count=len(events))
    return list(open_as(forged, [LAPTOP], [KEY1]).events)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_a_canonical_body_is_read_as_the_plain_decoder_reads_it(value: Any) -> None:
    body = canonical_json([value])
    fast = value_if_canonical(body)
    assert fast is None or _same(fast, json.loads(body))


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_what_the_fast_path_accepts_in_orjsons_spelling_the_plain_check_accepts_too(value: Any) -> None:
    try:
        body = orjson.dumps([value], option=orjson.OPT_SORT_KEYS)
    except TypeError:  # an integer beyond 64 bits: orjson does not write it
        return
    fast = value_if_canonical(body)
    if fast is not None:
        plain = _plain(body)
        assert plain is not None and _same(fast, plain)


@settings(max_examples=300, deadline=None)
@given(
    json_values, st.integers(min_value=0), st.sampled_from([b" ", b"\\u0041", b"0", b"e1", b"-", b".", b","])
)
def test_a_respelled_body_is_vouched_for_only_when_the_plain_check_accepts_it(
    value: Any, at: int, inserted: bytes
) -> None:
    body = canonical_json([value])
    cut = at % (len(body) + 1)
    variant = body[:cut] + inserted + body[cut:]
    fast = value_if_canonical(variant)
    if fast is not None:
        plain = _plain(variant)
        assert plain is not None and _same(fast, plain)


@pytest.mark.parametrize("small", [1e-5, 4.9e-5, 1e-6, 2.5e-7, -3.5e-8, 1.7e-9])
def test_a_small_float_in_orjsons_spelling_is_refused_as_not_canonical(small: float) -> None:
    events = events_for(LAPTOP, 1)
    events[0]["payload"] = {"n": small}
    orjson_body = orjson.dumps(events, option=orjson.OPT_SORT_KEYS)
    assert orjson_body != canonical_json(
        events
    )  # orjson writes 0.00001 / 2.5e-7 where Python writes 1e-05 / 2.5e-07
    assert value_if_canonical(orjson_body) is None
    with pytest.raises(SyncRejected) as caught:
        _open(events, orjson_body)
    assert caught.value.reason is RejectReason.MALFORMED
    assert "not canonical JSON" in caught.value.message
    # the same float in the canonical spelling opens, with the same value
    assert _open(events, canonical_json(events))[0]["payload"]["n"] == small


def test_an_ordinary_batch_is_vouched_for_by_the_fast_path() -> None:
    events = events_for(LAPTOP, 3)
    events[1]["payload"] = {"n": 0.7, "k": 10, "t": 'caf\u00e9 / "quoted"\n\u2028', "z": None, "b": True}
    body = canonical_json(events)
    fast = value_if_canonical(body)
    assert fast is not None and _same(fast, json.loads(body))
    assert _same(_open(events, body), json.loads(body))


class _Colour(enum.Enum):
    RED = "red"


class _Level(enum.IntEnum):
    HIGH = 3


@dataclasses.dataclass
class _Point:
    x: int


def _outcome(encode: Any, value: Any) -> tuple[str, Any]:
    try:
        return "bytes", encode(value)
    except Exception as exc:  # the kind of error is part of what must agree
        return "error", type(exc)


python_values = st.recursive(
    json_values
    | st.sampled_from(
        [math.nan, math.inf, -math.inf, _Colour.RED, _Level.HIGH, _Point(1), datetime(2026, 1, 1, tzinfo=UTC)]
    )
    | st.integers(min_value=2**63 - 2, max_value=2**64 + 2)
    | st.binary(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3).map(tuple)
        | st.lists(inner, max_size=3)
        | st.dictionaries(
            st.text(max_size=3) | st.integers(0, 3) | st.none() | st.booleans(), inner, max_size=3
        )
    ),
    max_leaves=10,
)


@settings(max_examples=500, deadline=None)
@given(python_values)
def test_sealing_writes_the_bytes_and_raises_the_errors_of_canonical_json(value: Any) -> None:
    assert _outcome(canonical_bytes, value) == _outcome(canonical_json, value)


@pytest.mark.parametrize("small", [1e-5, 2.5e-7, -1.7e-9, 1e-300, 1e16, 1.5e300])
def test_sealing_a_float_that_orjson_may_spell_otherwise_gives_pythons_spelling(small: float) -> None:
    assert canonical_bytes([{"n": small}]) == canonical_json([{"n": small}])


@pytest.mark.parametrize(
    "value",
    [[math.nan], [(1, 2)], [_Colour.RED], [_Point(1)], [datetime(2026, 1, 1, tzinfo=UTC)], [{1: "a"}]],
    ids=["nan", "tuple", "enum", "dataclass", "datetime", "int key"],
)
def test_sealing_what_orjson_writes_but_canonical_json_does_not_takes_the_plain_way(value: Any) -> None:
    assert _outcome(canonical_bytes, value) == _outcome(canonical_json, value)


@pytest.mark.parametrize("small", [6.103515625e-05, 1e-7])
def test_a_lone_small_float_is_written_and_read_as_python_spells_it(small: float) -> None:
    assert canonical_bytes(small) == canonical_json(small)
    assert value_if_canonical(orjson.dumps(small)) is None
    assert value_if_canonical(canonical_json(small)) in (None, small)


class _Text(str):
    pass


# What landing hashes: JSON's own types, and what canonical_plain must turn away to canonical_json (NaN
# and the infinities, tuples, int and str enums, dataclasses, dates, subclasses, big integers, bytes,
# keys that are not text). Plain enums and UUIDs are outside its contract (canonical_bytes takes those).
plain_values = st.recursive(
    json_values
    | st.sampled_from(
        [math.nan, math.inf, -math.inf, _Level.HIGH, _Point(1), datetime(2026, 1, 1, tzinfo=UTC), _Text("t")]
    )
    | st.floats()
    | st.integers(min_value=2**63 - 2, max_value=2**64 + 2)
    | st.binary(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3).map(tuple)
        | st.lists(inner, max_size=3)
        | st.dictionaries(
            st.text(max_size=3) | st.integers(0, 3) | st.none() | st.booleans(), inner, max_size=3
        )
    ),
    max_leaves=10,
)


@settings(max_examples=600, deadline=None)
@given(plain_values)
def test_landing_hashes_the_bytes_and_raises_the_errors_of_canonical_json(value: Any) -> None:
    assert _outcome(canonical_plain, value) == _outcome(canonical_json, value)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_landing_refuses_a_nan_or_infinity_that_orjson_would_write_as_null(bad: float) -> None:
    value = {"details": {"n": bad}, "seq": 1}
    assert orjson.dumps(value, option=orjson.OPT_SORT_KEYS) == b'{"details":{"n":null},"seq":1}'
    with pytest.raises(ValueError):
        canonical_plain(value)


@pytest.mark.parametrize("small", [1e-5, 2.5e-7, -1.7e-9, 6.103515625e-05])
def test_landing_hashes_a_small_float_in_pythons_spelling(small: float) -> None:
    assert canonical_plain({"commit": "ab", "n": small}) == canonical_json({"commit": "ab", "n": small})


def test_a_ledger_entry_as_landing_hashes_it_is_canonical_json() -> None:
    entry = {
        "seq": 4,
        "ts": "2026-12-01T10:51:56.475912Z",
        "device": "dev_01M8RKQ35A8C2D3JV7PKE84TQG",
        "op": "memory.add",
        "kind": "memory",
        "target": "mem_01M8RKQ3NVN91PNY9BVEY986EC",
        "commit": "ae99e96d9d9bd8fd376d207659fb0067151e57a5da65bdfed315b08d68ba2528",
        "details": {"actor": {"channel": "sync", "id": "me", "kind": "user", "origin_channel": None}},
    }
    assert canonical_plain(entry) == canonical_json(entry)
    content = {"text": 'Café \u2028 "quoted"', "kind": "fact", "status": "active", "value": None}
    assert canonical_plain(content) == canonical_json(content)
