"""Sync merges rows through the engine's repositories: the fields it resolves by clock are the ones the
engine lets change after a row is made, and a repository refuses any other."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from veramem_desktop.core.storage import grants, item_rows
from veramem_desktop.core.storage.store import Store
from veramem_desktop.sync import rows


def test_every_memory_field_sync_merges_is_one_the_engine_lets_change() -> None:
    assert set(rows.MEMORY_LWW) | set(rows.COUNTERS) <= item_rows.MUTABLE_FIELDS


def test_every_grant_field_sync_merges_is_one_the_engine_lets_change() -> None:
    assert set(rows.GRANT_LWW) <= grants.MUTABLE_FIELDS


def test_a_remote_grant_lands_with_its_id_and_only_its_revocation_changes(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "s.db", os.urandom(32), create=True)
    try:
        row = {
            "id": "gr_remote",
            "kind": "user_agent",
            "subject": "alice",
            "object": "helper",
            "granted_at": "2026-01-01T00:00:00.000000Z",
            "revoked_at": None,
        }
        with store.atomic() as conn:
            grants.insert_row(conn, row)
            grants.set_row_fields(conn, "gr_remote", {"revoked_at": "2026-02-01T00:00:00.000000Z"})
            with pytest.raises(ValueError, match="not a mutable grant column"):
                grants.set_row_fields(conn, "gr_remote", {"subject": "mallory"})
            assert grants.row(conn, "gr_remote") == {**row, "revoked_at": "2026-02-01T00:00:00.000000Z"}
            assert grants.exists(conn, "gr_remote") and not grants.exists(conn, "gr_other")
            with pytest.raises(ValueError, match="not a mutable memory column"):
                item_rows.set_row_fields(conn, "mem_any", {"text": "rewritten"})
    finally:
        store.close()
