"""Key rotation races, a crash between reserving a batch and writing its file, the daemon
picking up arriving files, and `veramem sync status` naming a refused file."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from sync_e2e_helpers import Device, converge, deliver, folder_plaintext
from veramem_desktop.sync import batchfile, registry
from veramem_desktop.sync.envelope import HEADER_SIZE
from veramem_desktop.sync.replica import state_hash


def test_two_devices_rotating_at_once_settle_on_one_key_and_drop_the_rest(pair: list[Device]) -> None:
    a, b = pair
    first, second = a.add("Shared fact one."), a.add("Shared fact two.")
    converge(pair)
    # Both forget something before hearing of the other's forget: both rotate to epoch 2.
    a.forget(first)
    b.forget(second)
    a.service.run()
    b.service.run()
    ka, kb = registry.current_key(a.store), registry.current_key(b.store)
    assert ka.epoch == kb.epoch == 2 and ka.key_id != kb.key_id
    converge(pair)
    assert registry.current_key(a.store) == registry.current_key(b.store)
    assert state_hash(a.store) == state_hash(b.store)
    for d in pair:
        assert [k.epoch for k in registry.keys(d.store)] == [2]  # the losing key and epoch 1 are erased
        text = "\n".join(folder_plaintext(d))
        assert "Shared fact one." not in text and "Shared fact two." not in text


def test_a_batch_reserved_before_a_crash_is_written_on_the_next_run(
    pair: list[Device], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = pair
    a.add("Written just before the power went out.")

    def crash(*_args: object, **_kwargs: object) -> Path:
        raise OSError("simulated crash while writing the batch file")

    monkeypatch.setattr(batchfile, "write_batch", crash)
    with pytest.raises(OSError):
        a.service.run()
    assert batchfile.list_batches(a.folder, a.id) == []
    monkeypatch.undo()
    a.service.run()  # the reserved batch 1 is written as it was sealed, not exported twice
    assert [r.batch_seq for r in batchfile.list_batches(a.folder, a.id)] == [1]
    deliver(a, b)
    b.service.run()
    assert state_hash(a.store) == state_hash(b.store)


def test_the_daemon_applies_a_file_soon_after_it_arrives(pair: list[Device]) -> None:
    a, b = pair
    stop = threading.Event()
    applied = threading.Event()
    thread = threading.Thread(
        target=b.service.daemon,
        args=(stop,),
        kwargs={"scan_s": 120.0, "on_run": lambda r: applied.set() if r.applied_events else None},
    )
    thread.start()
    try:
        a.add("Arrives while the daemon watches.")
        a.service.run()
        deliver(a, b)
        assert applied.wait(20), (
            "the daemon did not apply the arriving file (the periodic scan is 120 s away)"
        )
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive()
    assert state_hash(a.store) == state_hash(b.store)


def test_sync_status_on_the_command_line_names_a_refused_file(
    cli, isolated_home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    assert cli("init", "--json").returncode == 0
    assert cli("sync", "init", str(folder), "--name", "laptop").returncode == 0
    status = json.loads(cli("sync", "status", "--json").stdout)
    me = status["device"]["id"]
    # A stranger's file lands in the folder of a device that does not exist.
    stranger = batchfile.device_dir(folder, "0123456789abcdef")
    stranger.mkdir(parents=True)
    (stranger / batchfile.batch_name(1, 1)).write_bytes(b"VMS1\x01" + bytes(HEADER_SIZE + 200))
    run = cli("sync", "run", "--json")
    assert run.returncode in (0, 10), run.stderr
    status = json.loads(cli("sync", "status", "--json").stdout)
    listed = status["refused"] + status["waiting"]
    assert [r["device"] for r in listed] == ["0123456789abcdef"], status
    assert status["device"]["id"] == me
    human = cli("sync", "status")
    assert "0123456789abcdef" in human.stdout and listed[0]["reason"] in human.stdout
