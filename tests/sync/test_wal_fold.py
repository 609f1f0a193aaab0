"""A sync exchange folds the WAL once, at its end: no automatic checkpoint while it writes (the WAL
grows past SQLite's threshold instead of being folded and synced again and again), every frame
folded when it ends (also when it fails), and the connection's own threshold back afterwards."""

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


def test_the_wal_is_not_folded_while_the_exchange_writes_and_is_folded_once_at_its_end(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path)
    assert _threshold(store) == THRESHOLD
    with wal_fold.one_checkpoint(store):
        assert _threshold(store) == 0
        _write_pages(store, commits=4, pages=400)  # 1,600+ pages: past the threshold twice
        assert _wal_pages(store) > 1.5 * THRESHOLD  # no automatic checkpoint restarted it
        assert _store_file_pages(store) < 100  # nothing folded into the store file yet
    assert _threshold(store) == THRESHOLD
    assert _store_file_pages(store) > 1600  # folded at the end
    store.close()


def test_without_the_pause_sqlite_folds_the_wal_on_its_own(tmp_path: Path) -> None:
    """The contrast: the same writes outside an exchange keep the WAL near the threshold."""
    store = _store(tmp_path)
    _write_pages(store, commits=4, pages=400)
    assert _wal_pages(store) < 1.5 * THRESHOLD
    store.close()


def test_an_exchange_that_fails_still_folds_the_wal_and_gives_the_threshold_back(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with pytest.raises(RuntimeError, match="cut short"), wal_fold.one_checkpoint(store):
        _write_pages(store, commits=2, pages=50)
        assert _store_file_pages(store) < 50
        raise RuntimeError("cut short")
    assert _threshold(store) == THRESHOLD
    assert _store_file_pages(store) > 100  # folded all the same
    store.close()
