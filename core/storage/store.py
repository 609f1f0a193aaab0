"""The one place that opens the SQLCipher store.

One long-lived connection per process, shared by its threads under a lock; write
transactions are short and ``BEGIN IMMEDIATE`` so several processes (TUI, MCP
server, sync daemon, CLI) can use one file at once, waiting on each other through
the busy timeout instead of failing. :meth:`Store.atomic` nests with savepoints.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlcipher3
from veramem_desktop.core.errors import NotAStoreError, StoreBusyError, StoreDamagedError, WrongKeyError
from veramem_desktop.core.storage import meta
from veramem_desktop.core.storage.actor import Acting
from veramem_desktop.core.storage.connection import Connection as Connection
from veramem_desktop.core.storage.connection import register_adapters
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.schema import MIGRATIONS

BUSY_TIMEOUT_MS = 10_000
#: page cache per connection, in KiB (decrypted pages; memory only). 32 MiB keeps the 100k-memory
#: bench section under 400 MB (390 vs 427 MB at 64 MiB; search p50 20.5 vs 18.2 ms, query embedding
#: 5.0 vs 4.5 ms, in back-to-back runs on a shared machine).
CACHE_KIB = 32_768
#: How long a writer keeps retrying a locked store before telling the user.
LOCK_PATIENCE_S = 60.0
#: SQLCipher 4's page size: a whole store file is a multiple of it.
PAGE_SIZE = 4096
#: words in SQLite's and SQLCipher's messages that mean the file itself is damaged
_DAMAGE_WORDS = ("not a database", "malformed", "corrupt", "hmac", "invalid size", "unsupported file format")

register_adapters()  # NULL and vocabulary members bind without the driver's probes


class _ActingConnection(sqlcipher3.Connection):  # type: ignore[misc]
    """A connection that also holds who is acting on it (core/storage/actor.py), read by the ledger."""

    acting: Acting


def _is_locked(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def is_damage(exc: BaseException) -> bool:
    """True for a database error that means the store file is damaged (not a bug, not a lock)."""
    return isinstance(exc, sqlcipher3.DatabaseError) and any(w in str(exc).lower() for w in _DAMAGE_WORDS)


def damaged(path: Path, detail: str) -> StoreDamagedError:
    """The one message for a damaged store: which file, what was seen, what to do."""
    return StoreDamagedError(
        f"{path} is damaged or not a VeraMem store ({detail}). Nothing was changed. Restore it from a backup "
        "(`veramem restore PATH`) or a synced device, or run `veramem init --force` to start a new empty store "
        "(the damaged file is kept aside)."
    )


def file_problem(path: Path) -> str:
    """What is visibly wrong with an existing store file before it is opened, or "" (no key needed)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"it cannot be read: {exc.strerror}"
    if size == 0:
        return "the file is empty: it was emptied, e.g. by a failed sync or restore"
    if size % PAGE_SIZE:
        return f"the file is {size:,} bytes, not a whole number of {PAGE_SIZE}-byte pages: it was truncated"
    with open(path, "rb") as handle:
        head = handle.read(16)
    if head == b"SQLite format 3\x00":
        return "it is an unencrypted SQLite file, not a VeraMem store"
    return ""


def _check_path(path: Path, *, create: bool) -> None:
    """Refuse a missing store (unless creating), a folder, or a file that is damaged as it lies."""
    if not create and not path.exists():
        raise NotAStoreError(f"There is no store at {path}. Run `veramem init` to create one.")
    if path.exists() and path.is_dir():
        raise NotAStoreError(f"{path} is a folder, not a VeraMem store.")
    if path.exists():
        problem = file_problem(path)
        if problem:
            raise damaged(path, problem)
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)


def connect_keyed(path: Path, key: bytes, *, wrong_key: str, report_damage: bool) -> Connection:
    """A connection with the key set and proved: a wrong key or a foreign file fails here, not later.

    A key that does not decrypt the file raises :class:`WrongKeyError` with the message ``wrong_key``
    (the store and a backup or staged copy tell the user different things). With ``report_damage``, a
    file the probe finds damaged raises the one damage message (:func:`damaged`); without it, and for
    any other failure, :class:`NotAStoreError` says the file could not be opened.
    """
    old_umask = os.umask(0o077)
    try:
        conn: Connection = sqlcipher3.connect(
            str(path),
            isolation_level=None,
            check_same_thread=False,
            timeout=BUSY_TIMEOUT_MS / 1000,
            factory=_ActingConnection,
        )
    finally:
        os.umask(old_umask)
    conn.execute("PRAGMA cipher_log_level = NONE")  # failures are reported as errors, not printed
    conn.execute(f"PRAGMA key = \"x'{key.hex()}'\"")
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlcipher3.DatabaseError as exc:
        conn.close()
        if "not a database" in str(exc).lower() or "encrypted" in str(exc).lower():
            raise WrongKeyError(wrong_key) from None
        if report_damage and is_damage(exc):
            raise damaged(path, str(exc)) from None
        raise NotAStoreError(f"{path} could not be opened: {exc}") from None
    return conn


class Store:
    """An open store: a connection, its lock and the transaction helpers."""

    def __init__(self, conn: Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        #: who is acting on this store, per thread (core/storage/actor.py); the ledger records it
        self.acting = Acting()
        if isinstance(conn, _ActingConnection):
            conn.acting = self.acting
        self.lock = threading.RLock()
        self._depth = 0
        # PRAGMA data_version does not change for this connection's own commits,
        # so they are counted here.
        self._local_writes = 0

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: Path | str, key: bytes, *, create: bool = False) -> Store:
        """Open (or with ``create``, make) the store at ``path`` with a 256-bit raw key.

        An existing store that is emptied, truncated or fails its page checks is refused with
        :class:`StoreDamagedError` and left as it is: it is never replaced by a new empty one.
        """
        path = Path(path)
        if len(key) != 32:
            raise WrongKeyError("The store key must be 32 bytes.")
        _check_path(path, create=create)
        conn = connect_keyed(
            path,
            key,
            wrong_key=(
                f"{path} could not be decrypted with this key: the passphrase or key is wrong, "
                "or the file is not a VeraMem store."
            ),
            report_damage=True,
        )
        try:
            for pragma in (
                f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
                "PRAGMA journal_mode = WAL",
                "PRAGMA synchronous = FULL",
                "PRAGMA secure_delete = ON",
                "PRAGMA foreign_keys = ON",
                "PRAGMA temp_store = MEMORY",
                # Decrypted pages kept in this process's memory: every page read from disk costs an
                # AES decryption and an HMAC check, so a larger cache keeps searches from paying it again.
                f"PRAGMA cache_size = -{CACHE_KIB}",
            ):
                cls._retry_locked(lambda p=pragma: conn.execute(p).fetchall())
            store = cls(conn, path)
            if not create and store.schema_version() == 0:
                raise damaged(path, "it decrypts but holds no VeraMem tables")
            store.migrate()
        except sqlcipher3.DatabaseError as exc:
            conn.close()
            if is_damage(exc):
                raise damaged(path, str(exc)) from None
            raise
        except StoreDamagedError:
            conn.close()
            raise
        return store

    @staticmethod
    def _retry_locked(fn: Any) -> Any:
        deadline = time.monotonic() + LOCK_PATIENCE_S
        while True:
            try:
                return fn()
            except sqlcipher3.OperationalError as exc:
                if not _is_locked(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(random.uniform(0.01, 0.05))

    def close(self) -> None:
        with self.lock:
            try:
                self.conn.close()
            except sqlcipher3.Error:
                pass

    # ------------------------------------------------------------- transactions
    @contextmanager
    def atomic(self, *, durable: bool = True) -> Iterator[Connection]:
        """A write transaction (``BEGIN IMMEDIATE``), or a savepoint when nested.

        ``durable=False`` commits without waiting for the disk (``synchronous=NORMAL`` in WAL
        mode: atomic and never corrupt, but the last such commits can be lost in a power cut);
        for telemetry (traces) and work redone from its source if lost (sync batch files), not new memories.
        """
        with self.lock:
            if not durable and not self._depth:
                self.conn.execute("PRAGMA synchronous = NORMAL")
                try:
                    with self.atomic() as conn:
                        yield conn
                finally:
                    self.conn.execute("PRAGMA synchronous = FULL")
                return
            if self._depth:
                name = f"sp{self._depth}"
                self.conn.execute(f"SAVEPOINT {name}")
                self._depth += 1
                try:
                    yield self.conn
                except BaseException:
                    self.conn.execute(f"ROLLBACK TO {name}")
                    self.conn.execute(f"RELEASE {name}")
                    raise
                else:
                    self.conn.execute(f"RELEASE {name}")
                finally:
                    self._depth -= 1
                return
            self._begin()
            self._depth = 1
            try:
                yield self.conn
            except BaseException as exc:
                try:
                    self.conn.execute("ROLLBACK")
                except sqlcipher3.Error:
                    if not is_damage(exc):
                        raise
                if is_damage(exc):
                    raise damaged(self.path, str(exc)) from None
                raise
            else:
                self._commit()
                self._local_writes += 1
            finally:
                self._depth = 0

    def _begin(self) -> None:
        deadline = time.monotonic() + LOCK_PATIENCE_S
        while True:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                return
            except sqlcipher3.OperationalError as exc:
                if is_damage(exc):
                    raise damaged(self.path, str(exc)) from None
                if not _is_locked(exc):
                    raise
                if time.monotonic() > deadline:
                    raise StoreBusyError(
                        "Another VeraMem process has held the store for over a minute. Close it or try again."
                    ) from None
                time.sleep(random.uniform(0.01, 0.05))

    def _commit(self) -> None:
        deadline = time.monotonic() + LOCK_PATIENCE_S
        while True:
            try:
                self.conn.execute("COMMIT")
                return
            except sqlcipher3.OperationalError as exc:
                if not _is_locked(exc) or time.monotonic() > deadline:
                    self.conn.execute("ROLLBACK")
                    raise StoreBusyError(
                        "The store stayed busy while saving; nothing was saved. Try again."
                    ) from None
                time.sleep(random.uniform(0.01, 0.05))

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """Exclusive use of the connection for a read (other threads wait)."""
        with self.lock:
            try:
                yield self.conn
            except sqlcipher3.DatabaseError as exc:
                if is_damage(exc):
                    raise damaged(self.path, str(exc)) from None
                raise

    def query(self, sql: str, params: Any = ()) -> list[Any]:
        with self.lock:
            try:
                rows: list[Any] = self._retry_locked(lambda: self.conn.execute(sql, params).fetchall())
                return rows
            except sqlcipher3.DatabaseError as exc:
                if is_damage(exc):
                    raise damaged(self.path, str(exc)) from None
                raise

    def integrity_problems(self, limit: int = 20) -> list[str]:
        """Page-level check of the whole file (``PRAGMA cipher_integrity_check``): every page's
        HMAC and size; the problems found (at most ``limit``), none when the file is whole."""
        with self.lock:
            try:
                rows = self.conn.execute("PRAGMA cipher_integrity_check").fetchall()
            except sqlcipher3.DatabaseError as exc:
                return [str(exc)]
        return [str(r[0]) for r in rows[:limit]]

    def query_one(self, sql: str, params: Any = ()) -> Any:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def data_version(self) -> int:
        """Changes when any connection (this or another process) commits a write."""
        with self.lock:
            return int(self.conn.execute("PRAGMA data_version").fetchone()[0]) + self._local_writes

    def checkpoint(self) -> None:
        """Fold the WAL into the main file and truncate it (used after erasure)."""
        with self.lock:
            self._retry_locked(lambda: self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall())

    # ---------------------------------------------------------------- migrations
    def schema_version(self) -> int:
        with self.lock:
            has = self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_migrations'"
            ).fetchone()
            if not has:
                return 0
            row = self.conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
            return int(row[0] or 0)

    def migrate(self) -> int:
        """Apply every migration not yet applied; returns how many ran. Idempotent."""
        ran = 0
        with self.atomic() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, comment TEXT, applied_at TEXT)"
            )
            current = self.schema_version()
            for migration in MIGRATIONS:
                if migration.version <= current:
                    continue
                for statement in _split_sql(migration.sql):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations(version, comment, applied_at) VALUES (?,?,?)",
                    (migration.version, migration.comment, now_iso()),
                )
                ran += 1
        return ran

    def get_meta(self, key: str) -> str | None:
        row = self.query_one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self.atomic() as conn:
            meta.put(conn, key, value)


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies whole."""
    statements: list[str] = []
    buf: list[str] = []
    for line in script.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("--"):
            continue
        buf.append(line)
        candidate = "\n".join(buf)
        if stripped.endswith(";") and sqlcipher3.complete_statement(candidate):
            statements.append(candidate)
            buf = []
    if buf:
        statements.append("\n".join(buf))
    return statements
