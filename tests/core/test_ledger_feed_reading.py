"""The feed that sync exports from (core/storage/ledger_feed.entries_after) reads each ledger entry as
ledger.row_to_entry does, though it decodes details with orjson: integers past 64 bits (which orjson
would turn into floats), details json reads but orjson refuses, and details that are no JSON at all
come out the same, in a real store."""

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


def _as_read(store: Store) -> list[str]:
    return [repr(e) for e in ledger.entries(store)]


def _as_fed(store: Store) -> list[str]:
    with store.read() as conn:
        return [repr(e) for e in ledger_feed.entries_after(conn, 0, 10_000)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=5), details_values, max_size=4), min_size=1, max_size=4))
def test_the_feed_reads_every_entry_as_the_ledger_does(
    tmp_path_factory: Any, details: list[dict[str, Any]]
) -> None:
    store = Store.open(tmp_path_factory.mktemp("feed") / "s.db", os.urandom(32), create=True)
    try:
        for d in details:
            _append(store, d)
        assert _as_fed(store) == _as_read(store)
    finally:
        store.close()


def test_big_integers_and_details_orjson_refuses_are_read_as_the_ledger_reads_them(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "s.db", os.urandom(32), create=True)
    try:
        _append(
            store, {"big": 2**70, "negative": -(2**64), "nineteen": 1234567890123456789, "text": "caf\u00e9"}
        )
        _append(store, {"plain": [1, 0.5, None, True]})
        with store.atomic() as conn:  # rows no append writes: the feed still reads them as row_to_entry does
            for seq, text in ((3, '{"x": NaN, "y": Infinity}'), (4, "not json"), (5, '{"s": "\\ud800"}')):
                conn.execute(
                    "INSERT INTO ledger(seq, ts, device, op, target_kind, target_id, commitment, details, "
                    "prev_hash, hash) VALUES (?, 't', 'd', 'memory.add', 'memory', 'm1', '', ?, '', '')",
                    (seq, text),
                )
        fed = _as_fed(store)
        assert fed == _as_read(store)
        assert "1180591620717411303424" in fed[0] and "__unparseable__" in fed[3]
    finally:
        store.close()
