"""An exchange runs with SQLite's automatic checkpoint off and folds the WAL once, at its end
(sync/wal_fold.py): every commit of the exchange saw no threshold, the store file holds what was
applied when the run returns, and the connection's threshold is back for the rest of the program."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sync_e2e_helpers import Device, deliver, make_devices
from veramem_desktop.core.storage.store import Store


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[list[Device]]:
    made = make_devices(tmp_path, ["a", "b"])
    yield made
    for d in made:
        d.store.close()


def _threshold(store: Store) -> int:
    return int(store.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])


def test_an_exchange_commits_without_automatic_checkpoints_and_folds_the_wal_when_it_ends(
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

    store_file = Path(b.store.path)
    before = store_file.stat().st_size
    monkeypatch.setattr(Store, "_commit", spy)
    report = b.service.run()
    monkeypatch.undo()
    assert report.applied_events == 200
    assert thresholds and set(thresholds) == {0}
    assert _threshold(b.store) == 1000
    assert store_file.stat().st_size > before + 50 * 4096  # the applied rows are folded into the file
