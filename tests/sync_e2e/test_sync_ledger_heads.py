"""Paired devices keep each other's signed ledger heads: a ledger rolled back or rewritten by
someone holding the store's key (so its own `verify` still passes) is reported by the peer,
and by the device itself, on the next sync."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sync_e2e_helpers import Device, converge, deliver, make_devices, own_files
from veramem_desktop.core.storage import ledger, ledger_verify
from veramem_desktop.core.storage.canonical import GENESIS_HASH, chain_hash
from veramem_desktop.core.storage.store import Store
from veramem_desktop.sync import heads, registry
from veramem_desktop.sync.errors import SyncRejected
from veramem_desktop.sync.service import SyncService

from veramem_desktop.cli.sync_cmds import _report_line


def _synced(a: Device, b: Device) -> int:
    """a writes two memories and b applies them; returns the last entry of a's ledger."""
    a.add("I keep my bike in the blue shed.")
    a.add("My dentist is on Rua Augusta.")
    assert not a.service.run().ledger_heads
    deliver(a, b)
    report = b.service.run()
    assert report.applied_events > 0 and not report.ledger_heads
    deliver(b, a)
    assert not a.service.run().ledger_heads
    return int(a.store.query_one("SELECT max(seq) FROM ledger")[0])


def _rewrite_chain_from(store: Store, seq: int, details: dict[str, object]) -> None:
    """What a key holder can do: change entry ``seq`` and recompute every hash after it."""
    with store.atomic() as conn:
        conn.execute(
            "UPDATE ledger SET details = ? WHERE seq = ?", (json.dumps(details, sort_keys=True), seq)
        )
        prev = (
            GENESIS_HASH
            if seq == 1
            else conn.execute("SELECT hash FROM ledger WHERE seq = ?", (seq - 1,)).fetchone()[0]
        )
        rows = conn.execute(
            "SELECT seq, ts, device, op, target_kind, target_id, commitment, details, prev_hash, hash "
            "FROM ledger WHERE seq >= ? ORDER BY seq",
            (seq,),
        ).fetchall()
        for entry in (ledger.row_to_entry(r) for r in rows):
            digest = chain_hash(prev, entry.body())
            conn.execute("UPDATE ledger SET prev_hash = ?, hash = ? WHERE seq = ?", (prev, digest, entry.seq))
            prev = digest
        conn.execute("UPDATE meta SET value = ? WHERE key = 'ledger_head'", (f"{rows[-1][0]}:{prev}",))


def test_a_rewritten_ledger_head_is_reported_by_the_peer_on_the_next_sync(pair: list[Device]) -> None:
    a, b = pair
    last = _synced(a, b)
    _rewrite_chain_from(a.store, last, {"forged": True})
    assert ledger_verify.verify_chain(a.store).ok  # the chain alone cannot tell
    a.service.run()
    deliver(a, b)
    report = b.service.run()
    assert [(p["device"], p["reason"]) for p in report.ledger_heads] == [(a.id, "rewritten")]
    assert f"LEDGER REWRITTEN on device {a.id}" in _report_line(report)  # what `veramem sync run` prints
    [chain] = [c for c in b.service.status()["chains"] if c["device"] == a.id]
    assert chain["problem"] and f"entry {last}" in chain["problem"] and "rewritten" in chain["problem"]
    # a learns it too, from b's signed view of a's chain
    deliver(b, a)
    own = a.service.run().ledger_heads
    assert [(p["device"], p["reason"]) for p in own] == [(a.id, "rewritten")]
    assert "rewritten" in (a.service.status()["own_chain_problem"] or "")


def test_a_ledger_rewritten_deep_down_is_reported_too(pair: list[Device]) -> None:
    a, b = pair
    _synced(a, b)
    _rewrite_chain_from(a.store, 2, {"forged": True})
    a.service.run()
    deliver(a, b)
    assert [p["reason"] for p in b.service.run().ledger_heads] == ["rewritten"]


def test_a_rolled_back_ledger_is_reported_by_the_peer_on_the_next_sync(pair: list[Device]) -> None:
    a, b = pair
    last = _synced(a, b)
    keep = last - 3
    with a.store.atomic() as conn:  # entries cut off the end, and the head moved back to match
        conn.execute("DELETE FROM ledger WHERE seq > ?", (keep,))
        digest = conn.execute("SELECT hash FROM ledger WHERE seq = ?", (keep,)).fetchone()[0]
        conn.execute("UPDATE meta SET value = ? WHERE key = 'ledger_head'", (f"{keep}:{digest}",))
    assert ledger_verify.verify_chain(a.store).ok
    a.service.run()
    deliver(a, b)
    report = b.service.run()
    assert [(p["device"], p["reason"]) for p in report.ledger_heads] == [(a.id, "rolled_back")]
    assert any(c["problem"] and f"ends at entry {keep}" in c["problem"] for c in b.service.status()["chains"])
    deliver(b, a)
    assert [p["reason"] for p in a.service.run().ledger_heads] == ["rolled_back"]


def test_a_late_copy_of_an_older_head_is_not_taken_for_a_rollback(pair: list[Device]) -> None:
    a, b = pair
    a.add("I keep my bike in the blue shed.")
    a.service.run()
    old = heads.head_path(a.folder, a.id).read_bytes()
    a.add("My dentist is on Rua Augusta.")
    a.service.run()
    deliver(a, b)
    assert not b.service.run().ledger_heads
    heads.head_path(b.folder, a.id).write_bytes(old)  # a file-sync engine delivers an old version late
    assert not b.service.run().ledger_heads
    assert all(c["problem"] is None for c in b.service.status()["chains"])


def test_devices_that_sync_normally_never_report_a_head_problem(tmp_path: Path) -> None:
    devices = make_devices(tmp_path, ["a", "b", "c"])
    try:
        for i, d in enumerate(devices):
            d.add(f"Fact {i} from device {d.name}.")
        converge(devices)
        devices[0].add("One more from a.")
        converge(devices)
        for d in devices:
            status = d.service.status()
            assert status["own_chain_problem"] is None and all(c["problem"] is None for c in status["chains"])
            assert not d.service.run().ledger_heads
            assert ledger_verify.verify(d.store).ok
    finally:
        for d in devices:
            d.store.close()


def test_a_head_file_altered_or_signed_by_another_device_is_refused(pair: list[Device]) -> None:
    a, b = pair
    _synced(a, b)
    data = heads.head_path(b.folder, a.id).read_bytes()
    keys = {(k.epoch, k.key_id): k for k in registry.keys(b.store)}
    trusted = {d.device_id: d.verify_key for d in registry.active_devices(b.store)}
    assert heads.open_head(data, keys, trusted, a.id).device == a.id
    flipped = data[:-1] + bytes([data[-1] ^ 1])
    with pytest.raises(SyncRejected, match="altered"):
        heads.open_head(flipped, keys, trusted, a.id)
    with pytest.raises(SyncRejected, match="folder of device"):  # b's own head placed as a's
        heads.open_head(heads.head_path(b.folder, b.id).read_bytes(), keys, trusted, a.id)


def test_a_store_restored_from_an_older_copy_is_reported_by_the_peer_on_the_next_sync(tmp_path: Path) -> None:
    a, b = make_devices(tmp_path, ["a", "b"])
    key = os.urandom(32)
    path = tmp_path / "a-own.db"
    store = Store.open(path, key, create=True)  # a's store again, under a key this test keeps
    with store.atomic() as conn:
        registry.save_identity(conn, a.identity, str(a.folder))
        for k in registry.keys(a.store):
            registry.add_key(conn, k)
        for d in registry.devices(a.store):
            registry.add_device(conn, d.public)
    a.store.close()
    a = Device("a", a.identity, store, a.folder, SyncService(store, "dev_a"))
    try:
        a.add("I keep my bike in the blue shed.")
        a.service.run()
        deliver(a, b)
        b.service.run()
        a.store.close()
        backup = tmp_path / "backup"
        backup.mkdir()
        for f in tmp_path.glob("a-own.db*"):
            shutil.copy2(f, backup / f.name)
        a.store = Store.open(path, key)
        a.service = SyncService(a.store, "dev_a")
        a.add("My dentist is on Rua Augusta.")
        a.service.run()
        deliver(a, b)
        assert not b.service.run().ledger_heads
        a.store.close()
        for f in tmp_path.glob("a-own.db*"):
            f.unlink()
        for f in backup.iterdir():
            shutil.copy2(f, tmp_path / f.name)
        a.store = Store.open(path, key)  # the older copy, whole: its own verify passes
        a.service = SyncService(a.store, "dev_a")
        assert ledger_verify.verify(a.store).ok
        a.service.run()
        deliver(a, b)
        report = b.service.run()
        assert [(p["device"], p["reason"]) for p in report.ledger_heads] == [(a.id, "rolled_back")]
    finally:
        a.store.close()
        b.store.close()


PEERS = 2
honest_step = st.one_of(
    st.tuples(st.just("add"), st.integers(0, PEERS - 1)),
    st.tuples(st.just("forget"), st.integers(0, PEERS - 1)),
    st.tuples(st.just("run"), st.integers(0, PEERS - 1)),
    # some of src's files, in any order, to dst (a file-sync engine that is slow or partial); none named: all
    st.tuples(st.just("deliver"), st.integers(0, PEERS - 1), st.lists(st.integers(0, 30), max_size=4)),
    # an older version of src's head file reaches the other device late
    st.tuples(st.just("stale_head"), st.integers(0, PEERS - 1), st.integers(0, 30)),
)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(honest_step, min_size=6, max_size=16))
def test_honest_devices_never_report_a_rolled_back_or_rewritten_ledger_whatever_the_delivery(
    steps: list[tuple],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        devices = make_devices(Path(tmp), ["a", "b"])
        old_heads: dict[str, list[bytes]] = {d.id: [] for d in devices}
        try:
            for n, action in enumerate(steps):
                kind, d = action[0], devices[action[1]]
                other = devices[1 - action[1]]
                if kind == "add":
                    d.add(f"fact number {n} from {d.name}")
                elif kind == "forget" and d.memory_ids():
                    d.forget(d.memory_ids()[0])
                elif kind == "run":
                    assert not d.service.run().ledger_heads
                    old_heads[d.id].append(heads.head_path(d.folder, d.id).read_bytes())
                elif kind == "deliver":
                    files = own_files(d)
                    deliver(
                        d, other, [files[i % len(files)] for i in action[2]] if files and action[2] else None
                    )
                elif kind == "stale_head" and old_heads[d.id]:
                    target = heads.head_path(other.folder, d.id)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(old_heads[d.id][action[2] % len(old_heads[d.id])])
            converge(devices)
            for d in devices:
                assert not d.service.run().ledger_heads
                status = d.service.status()
                assert status["own_chain_problem"] is None and all(
                    c["problem"] is None for c in status["chains"]
                )
        finally:
            for d in devices:
                d.store.close()
