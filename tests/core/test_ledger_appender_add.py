"""Appender.add (what sync apply calls for each entry it writes) keeps the same row and chain as
Appender.append, without building the entry append returns; entries made either way verify."""

from __future__ import annotations

import os
from pathlib import Path

from veramem_desktop.core.storage import ledger, ledger_verify
from veramem_desktop.core.storage.actor import Actor
from veramem_desktop.core.storage.store import Store

TS = "2026-12-01T10:00:00.000000Z"


def _entries(tmp_path: Path, name: str, use_add: bool) -> list[ledger.LedgerEntry]:
    store = Store.open(tmp_path / name, os.urandom(32), create=True)
    with store.acting.scope(Actor.system("sync", "sync"), system=True), store.atomic() as conn:
        appender = ledger.Appender(conn)
        for i, details in enumerate([{"origin": "peer", "origin_seq": 1}, {"actor": {"kind": "user"}}, None]):
            call = appender.add if use_add else appender.append
            call(
                op="memory.add",
                target_kind="memory",
                target_id=f"m{i}",
                commitment_hex="ab" * 32,
                device="d",
                details=details,
                ts=TS,
            )
        appender.flush()
    entries = ledger.entries(store)
    assert ledger_verify.verify_chain(store).ok
    store.close()
    return entries


def test_add_keeps_the_rows_and_chain_append_keeps(tmp_path: Path) -> None:
    added, appended = _entries(tmp_path, "a.db", True), _entries(tmp_path, "b.db", False)
    assert added == appended and len(added) == 3
    assert added[0].details["actor"] == {"kind": "system", "id": "sync", "channel": "sync"}
    assert added[1].details == {"actor": {"kind": "user"}}  # an actor already there is kept


def test_append_returns_the_entry_it_keeps(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "c.db", os.urandom(32), create=True)
    with store.atomic() as conn:
        appender = ledger.Appender(conn)
        returned = appender.append(
            op="episode.add",
            target_kind="episode",
            target_id="e1",
            commitment_hex="cd" * 32,
            device="d",
            ts=TS,
        )
        appender.flush()
    assert ledger.entries(store) == [returned]
    store.close()
