"""A NULL parameter binds through an adapter registered by core/storage/store.py: the driver then skips
its two failing attribute probes per NULL (issue 17: a twentieth of a sync apply), and NULL stays NULL."""

from __future__ import annotations

import os
from pathlib import Path

import sqlcipher3
from veramem_desktop.core.storage.store import Store


def test_opening_the_store_registers_the_adapter_that_binds_null_directly() -> None:
    adapter = sqlcipher3.adapters.get((type(None), sqlcipher3.PrepareProtocol))
    assert adapter is not None and adapter(None) is None


def test_null_parameters_are_stored_and_matched_as_null(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "s.db", os.urandom(32), create=True)
    try:
        with store.atomic() as conn:
            conn.execute("CREATE TABLE t(a, b)")
            conn.executemany("INSERT INTO t(a, b) VALUES (?, ?)", [(1, None), (2, b"\x00"), (None, "x")])
        assert store.query("SELECT a, b, typeof(b) FROM t ORDER BY rowid") == [
            (1, None, "null"),
            (2, b"\x00", "blob"),
            (None, "x", "text"),
        ]
        assert store.query("SELECT count(*) FROM t WHERE a IS ? OR b IS ?", (None, None)) == [(2,)]
    finally:
        store.close()
