"""The folder edge: layout, atomic writes, listing, and two devices talking through a real folder."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from veramem_desktop.core.errors import InvalidInputError, SyncError
from veramem_desktop.sync import batchfile
from veramem_desktop.sync.batchfile import (
    BatchRef,
    PairingKind,
    check_folder,
    init_folder,
    list_batches,
    list_grants,
    list_pairing,
    read_batch,
    read_grant,
    sync_root,
    unrecognised_files,
    write_batch,
    write_grant,
    write_pairing,
)
from veramem_desktop.sync.envelope import make_event, open_batch, seal_batch
from veramem_desktop.sync.errors import RejectReason, SyncRejected
from veramem_desktop.sync.hlc import HLC
from veramem_desktop.sync.keys import AccountKey, DeviceIdentity, open_key_grant, seal_key_grant
from veramem_desktop.sync.pairing import (
    AccountGrant,
    Approval,
    Confirmation,
    PairingCode,
    approve_join,
    complete_approval,
    find_request,
    finish_join,
    pending_requests,
    start_join,
)

T0 = 1_700_000_000_000


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    init_folder(tmp_path)
    return tmp_path


def all_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_init_creates_the_layout_once_and_is_harmless_to_repeat(tmp_path: Path) -> None:
    root = init_folder(tmp_path)
    assert root == sync_root(tmp_path)
    assert (root / "devices").is_dir() and (root / "pairing").is_dir()
    marker = (root / "FORMAT").read_bytes()
    init_folder(tmp_path)
    assert (root / "FORMAT").read_bytes() == marker
    assert all_files(tmp_path) == ["veramem-sync/FORMAT"]


def test_a_folder_that_was_never_initialised_or_is_newer_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SyncError, match="sync init"):
        check_folder(tmp_path)
    with pytest.raises(InvalidInputError):
        init_folder(tmp_path / "missing")
    init_folder(tmp_path)
    (sync_root(tmp_path) / "FORMAT").write_bytes(b"veramem-sync 2\n")
    with pytest.raises(SyncError, match="newer"):
        check_folder(tmp_path)


def test_a_batch_is_written_under_its_own_device_folder_readable_only_by_the_owner(
    folder: Path, laptop: DeviceIdentity
) -> None:
    path = write_batch(folder, laptop.device_id, 2, 15, b"VMS1 data")
    assert path == sync_root(folder) / "devices" / laptop.device_id / "000002-000000000015.vms"
    assert path.read_bytes() == b"VMS1 data"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]  # no temp file left


def test_a_batch_file_is_never_overwritten(folder: Path, laptop: DeviceIdentity) -> None:
    write_batch(folder, laptop.device_id, 1, 1, b"first")
    with pytest.raises(SyncError, match="already exists"):
        write_batch(folder, laptop.device_id, 1, 1, b"second")
    assert read_batch(list_batches(folder)[0]) == b"first"


def test_a_failed_write_leaves_neither_a_partial_file_nor_a_temp_file(
    folder: Path, laptop: DeviceIdentity, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_fsync(fd: int) -> None:
        raise OSError(5, "I/O error")

    monkeypatch.setattr(batchfile.os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        write_batch(folder, laptop.device_id, 1, 1, b"data")
    monkeypatch.undo()
    assert list(batchfile.device_dir(folder, laptop.device_id).iterdir()) == []


@pytest.mark.parametrize("device_id", ["../../etc", "ABCDEF0123456789", "abc", "0123456789abcdef/.."])
def test_a_device_id_that_is_not_an_id_never_becomes_a_path(folder: Path, device_id: str) -> None:
    with pytest.raises(InvalidInputError):
        write_batch(folder, device_id, 1, 1, b"x")


def test_batches_are_listed_in_sequence_order_and_strays_are_reported_not_read(
    folder: Path, laptop: DeviceIdentity, phone: DeviceIdentity
) -> None:
    for seq in (10, 2, 1):
        write_batch(folder, laptop.device_id, 1, seq, b"x")
    write_batch(folder, phone.device_id, 2, 1, b"y")
    laptop_dir = batchfile.device_dir(folder, laptop.device_id)
    (laptop_dir / ".~vms-abc.tmp").write_bytes(b"half")  # a write in progress
    (laptop_dir / "000001-000000000002.sync-conflict-20240101-ABC.vms").write_bytes(b"c")
    (laptop_dir / "1-3.vms").write_bytes(b"not canonical")
    (laptop_dir / "000001-000000000004.vms").symlink_to("/etc/hostname")
    (sync_root(folder) / "devices" / "not-a-device").mkdir()

    refs = list_batches(folder)
    assert [(r.device_id, r.batch_seq) for r in refs] == sorted(
        [(laptop.device_id, 1), (laptop.device_id, 2), (laptop.device_id, 10), (phone.device_id, 1)]
    )
    assert [r.batch_seq for r in list_batches(folder, phone.device_id)] == [1]
    strays = {p.name for p in unrecognised_files(folder)}
    assert strays == {"000001-000000000002.sync-conflict-20240101-ABC.vms", "1-3.vms", "not-a-device"}


def test_an_oversized_file_is_refused_unread(folder: Path, laptop: DeviceIdentity) -> None:
    path = write_batch(folder, laptop.device_id, 1, 1, b"x")
    with open(path, "r+b") as handle:
        handle.truncate(batchfile.MAX_BATCH_FILE + 1)
    with pytest.raises(SyncRejected) as caught:
        read_batch(BatchRef(laptop.device_id, 1, 1, path))
    assert caught.value.reason is RejectReason.TOO_LARGE


def test_pairing_messages_are_kept_by_kind_and_request_id(folder: Path) -> None:
    rid = "ab" * 16
    write_pairing(folder, PairingKind.JOIN, rid, b"request")
    write_pairing(folder, PairingKind.APPROVAL, rid, b"approval")
    (sync_root(folder) / "pairing" / "join-nothex.json").write_bytes(b"x")
    assert list_pairing(folder, PairingKind.JOIN) == {rid: b"request"}
    assert list_pairing(folder, PairingKind.APPROVAL) == {rid: b"approval"}
    assert list_pairing(folder, PairingKind.CONFIRM) == {}
    batchfile.remove_pairing(folder, PairingKind.JOIN, rid)
    assert list_pairing(folder, PairingKind.JOIN) == {}
    with pytest.raises(InvalidInputError):
        write_pairing(folder, PairingKind.JOIN, "../../x", b"")


# --- two devices through one real folder ----------------------------------------------------


def test_two_devices_pair_exchange_batches_and_rotate_keys_through_the_folder(
    folder: Path, laptop: DeviceIdentity, phone: DeviceIdentity, key1: AccountKey
) -> None:
    # Phone: `sync join` writes a request and shows the code.
    session = start_join(phone, T0)
    write_pairing(folder, PairingKind.JOIN, session.request.request_id, session.request.to_bytes())
    typed = PairingCode.parse(session.code.display())

    # Laptop: `sync approve CODE` finds the request and answers.
    requests, reports = pending_requests(list(list_pairing(folder, PairingKind.JOIN).values()))
    assert reports == []
    grant = AccountGrant((key1,), (laptop.public,))
    pending, approval = approve_join(find_request(requests, typed, T0 + 1), typed, laptop, grant, T0 + 1)
    write_pairing(folder, PairingKind.APPROVAL, approval.request_id, approval.to_bytes())

    # Phone: finishes and confirms.
    received = Approval.from_bytes(list_pairing(folder, PairingKind.APPROVAL)[session.request.request_id])
    result = finish_join(session, received, T0 + 2)
    write_pairing(folder, PairingKind.CONFIRM, result.confirmation.request_id, result.confirmation.to_bytes())

    # Laptop: trusts the phone once it confirmed.
    confirmation = Confirmation.from_bytes(list_pairing(folder, PairingKind.CONFIRM)[pending.request_id])
    assert complete_approval(pending, confirmation, T0 + 3) == phone.public

    # The phone writes a batch with the key it received; the laptop reads it.
    phone_key = result.grant.keys[0]
    event = make_event(
        phone.device_id, 1, HLC.zero(phone.device_id).tick(T0), "memory.add", {"text": "hello"}
    )
    write_batch(folder, phone.device_id, phone_key.epoch, 1, seal_batch(phone, phone_key, 1, [event]))
    trusted = {laptop.device_id: laptop.verify_key, phone.device_id: phone.verify_key}
    (ref,) = list_batches(folder)
    opened = open_batch(read_batch(ref), {1: key1}, trusted, set(), {}, expected_device=ref.device_id)
    assert opened.events == (event,)

    # The laptop removes a third device: it rotates and grants the new key to the phone.
    key2 = key1.rotate()
    write_grant(
        folder, laptop.device_id, phone.device_id, key2.epoch, seal_key_grant(laptop, phone.public, key2)
    )
    (grant_ref,) = list_grants(folder, phone.device_id)
    assert grant_ref.sender_id == laptop.device_id and grant_ref.epoch == 2
    assert open_key_grant(read_grant(grant_ref), phone, {laptop.device_id: laptop.public}) == key2

    # Each device wrote only under its own folder (plus its own pairing messages).
    files = all_files(folder)
    assert f"veramem-sync/devices/{phone.device_id}/000001-000000000001.vms" in files
    assert f"veramem-sync/devices/{laptop.device_id}/grants/000002-{phone.device_id}.vmk" in files
    assert not [f for f in files if "/." in f]
    # Nothing in the folder is readable: no plaintext, no key.
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"hello" not in data and key1.key.hex().encode() not in data and key2.key not in data


def test_an_atomic_write_replaces_a_pairing_file_in_one_step(folder: Path) -> None:
    rid = "cd" * 16
    write_pairing(folder, PairingKind.JOIN, rid, b"one")
    write_pairing(folder, PairingKind.JOIN, rid, b"two")
    assert list_pairing(folder, PairingKind.JOIN) == {rid: b"two"}
    assert sorted(os.listdir(sync_root(folder) / "pairing")) == [f"join-{rid}.json"]
