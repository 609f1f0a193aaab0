"""Store files opened on their own: the SQL of backups, restores and rekeys (veramem_desktop/backup.py).

A backup, a staged restore or a store being rekeyed is opened here with a plain keyed
connection, not through :class:`Store` (which would run migrations and take the write
lock). These functions run every statement the backup module needs: opening and
probing the file under a key, holding it exclusively, the online copy, the page and
integrity checks, the ledger head and the meta values a restore compares, and the
rekey. Database errors become typed errors here, so the shell never sees the driver.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import sqlcipher3
from veramem_desktop.core.errors import NotAStoreError, StoreBusyError
from veramem_desktop.core.storage.store import BUSY_TIMEOUT_MS, Connection, connect_keyed

#: how long a rekey or restore waits for other programs' transactions before refusing
EXCLUSIVE_WAIT_MS = 2_000
#: meta key of the last ledger entry sent to other devices (sync/registry.py META_EXPORTED; the engine does not
#: import sync)
EXPORTED_SEQ_KEY = "sync_exported_seq"


def connect(path: Path, key: bytes) -> Connection:
    """A connection to ``path`` keyed with ``key`` and probed (typed errors, nothing printed): the store's
    keyed connect, where a file that does not decrypt may be a copy made under another key, and any
    other failure says the file could not be opened."""
    conn = connect_keyed(
        path,
        key,
        wrong_key=(
            f"{path} does not open with this store's key: it is damaged, not a VeraMem "
            "store, or was made under another key (before a `veramem rekey`: restore it with --recovery-code and that key's code)."
        ),
        report_damage=False,
    )
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def hold_exclusive(path: Path, key: bytes) -> Connection:
    """A connection that holds the store for itself, or StoreBusyError while another one has it open.

    In WAL mode every open connection keeps a shared lock, idle or not, so taking the
    exclusive one fails while the terminal app, an MCP server or the sync daemon has the
    store open. A rekey or a restore under them would leave them writing pages under the
    old key, or into a file that is no longer the store.
    """
    conn = connect(path, key)
    conn.execute(f"PRAGMA busy_timeout = {EXCLUSIVE_WAIT_MS}")
    try:
        conn.execute("PRAGMA locking_mode = EXCLUSIVE").fetchall()
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("COMMIT")
    except sqlcipher3.OperationalError as exc:
        conn.close()
        if "locked" in str(exc).lower() or "busy" in str(exc).lower():
            raise StoreBusyError(
                "Another VeraMem program has the store open (the terminal app, an MCP or REST "
                "server, the sync daemon): close it and run this again. Nothing was changed."
            ) from None
        raise NotAStoreError(f"{path} could not be locked: {exc}") from None
    return conn


@contextmanager
def reading_copy(path: Path) -> Iterator[None]:
    """Report a database error while the block reads the copy at ``path`` as that copy's damage."""
    try:
        yield
    except sqlcipher3.DatabaseError as exc:
        raise NotAStoreError(f"{path} is damaged: {exc}.", title="Backup damaged") from None


def meta_value(conn: Connection, key: str) -> str | None:
    """A value of the ``meta`` table, or None (also when the file has no such table)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlcipher3.DatabaseError:
        return None
    return None if row is None else str(row[0])


def ledger_hash_at(conn: Connection, seq: int) -> str | None:
    """The hash of ledger entry ``seq``, or None when the ledger has no such entry."""
    row = conn.execute("SELECT hash FROM ledger WHERE seq = ?", (seq,)).fetchone()
    return None if row is None else str(row[0])


@dataclass(frozen=True)
class LedgerHead:
    """How far a store file's ledger goes, and which store and device it says it is."""

    entries: int
    head_seq: int
    head_hash: str
    store_id: str | None
    device_id: str | None
    exported_seq: int  # the last ledger entry already sent to other devices (0 when not synced)


def ledger_head(conn: Connection) -> LedgerHead:
    """The ledger's length and last entry, with the store's and device's ids and the sync cursor."""
    head = conn.execute("SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
    count = int(conn.execute("SELECT count(*) FROM ledger").fetchone()[0])
    return LedgerHead(
        entries=count,
        head_seq=int(head[0]) if head else 0,
        head_hash=str(head[1]) if head else "",
        store_id=meta_value(conn, "store_id"),
        device_id=meta_value(conn, "device_id"),
        exported_seq=int(meta_value(conn, EXPORTED_SEQ_KEY) or 0),
    )


def page_problems(conn: Connection) -> list[str]:
    """What ``cipher_integrity_check`` finds (every page's HMAC), then what ``integrity_check`` finds; empty when whole."""
    problems = [r[0] for r in conn.execute("PRAGMA cipher_integrity_check").fetchall()]
    if problems:
        return problems
    integrity = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
    return [] if integrity == ["ok"] else integrity


def write_copy(source_path: Path, dest: Path, key: bytes) -> None:
    """An online copy of the store at ``source_path`` into a new file ``dest``, encrypted under the same key.

    One step, inside one read transaction of the source: a consistent snapshot, and in WAL mode the other
    processes' writers are not blocked meanwhile. The copy is one self-contained file (no WAL)."""
    source = connect(source_path, key)
    try:
        target = connect(dest, key)
        try:
            source.backup(target, pages=-1)
            target.execute("PRAGMA journal_mode = DELETE").fetchall()
        finally:
            target.close()
    except sqlcipher3.Error as exc:
        raise NotAStoreError(f"The backup could not be written: {exc}.") from None
    finally:
        source.close()


def rekey_file(path: Path, key: bytes, new_key: bytes) -> None:
    """Re-encrypt the (staged, unshared) store file at ``path`` from ``key`` to ``new_key``."""
    conn = connect(path, key)
    try:
        conn.execute(f"PRAGMA rekey = \"x'{new_key.hex()}'\"")
    finally:
        conn.close()


def fold_wal_quietly(conn: Connection) -> None:
    """Fold the WAL into the file and truncate it, as far as it can be (a store being set aside)."""
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlcipher3.Error:
        pass


@dataclass(frozen=True)
class Rekeyed:
    synced: bool  # the store has a sync identity (its devices must learn nothing: the key never leaves)
    wal_busy: bool  # another process kept the WAL from being folded after the rekey


def rekey_held(conn: Connection, new_key: bytes) -> Rekeyed:
    """Re-encrypt the store held by ``conn`` (see :func:`hold_exclusive`) with ``new_key``.

    The WAL is folded in first, and again after (frames written during the rekey), and truncated to nothing,
    so no frame under the old key remains. NotAStoreError when the rekey fails (the store is then unchanged)."""
    try:
        synced = (
            conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sync_identity'").fetchone() is not None
            and conn.execute("SELECT 1 FROM sync_identity").fetchone() is not None
        )
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        conn.execute(f"PRAGMA rekey = \"x'{new_key.hex()}'\"")
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except sqlcipher3.Error as exc:
        raise NotAStoreError(
            f"The store could not be re-encrypted ({exc}); it is unchanged, under its old key."
        ) from None
    return Rekeyed(synced, bool(busy and int(busy[0])))
