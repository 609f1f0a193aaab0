"""Export reads the ledger as dicts (core/storage/ledger_feed.entry_dicts_after) made straight from the
rows, their details decoded by orjson: each must be what ``LedgerEntry.to_dict()`` gives for the entry
the ledger reads, key for key and in the same order (integers past 64 bits, details json reads but
orjson refuses, and details that are no JSON at all included), so the events a device seals do not
change."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from veramem_desktop.core.storage import ledger, ledger_feed
from veramem_desktop.core.storage.store import Store

details_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
actors = st.none() | st.dictionaries(
    st.sampled_from(["id", "kind", "channel", "relayed", "origin_channel"]), details_values, max_size=5
)


def _append(store: Store, details: dict[str, Any]) -> None:
    with store.atomic() as conn:
        ledger.append(
            conn,
            op="memory.add",
            target_kind="memory",
            target_id="m1",
            commitment_hex="00" * 32,
            device="d",
            details=details,
        )


def _same(store: Store, after: int = 0, limit: int = 10_000) -> None:
    with store.read() as conn:
        fed = ledger_feed.entry_dicts_after(conn, after, limit)
    read = [e.to_dict() for e in ledger.entries(store)][after : after + limit]
    assert [list(d.items()) for d in fed] == [list(d.items()) for d in read]
    assert repr(fed) == repr(read)  # the same types too (an int stays an int, a float a float)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.dictionaries(st.text(max_size=5), details_values, max_size=3), actors),
        min_size=1,
        max_size=4,
    )
)
def test_each_exported_dict_is_the_entrys_own_to_dict(tmp_path_factory: Any, made: list[Any]) -> None:
    store = Store.open(tmp_path_factory.mktemp("feed") / "s.db", os.urandom(32), create=True)
    try:
        for details, actor in made:
            _append(store, {**details, "actor": actor} if actor is not None else details)
        _same(store)
    finally:
        store.close()


def test_rows_no_append_writes_and_a_window_of_the_ledger_give_the_entrys_to_dict(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "s.db", os.urandom(32), create=True)
    try:
        _append(
            store,
            {
                "big": 2**70,
                "negative": -(2**64),
                "nineteen": 1234567890123456789,
                "text": "caf\u00e9",
                "actor": {"id": "me", "kind": "user"},
            },
        )
        _append(store, {"actor": "not a dict", "plain": [1, 0.5, None, True]})
        with store.atomic() as conn:
            for seq, text in ((3, '{"x": NaN, "y": Infinity}'), (4, "not json"), (5, '{"s": "\\ud800"}')):
                conn.execute(
                    "INSERT INTO ledger(seq, ts, device, op, target_kind, target_id, commitment, details, "
                    "prev_hash, hash) VALUES (?, 't', 'd', 'memory.add', 'memory', 'm1', '', ?, '', '')",
                    (seq, text),
                )
        _same(store)
        _same(store, after=1, limit=3)
        with store.read() as conn:
            fed = ledger_feed.entry_dicts_after(conn, 0, 10)
        assert fed[0]["actor"] == "me" and fed[1]["actor"] is None and "__unparseable__" in fed[3]["details"]
        assert fed[0]["details"]["big"] == 2**70 and "1180591620717411303424" in repr(fed[0])  # not a float
    finally:
        store.close()
