"""The bulk ledger appender (sync apply) writes the same hash chain as one ``append`` per entry."""

from __future__ import annotations

import os
from pathlib import Path

from veramem_desktop.core.storage import ledger, ledger_verify
from veramem_desktop.core.storage.canonical import chain_hash, commitment
from veramem_desktop.core.storage.store import Store


def _store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "s.db", os.urandom(32), create=True)


def test_entries_appended_in_bulk_continue_the_chain_and_verify(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with store.atomic() as conn:
        ledger.append(
            conn,
            op="memory.add",
            target_kind="memory",
            target_id="m1",
            commitment_hex=ledger.commit_to(conn, "m1", {"text": "one"}),
            device="d",
        )
    with store.atomic() as conn:
        appender = ledger.Appender(conn)
        appender.prefetch_secrets(["m1", "m2"])
        written = [
            appender.append(
                op="memory.update",
                target_kind="memory",
                target_id=target,
                commitment_hex=appender.commit_to(target, {"text": target}),
                device="d",
                details={"origin": "peer"},
            )
            for target in ("m1", "m2", "m2")
        ]
        appender.flush()
        ledger.append(
            conn,
            op="memory.retract",
            target_kind="memory",
            target_id="m2",
            commitment_hex=ledger.commit_to(conn, "m2", {"text": "gone"}),
            device="d",
        )
    entries = ledger.entries(store)
    assert [e.seq for e in entries] == [1, 2, 3, 4, 5]
    assert [e.hash for e in entries[1:4]] == [w.hash for w in written]
    for before, entry in zip(entries, entries[1:], strict=False):
        assert entry.prev_hash == before.hash and chain_hash(entry.prev_hash, entry.body()) == entry.hash
    assert store.get_meta("ledger_head") == f"5:{entries[-1].hash}"
    report = ledger_verify.verify_chain(store)
    assert report.ok and report.checked == 5
    # The secret of an item that had one is reused; a new item gets one, kept after the flush.
    secrets = dict(store.query("SELECT item_id, secret FROM item_secrets"))
    assert entries[1].commitment == commitment(bytes(secrets["m1"]), {"text": "m1"})
    assert entries[2].commitment == entries[3].commitment == commitment(bytes(secrets["m2"]), {"text": "m2"})
    store.close()


def test_entries_not_flushed_are_not_written(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with store.atomic() as conn:
        appender = ledger.Appender(conn)
        appender.append(
            op="memory.add",
            target_kind="memory",
            target_id="m1",
            commitment_hex=appender.commit_to("m1", {"text": "one"}),
            device="d",
        )
    assert ledger.entries(store) == []
    assert store.query("SELECT count(*) FROM item_secrets") == [(0,)]
    assert store.get_meta("ledger_head") is None
    store.close()
