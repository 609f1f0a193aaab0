"""What a device remembers about sync, kept in its encrypted store.

This device's secret keys, the account keys by epoch, the trusted and removed
devices, the last batch applied from each device, the local clock, and the files
that were refused. Secrets never leave the store except as the sealed key grants
the protocol defines.

Functions take a ``Connection`` (inside the caller's transaction) or a ``Store``.

Sync owns the ``sync_*`` tables, and its own keys of the store's shared ``meta`` table (each
named ``sync_…``; ``get_meta`` here is the only SQL on it in sync/, and ``set_meta`` and
``delete_meta`` write through core/storage/meta.py, which owns the table's writes). Every other table belongs to the engine: sync reads and writes those through core's
repositories (core/storage/).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from veramem_desktop.core.errors import NotInitialisedError
from veramem_desktop.core.storage import meta
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.sync.hlc import HLC
from veramem_desktop.sync.keys import AccountKey, DeviceIdentity, DevicePublic

META_EXPORTED = "sync_exported_seq"  # the last local ledger seq put into a batch
META_NEXT_BATCH = "sync_next_batch"
META_CLOCK = "sync_clock"
META_LAST_EXCHANGE = "sync_last_exchange"
META_OWN_REQUEST = "sync_own_join_request"


@dataclass(frozen=True)
class TrustedDevice:
    public: DevicePublic
    added_at: str
    removed: bool
    removed_upto: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.public.device_id,
            "name": self.public.name,
            "added_at": self.added_at,
            "removed": self.removed,
            "removed_upto": self.removed_upto,
        }


# --- identity ------------------------------------------------------------------------------


def save_identity(conn: Connection, identity: DeviceIdentity, folder: str) -> None:
    conn.execute(
        "INSERT INTO sync_identity(id, device_id, secret, name, folder, created_at) VALUES (1,?,?,?,?,?)",
        (identity.device_id, identity.to_secret_bytes(), identity.name, folder, now_iso()),
    )


def has_identity(store: Store) -> bool:
    return store.query_one("SELECT 1 FROM sync_identity WHERE id = 1") is not None


def load_identity(store: Store) -> tuple[DeviceIdentity, str]:
    """This device's identity and its sync folder; refuses if sync was never set up."""
    row = store.query_one("SELECT secret, name, folder FROM sync_identity WHERE id = 1")
    if row is None:
        raise NotInitialisedError(
            "Sync is not set up on this device. Run `veramem sync init FOLDER` on your first device, "
            "or `veramem sync join FOLDER` to pair this one."
        )
    secret, name, folder = row
    return DeviceIdentity.from_secret_bytes(bytes(secret), name), str(folder)


def set_folder(store: Store, folder: str) -> None:
    with store.atomic() as conn:
        conn.execute("UPDATE sync_identity SET folder = ? WHERE id = 1", (folder,))


# --- account keys --------------------------------------------------------------------------


def add_key(conn: Connection, key: AccountKey) -> bool:
    """Keep ``key``; False if it was already known."""
    cur = conn.execute(
        "INSERT OR IGNORE INTO sync_keys(epoch, key_id, key, added_at) VALUES (?,?,?,?)",
        (key.epoch, key.key_id.hex(), key.key, now_iso()),
    )
    return bool(cur.rowcount)


def keys(conn: Connection | Store) -> list[AccountKey]:
    rows = _rows(conn, "SELECT epoch, key FROM sync_keys ORDER BY epoch, key_id")
    return [AccountKey(int(epoch), bytes(key)) for epoch, key in rows]


def current_key(conn: Connection | Store) -> AccountKey:
    """The key batches are written with: the newest epoch; two keys of one epoch (two devices
    rotated at once) are decided by the smaller key id, so every device picks the same."""
    found = keys(conn)
    if not found:
        raise NotInitialisedError("This device has no sync key; pair it again.")
    top = max(k.epoch for k in found)
    return min((k for k in found if k.epoch == top), key=lambda k: k.key_id)


def key_for(conn: Connection | Store, epoch: int, key_id: bytes) -> AccountKey | None:
    rows = _rows(
        conn, "SELECT epoch, key FROM sync_keys WHERE epoch = ? AND key_id = ?", (epoch, key_id.hex())
    )
    return AccountKey(int(rows[0][0]), bytes(rows[0][1])) if rows else None


def erase_key(conn: Connection, key: AccountKey) -> None:
    conn.execute("DELETE FROM sync_keys WHERE epoch = ? AND key_id = ?", (key.epoch, key.key_id.hex()))


# --- devices -------------------------------------------------------------------------------


def add_device(conn: Connection, device: DevicePublic) -> bool:
    """Trust ``device``; False if it was known (a removed device stays removed)."""
    cur = conn.execute(
        "INSERT OR IGNORE INTO sync_devices(device_id, verify_key, box_key, name, added_at) VALUES (?,?,?,?,?)",
        (device.device_id, device.verify_key, device.box_key, device.name, now_iso()),
    )
    return bool(cur.rowcount)


def mark_removed(
    conn: Connection, device_id: str, upto: int | None, public: DevicePublic | None = None
) -> None:
    """Remove a device; batches after ``upto`` are refused (``None``: wait for the remover's event)."""
    if public is not None:
        add_device(conn, public)
    row = conn.execute("SELECT removed_upto FROM sync_devices WHERE device_id = ?", (device_id,)).fetchone()
    if row is None:
        # Known only by id (from a grant): keep a placeholder that nothing verifies against.
        conn.execute(
            "INSERT INTO sync_devices(device_id, verify_key, box_key, name, added_at, removed, removed_upto)"
            " VALUES (?, x'', x'', '', ?, 1, ?)",
            (device_id, now_iso(), upto),
        )
        return
    # Two removers may name different last batches: the smaller wins on every device.
    old = row[0]
    new = upto if old is None else (old if upto is None else min(int(old), upto))
    conn.execute(
        "UPDATE sync_devices SET removed = 1, removed_upto = ? WHERE device_id = ?", (new, device_id)
    )


def devices(conn: Connection | Store) -> list[TrustedDevice]:
    rows = _rows(
        conn,
        "SELECT device_id, verify_key, box_key, name, added_at, removed, removed_upto "
        "FROM sync_devices ORDER BY added_at, device_id",
    )
    out = []
    for device_id, verify_key, box_key, name, added_at, removed, removed_upto in rows:
        if len(bytes(verify_key)) != 32:  # a removed device known only by id
            continue
        out.append(
            TrustedDevice(
                DevicePublic(device_id, bytes(verify_key), bytes(box_key), name),
                added_at,
                bool(removed),
                None if removed_upto is None else int(removed_upto),
            )
        )
    return out


def removed_ids(conn: Connection | Store) -> dict[str, int | None]:
    return {
        device_id: (None if removed_upto is None else int(removed_upto))
        for device_id, removed_upto in _rows(
            conn, "SELECT device_id, removed_upto FROM sync_devices WHERE removed = 1"
        )
    }


def active_devices(conn: Connection | Store) -> list[DevicePublic]:
    return [d.public for d in devices(conn) if not d.removed]


# --- cursors, clock ------------------------------------------------------------------------


def seen(conn: Connection | Store) -> dict[str, int]:
    return {
        device_id: int(batch_seq)
        for device_id, batch_seq in _rows(conn, "SELECT device_id, batch_seq FROM sync_seen")
    }


def set_seen(conn: Connection, device_id: str, batch_seq: int) -> None:
    conn.execute(
        "INSERT INTO sync_seen(device_id, batch_seq, applied_at) VALUES (?,?,?) ON CONFLICT(device_id) "
        "DO UPDATE SET batch_seq = excluded.batch_seq, applied_at = excluded.applied_at",
        (device_id, batch_seq, now_iso()),
    )


def get_meta(conn: Connection | Store, key: str) -> str | None:
    rows = _rows(conn, "SELECT value FROM meta WHERE key = ?", (key,))
    return None if not rows else str(rows[0][0])


def set_meta(conn: Connection, key: str, value: str) -> None:
    meta.put(conn, key, value)


def delete_meta(conn: Connection, key: str) -> None:
    meta.delete(conn, key)


def clock(conn: Connection | Store, device_id: str) -> HLC:
    text = get_meta(conn, META_CLOCK)
    return HLC.zero(device_id) if text is None else HLC.parse(text)


def set_clock(conn: Connection, value: HLC) -> None:
    set_meta(conn, META_CLOCK, value.encode())


# --- refusals ------------------------------------------------------------------------------


def record_refusal(
    conn: Connection, path: str, device_id: str | None, reason: str, message: str, retryable: bool
) -> None:
    now = now_iso()
    conn.execute(
        "INSERT INTO sync_refusals(path, device_id, reason, message, retryable, first_seen, last_seen) "
        "VALUES (?,?,?,?,?,?,?) ON CONFLICT(path) DO UPDATE SET reason = excluded.reason, "
        "message = excluded.message, retryable = excluded.retryable, last_seen = excluded.last_seen, "
        "count = count + 1",
        (path, device_id, reason, message, int(retryable), now, now),
    )


def clear_refusals(conn: Connection, paths: Iterable[str]) -> None:
    conn.executemany("DELETE FROM sync_refusals WHERE path = ?", [(p,) for p in paths])


def refusals(store: Store) -> list[dict[str, Any]]:
    rows = store.query(
        "SELECT path, device_id, reason, message, retryable, first_seen, last_seen, count "
        "FROM sync_refusals ORDER BY last_seen DESC"
    )
    return [
        {
            "file": path,
            "device": device_id,
            "reason": reason,
            "message": message,
            "waiting": bool(retryable),
            "first_seen": first_seen,
            "last_seen": last_seen,
            "count": int(count),
        }
        for path, device_id, reason, message, retryable, first_seen, last_seen, count in rows
    ]


# --- pending approvals ---------------------------------------------------------------------


def save_pending(conn: Connection, request_id: str, state: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO sync_pending(request_id, state, created_at) VALUES (?,?,?)",
        (request_id, json.dumps(state), now_iso()),
    )


def pending(store: Store) -> dict[str, dict[str, Any]]:
    return {
        request_id: json.loads(state)
        for request_id, state in store.query("SELECT request_id, state FROM sync_pending")
    }


def drop_pending(conn: Connection, request_id: str) -> None:
    conn.execute("DELETE FROM sync_pending WHERE request_id = ?", (request_id,))


def _rows(conn: Connection | Store, sql: str, params: Any = ()) -> list[Any]:
    if isinstance(conn, Store):
        return conn.query(sql, params)
    return list(conn.execute(sql, params).fetchall())
