"""Each applied batch file is one transaction, committed without waiting for the disk; the exchange
ends with a durable commit, which makes every commit before it durable (the WAL is synced in order).
A batch a power cut took before that is applied again from its file, since its 'seen' mark went
with it; the entries its apply wrote leave for the folder only after the export's durable commit."""

from __future__ import annotations

import inspect

import pytest
from sync_e2e_helpers import Device, deliver
from veramem_desktop.core.storage.store import Store
from veramem_desktop.sync import registry

FULL, NORMAL = 2, 1


def test_batches_commit_one_transaction_each_without_waiting_and_the_exchange_ends_durable(
    pair: list[Device], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = pair
    for i in range(600):  # more than one batch file (500 events each, two per memory)
        a.add(f"Fact number {i} about the garden.")
    a.service.run()
    deliver(a, b)
    commits: list[tuple[bool, int]] = []  # (an applied batch's commit?, synchronous at that commit)
    real_commit = Store._commit

    def spy(store: Store) -> None:
        applying = any(frame.function == "_apply_file" for frame in inspect.stack()[1:8])
        commits.append((applying, int(store.conn.execute("PRAGMA synchronous").fetchone()[0])))
        real_commit(store)

    monkeypatch.setattr(Store, "_commit", spy)
    report = b.service.run()
    monkeypatch.undo()
    applied = [mode for applying, mode in commits if applying]
    assert report.applied_batches == len(applied) >= 3
    assert report.applied_events == 1200
    assert applied == [NORMAL] * len(applied)  # one transaction per file, not waiting for the disk
    assert commits[-1] == (False, FULL)  # the exchange's last commit waits for the disk
    assert all(mode == FULL for applying, mode in commits if not applying)
    assert int(b.store.conn.execute("PRAGMA synchronous").fetchone()[0]) == FULL
    assert registry.seen(b.store)[a.id] == report.applied_batches
