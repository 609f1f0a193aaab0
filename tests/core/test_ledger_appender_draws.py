"""What sync apply's ledger appender writes for the items it gives a secret and the details it stores:
secrets drawn many at a time from the OS's random source are each 32 bytes, all different, and kept as
used; details are stored as ``json.dumps(details, sort_keys=True)`` writes them (same text, same errors)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from veramem_desktop.core.storage import ledger
from veramem_desktop.core.storage.canonical import commitment, details_text
from veramem_desktop.core.storage.store import Store


def test_new_items_drawn_in_one_call_each_get_their_own_secret_as_used(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "s.db", os.urandom(32), create=True)
    items = [f"m{i}" for i in range(3 * ledger.SECRETS_PER_DRAW + 5)]  # several draws and a part of one
    with store.atomic() as conn:
        appender = ledger.Appender(conn)
        made = {item: appender.commit_to(item, {"text": item}) for item in items}
        for item in items:
            appender.add(
                op="memory.add", target_kind="memory", target_id=item, commitment_hex=made[item], device="d"
            )
        appender.flush()
    secrets = {k: bytes(v) for k, v in store.query("SELECT item_id, secret FROM item_secrets")}
    assert sorted(secrets) == sorted(items)
    assert all(len(s) == 32 for s in secrets.values())
    assert len(set(secrets.values())) == len(items)  # no slice handed out twice
    assert all(made[i] == commitment(secrets[i], {"text": i}) for i in items)  # kept as used
    store.close()


def _json_or_error(fn: Any, value: Any) -> tuple[str, str]:
    try:
        return "text", fn(value)
    except (TypeError, ValueError) as exc:
        return type(exc).__name__, str(exc)


values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats()  # NaN and the infinities included: json.dumps writes them
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=4) | st.integers(0, 9), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(st.dictionaries(st.text(max_size=5), values, max_size=4))
def test_details_are_stored_as_json_dumps_with_sorted_keys_writes_them(details: dict[str, Any]) -> None:
    assert _json_or_error(details_text, details) == _json_or_error(
        lambda v: json.dumps(v, sort_keys=True), details
    )


@pytest.mark.parametrize(
    "details",
    [{"a": object()}, {"a": {1, 2}}, {3: 1, "a": 2}, {"n": float("nan"), "é": "\u2028\ud800", "t": (1, 2)}],
)
def test_details_json_refuses_or_writes_as_json_dumps(details: dict[str, Any]) -> None:
    assert _json_or_error(details_text, details) == _json_or_error(
        lambda v: json.dumps(v, sort_keys=True), details
    )


def test_circular_details_are_refused_as_json_refuses_them() -> None:
    details: dict[str, Any] = {}
    details["self"] = details
    with pytest.raises(ValueError, match="Circular reference"):
        details_text(details)
