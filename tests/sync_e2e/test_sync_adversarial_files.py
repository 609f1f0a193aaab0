"""Hostile files in the sync folder: each is refused, reported by `sync status` with its reason,
and nothing already applied is lost; the genuine file still applies afterwards."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sync_e2e_helpers import Device, deliver, make_devices, own_files
from veramem_desktop.core.storage import ledger_verify
from veramem_desktop.sync import batchfile, envelope, registry
from veramem_desktop.sync.envelope import HEADER_SIZE
from veramem_desktop.sync.replica import state_hash


@pytest.fixture
def trio(tmp_path: Path) -> Iterator[list[Device]]:
    devices = make_devices(tmp_path, ["a", "b", "c"])
    yield devices
    for d in devices:
        d.store.close()


def _memories(device: Device) -> set[str]:
    return {r[0] for r in device.store.query("SELECT text FROM memory_items")}


def _applied_then_second_batch(a: Device, b: Device) -> Path:
    """a's first batch is applied on b; a's second batch is written but not delivered. Returns its path."""
    a.add("I keep my bike in the blue shed.")
    a.service.run()
    deliver(a, b)
    assert b.service.run().applied_batches == 1
    a.add("My dentist is on Rua Augusta.")
    a.service.run()
    second = [p for p in own_files(a) if p.name.endswith("-000000000002.vms")]
    assert len(second) == 1
    return second[0]


def _place(b: Device, a: Device, name: str, data: bytes) -> Path:
    target = batchfile.device_dir(b.folder, a.id) / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


def _assert_reported(b: Device, path: Path, reason: str, *, waiting: bool = False) -> None:
    status = b.service.status()
    listed = status["waiting" if waiting else "refused"]
    assert any(r["file"] == str(path) and r["reason"] == reason for r in listed), status


def _assert_nothing_lost(b: Device, before: set[str]) -> None:
    assert _memories(b) == before
    assert ledger_verify.verify(b.store).ok


def _genuine_batch_still_applies(a: Device, b: Device, path: Path, before: set[str]) -> None:
    path.unlink()
    deliver(a, b)
    assert b.service.run().applied_batches == 1
    assert _memories(b) == before | {"My dentist is on Rua Augusta."}
    assert b.service.status()["refused"] == []


def test_a_file_with_one_flipped_bit_is_refused_reported_and_harmless(trio: list[Device]) -> None:
    a, b, _ = trio
    second = _applied_then_second_batch(a, b)
    before = _memories(b)
    data = bytearray(second.read_bytes())
    data[HEADER_SIZE + 40] ^= 0x01
    placed = _place(b, a, second.name, bytes(data))
    report = b.service.run()
    assert [r["reason"] for r in report.refused] == ["mac_failure"]
    _assert_reported(b, placed, "mac_failure")
    _assert_nothing_lost(b, before)
    _genuine_batch_still_applies(a, b, placed, before)


def test_a_batch_signed_by_another_paired_device_in_a_devices_name_is_refused(trio: list[Device]) -> None:
    a, b, c = trio
    second = _applied_then_second_batch(a, b)
    before = _memories(b)
    # c holds the shared key, so it can open a's batch and seal it again: it cannot sign as a.
    data = second.read_bytes()
    key = registry.current_key(c.store)
    header = data[:HEADER_SIZE]
    plain = envelope._batch_box(key, header).decrypt(data[HEADER_SIZE:])
    body = plain[envelope.SIGNATURE_SIZE :]
    forged_sig = c.identity.sign(envelope._SIGNATURE_CONTEXT + header + body)
    placed = _place(b, a, second.name, envelope._seal(header, key, forged_sig + body, os.urandom))
    b.service.run()
    _assert_reported(b, placed, "bad_signature")
    _assert_nothing_lost(b, before)
    _genuine_batch_still_applies(a, b, placed, before)


def test_a_replayed_file_under_a_new_name_is_refused(trio: list[Device]) -> None:
    a, b, _ = trio
    second = _applied_then_second_batch(a, b)
    before = _memories(b)
    first = next(p for p in own_files(a) if p.name.endswith("-000000000001.vms"))
    placed = _place(b, a, second.name, first.read_bytes())  # batch 1 again, named as batch 2
    b.service.run()
    _assert_reported(b, placed, "replay")
    _assert_nothing_lost(b, before)
    _genuine_batch_still_applies(a, b, placed, before)


def test_a_truncated_file_waits_and_is_reported_until_it_is_complete(trio: list[Device]) -> None:
    a, b, _ = trio
    second = _applied_then_second_batch(a, b)
    before = _memories(b)
    data = second.read_bytes()
    placed = _place(b, a, second.name, data[: len(data) // 2])
    report = b.service.run()
    assert report.refused == [] and [w["reason"] for w in report.waiting] == ["truncated"]
    _assert_reported(b, placed, "truncated", waiting=True)
    _assert_nothing_lost(b, before)
    _genuine_batch_still_applies(a, b, placed, before)
    assert b.service.status()["waiting"] == []


def test_an_event_from_a_removed_device_is_refused_after_its_last_accepted_batch(trio: list[Device]) -> None:
    a, b, c = trio
    c.add("Written by c before its removal.")
    c.service.run()
    deliver(c, a)
    a.service.run()
    a.service.remove(c.id)  # its batch 1 was applied on a: batches after 1 are refused
    deliver(c, b)
    deliver(a, b)
    b.service.run()
    assert "Written by c before its removal." in _memories(b)
    assert registry.removed_ids(b.store) == {c.id: 1}
    before = _memories(b)
    c.add("Written by c after it was removed.")
    c.service.run()
    deliver(c, b)
    b.service.run()
    late = batchfile.batch_path(b.folder, c.id, 1, 2)
    _assert_reported(b, late, "removed_device")
    _assert_nothing_lost(b, before)
    # The removed device cannot read what is written now: the key rotated without it.
    assert registry.current_key(b.store).epoch == 2
    assert all(k.epoch == 1 for k in registry.keys(c.store))


def test_a_forked_chain_is_refused_and_reported(trio: list[Device]) -> None:
    a, b, _ = trio
    a.add("I keep my bike in the blue shed.")
    a.service.run()
    deliver(a, b)
    b.service.run()
    before = _memories(b)
    # a's store is rolled back one ledger entry (a restored backup) and continues differently:
    # its next batch carries another entry under a number b already has.
    with a.store.atomic() as conn:
        last = int(conn.execute("SELECT max(seq) FROM ledger").fetchone()[0])
        conn.execute("DELETE FROM ledger WHERE seq = ?", (last,))
        conn.execute("DELETE FROM meta WHERE key = 'ledger_head'")
        registry.set_meta(conn, registry.META_EXPORTED, str(last - 1))
    a.add("A different history.")
    a.service.run()
    deliver(a, b)
    report = b.service.run()
    assert [r["reason"] for r in report.refused] == ["chain_fork"]
    assert any(c["problem"] for c in b.service.status()["chains"])
    _assert_reported(b, batchfile.batch_path(b.folder, a.id, 1, 2), "chain_fork")
    _assert_nothing_lost(b, before)
    assert state_hash(b.store) != state_hash(a.store)
