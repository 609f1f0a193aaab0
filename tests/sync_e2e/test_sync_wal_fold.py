"""An exchange runs with SQLite's automatic checkpoint off and lets SQLite fold the WAL once, at its
last commit (sync/wal_fold.py): every commit of the exchange but the last saw no threshold, the last
saw the connection's own, which stays for the rest of the program."""

from __future__ import annotations

import pytest
from sync_e2e_helpers import Device, deliver
from veramem_desktop.core.storage.store import Store


def _threshold(store: Store) -> int:
    return int(store.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])


def test_an_exchange_commits_without_automatic_checkpoints_but_its_last_commit(
    pair: list[Device], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = pair
    for i in range(100):
        a.add(f"Fact number {i} about the garden.")
    a.service.run()
    deliver(a, b)
    thresholds: list[int] = []
    real_commit = Store._commit

    def spy(store: Store) -> None:
        thresholds.append(_threshold(store))
        real_commit(store)

    monkeypatch.setattr(Store, "_commit", spy)
    report = b.service.run()
    monkeypatch.undo()
    assert report.applied_events == 200
    assert len(thresholds) > 3 and set(thresholds[:-1]) == {0}
    assert thresholds[-1] == 1000  # the last commit folds the WAL if the exchange left it past 1,000 pages
    assert _threshold(b.store) == 1000
