"""A batch file opened ahead (sync/read_ahead.py) counts only when it was opened with exactly the
inputs its turn reads; anything else is opened again, so a file changed meanwhile, a device removed or
a key gone is judged as it is then. Opening also hands over each event's clock, read once."""

from __future__ import annotations

from typing import Any

import pytest
from veramem_desktop.sync import read_ahead
from veramem_desktop.sync.envelope import OpenedBatch, make_event, seal_batch
from veramem_desktop.sync.errors import RejectReason, SyncRejected
from veramem_desktop.sync.hlc import HLC
from veramem_desktop.sync.keys import AccountKey, DeviceIdentity
from veramem_desktop.sync.read_ahead import OpenInputs, ReadAhead


def _batch(device: DeviceIdentity, key: AccountKey, batch_seq: int = 1, count: int = 3) -> bytes:
    clock = HLC.zero(device.device_id)
    events = []
    for i in range(count):
        clock = clock.tick(1_700_000_000_000 + i)
        events.append(make_event(device.device_id, i + 1, clock, "memory.add", {"text": f"fact {i}"}))
    return seal_batch(device, key, batch_seq, events)


def _inputs(data: bytes, device: DeviceIdentity, key: AccountKey, **changes: Any) -> OpenInputs:
    fields: dict[str, Any] = {
        "data": data,
        "keys": {key.epoch: key},
        "trusted": {device.device_id: device.verify_key},
        "gone": frozenset(),
        "seen": {},
        "expected_device": device.device_id,
    }
    fields.update(changes)
    return OpenInputs(**fields)


@pytest.fixture
def opened_calls(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The files read_ahead really opens (in the worker or in the caller)."""
    calls: list[bytes] = []
    real = read_ahead.open_batch

    def counting(data: bytes, *args: Any, **kwargs: Any) -> OpenedBatch:
        calls.append(data)
        return real(data, *args, **kwargs)

    monkeypatch.setattr(read_ahead, "open_batch", counting)
    return calls


def test_a_file_opened_ahead_with_the_same_inputs_is_not_opened_again(
    laptop: DeviceIdentity, key1: AccountKey, opened_calls: list[bytes]
) -> None:
    data = _batch(laptop, key1)
    ahead = ReadAhead()
    try:
        ahead.start(_inputs(data, laptop, key1))
        opened = ahead.open(_inputs(bytes(data), laptop, key1, seen={}))  # equal, not the same objects
    finally:
        ahead.close()
    assert opened == _inputs(data, laptop, key1).open()
    assert len(opened_calls) == 2  # the worker's, and the check just above


def test_a_file_changed_after_it_was_opened_ahead_is_judged_as_it_is_now(
    laptop: DeviceIdentity, key1: AccountKey, opened_calls: list[bytes]
) -> None:
    data = _batch(laptop, key1)
    tampered = data[:-1] + bytes([data[-1] ^ 1])
    ahead = ReadAhead()
    try:
        ahead.start(_inputs(data, laptop, key1))  # opens fine
        with pytest.raises(SyncRejected) as caught:
            ahead.open(_inputs(tampered, laptop, key1))
    finally:
        ahead.close()
    assert caught.value.reason is RejectReason.MAC_FAILURE
    assert opened_calls[-1] == tampered


def test_a_device_removed_while_its_file_was_opened_ahead_has_the_file_refused(
    laptop: DeviceIdentity, key1: AccountKey
) -> None:
    data = _batch(laptop, key1)
    ahead = ReadAhead()
    try:
        ahead.start(_inputs(data, laptop, key1))
        with pytest.raises(SyncRejected) as caught:
            ahead.open(_inputs(data, laptop, key1, gone=frozenset({laptop.device_id})))
    finally:
        ahead.close()
    assert caught.value.reason is RejectReason.REMOVED_DEVICE


def test_a_refusal_met_ahead_is_raised_in_the_files_turn(
    laptop: DeviceIdentity, phone: DeviceIdentity, key1: AccountKey, opened_calls: list[bytes]
) -> None:
    data = _batch(laptop, key1, batch_seq=2)
    inputs = _inputs(data, laptop, key1, trusted={phone.device_id: phone.verify_key})
    ahead = ReadAhead()
    try:
        ahead.start(inputs)
        with pytest.raises(SyncRejected) as caught:
            ahead.open(inputs)
    finally:
        ahead.close()
    assert caught.value.reason is RejectReason.UNKNOWN_DEVICE
    assert len(opened_calls) == 1


def test_an_opened_batch_carries_each_events_clock_as_its_encoding_reads(
    laptop: DeviceIdentity, key1: AccountKey
) -> None:
    opened = _inputs(_batch(laptop, key1, count=5), laptop, key1).open()
    assert len(opened.clocks) == len(opened.events) == 5
    assert list(opened.clocks) == [HLC.parse(e["hlc"]) for e in opened.events]
    assert all(c.device == laptop.device_id for c in opened.clocks)
