"""A sync exchange holds WAL checkpoints back while it writes, so SQLite folds the WAL once, at the
exchange's last commit (sync/wal_fold.py): no automatic checkpoint in the block (the WAL grows past
SQLite's threshold instead of being folded and synced again and again), the connection's own
threshold back when the block ends (also when it fails), and then SQLite's own rule: the next commit
folds a WAL past the threshold, and leaves a small one as it is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from veramem_desktop.core.storage.store import Store
from veramem_desktop.sync import wal_fold

PAGE = 4096
THRESHOLD = 1000  # SQLite's default wal_autocheckpoint, which Store keeps


def _store(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "s.db", os.urandom(32), create=True)
    with store.atomic() as conn:
        conn.execute("CREATE TABLE bulk(id INTEGER PRIMARY KEY, blob BLOB)")
    return store


def _write_pages(store: Store, commits: int, pages: int) -> None:
    for _ in range(commits):
        with store.atomic() as conn:
            conn.executemany("INSERT INTO bulk(blob) VALUES (?)", [(os.urandom(PAGE),)] * pages)


def _wal_pages(store: Store) -> int:
    wal = Path(str(store.path) + "-wal")
    return wal.stat().st_size // PAGE if wal.exists() else 0


def _store_file_pages(store: Store) -> int:
    """Pages in the store file itself: it grows only when a checkpoint copies pages into it."""
    return Path(store.path).stat().st_size // PAGE


def _threshold(store: Store) -> int:
    return int(store.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])


def test_the_wal_is_not_folded_while_the_exchange_writes_and_its_last_commit_folds_it(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path)
    assert _threshold(store) == THRESHOLD
    with wal_fold.deferred_checkpoints(store):
        assert _threshold(store) == 0
        _write_pages(store, commits=4, pages=400)  # 1,600+ pages: past the threshold twice
        assert _wal_pages(store) > 1.5 * THRESHOLD  # no automatic checkpoint restarted it
    assert _threshold(store) == THRESHOLD
    assert _store_file_pages(store) < 100  # nothing folded into the store file yet
    _write_pages(store, commits=1, pages=1)  # the exchange's last commit
    assert _store_file_pages(store) > 1600  # folded, once
    store.close()


def test_without_the_block_sqlite_folds_the_wal_on_its_own(tmp_path: Path) -> None:
    """The contrast: the same writes outside an exchange keep the WAL near the threshold."""
    store = _store(tmp_path)
    _write_pages(store, commits=4, pages=400)
    assert _wal_pages(store) < 1.5 * THRESHOLD
    store.close()


def test_a_small_exchange_costs_no_checkpoint_sqlite_would_not_make(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with wal_fold.deferred_checkpoints(store):
        _write_pages(store, commits=3, pages=20)
    _write_pages(store, commits=1, pages=1)
    assert _store_file_pages(store) < 20  # under the threshold: left in the WAL, as SQLite leaves it
    store.close()


def test_an_exchange_that_fails_gives_the_threshold_back_and_the_next_commit_folds(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with pytest.raises(RuntimeError, match="cut short"), wal_fold.deferred_checkpoints(store):
        _write_pages(store, commits=3, pages=400)
        raise RuntimeError("cut short")
    assert _threshold(store) == THRESHOLD
    _write_pages(store, commits=1, pages=1)
    assert _store_file_pages(store) > 1200
    store.close()
