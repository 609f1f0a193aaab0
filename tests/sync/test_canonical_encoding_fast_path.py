"""canonical_json calls json's C encoder directly (issue 17): the bytes, and the errors, are those of
the JSONEncoder it was built from, so hashes, commitments and signatures do not change."""

from __future__ import annotations

import json
from typing import Any

import pytest
from veramem_desktop.core.storage.canonical import canonical_json

REFERENCE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

VALUES: list[Any] = [
    {"seq": 7, "ts": "2026-12-01T11:50:00.123456Z", "details": {"origin": "ab12", "actor": {"id": "sync"}}},
    {"b": 1, "a": [1.5, -0.0, 1e300, 1e-7, 123456789.123456789, 2**70, True, False, None]},
    {"\u00fc": '\u00e9\u2028\x00"\\/\ud7ff\U0001f600', "z": {}, "y": [], "x": [[[{}]]]},
    {"1": "one", "10": "ten", "9": "nine", "": "empty"},
    [],
    {},
    "a plain string \u2019",
    3,
    2.5,
    None,
]


@pytest.mark.parametrize("value", VALUES)
def test_canonical_json_writes_the_reference_encoders_bytes(value: Any) -> None:
    assert canonical_json(value) == REFERENCE.encode(value).encode("utf-8")


@pytest.mark.parametrize(
    "value",
    [float("nan"), {"a": float("inf")}, {"a": object()}, {"a": b"bytes"}, {(1,): 2}, {1: 2, "1": 3}],
)
def test_canonical_json_refuses_what_the_reference_encoder_refuses(value: Any) -> None:
    with pytest.raises((TypeError, ValueError)) as reference:
        REFERENCE.encode(value)
    with pytest.raises(type(reference.value), match=str(reference.value)[:20].replace("(", r"\(")):
        canonical_json(value)


def test_a_circular_value_is_refused_every_time_and_later_values_still_encode() -> None:
    loop: list[Any] = []
    loop.append(loop)
    for _ in range(2):
        with pytest.raises(ValueError, match="Circular reference"):
            canonical_json(loop)
    shared = {"k": 1}
    assert canonical_json([shared, shared]) == b'[{"k":1},{"k":1}]'
