"""The batch envelope: round trips, and every kind of adversarial file is refused with a reason."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from veramem_desktop.core.errors import ExitCode, InvalidInputError, SyncError
from veramem_desktop.sync import envelope
from veramem_desktop.sync.envelope import (
    HEADER_SIZE,
    MAGIC,
    BatchHeader,
    OpenedBatch,
    make_event,
    open_batch,
    seal_batch,
)
from veramem_desktop.sync.errors import RejectReason, SyncRejected
from veramem_desktop.sync.hlc import HLC
from veramem_desktop.sync.keys import AccountKey, DeviceIdentity, canonical_json

# Stable identities for hypothesis tests (fixtures are not reset between examples).
LAPTOP = DeviceIdentity.generate("laptop")
KEY1 = AccountKey.generate(1)


def events_for(device: DeviceIdentity, count: int, *, first_seq: int = 1) -> list[dict[str, Any]]:
    clock = HLC.zero(device.device_id)
    out = []
    for i in range(count):
        clock = clock.tick(1_700_000_000_000 + i)
        out.append(
            make_event(device.device_id, first_seq + i, clock, "memory.add", {"text": f"secret fact {i}"})
        )
    return out


def open_as(
    data: bytes,
    devices: list[DeviceIdentity],
    keys: list[AccountKey],
    *,
    removed: set[str] | None = None,
    seen: Mapping[str, int] | None = None,
    **kwargs: Any,
) -> OpenedBatch:
    return open_batch(
        data,
        {k.epoch: k for k in keys},
        {d.device_id: d.verify_key for d in devices},
        removed or set(),
        seen or {},
        **kwargs,
    )


def reason_of(
    data: bytes, devices: list[DeviceIdentity], keys: list[AccountKey], **kwargs: Any
) -> RejectReason:
    with pytest.raises(SyncRejected) as caught:
        open_as(data, devices, keys, **kwargs)
    return caught.value.reason


def forge(
    signer: DeviceIdentity,
    key: AccountKey,
    *,
    claimed_device: str,
    batch_seq: int = 1,
    body: bytes | None = None,
    events: list[dict[str, Any]] | None = None,
    count: int | None = None,
) -> bytes:
    """The attacker's toolkit: a well-sealed batch the public API would refuse to build."""
    if body is None:
        body = canonical_json(events or [])
    parsed_count = count if count is not None else body.count(b'"device"')
    header = BatchHeader(
        epoch=key.epoch,
        key_id=key.key_id,
        device_id=claimed_device,
        batch_seq=batch_seq,
        count=parsed_count,
        sealed_len=24 + 16 + 64 + len(body),
    ).pack()
    signature = signer.sign(envelope._SIGNATURE_CONTEXT + header + body)
    return envelope._seal(header, key, signature + body, os.urandom)


# --- round trips ----------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
payloads = st.dictionaries(st.text(max_size=10), json_values, max_size=5)


@settings(max_examples=80, deadline=None)
@given(
    batch_seq=st.integers(min_value=1, max_value=2**64 - 1),
    payload_list=st.lists(payloads, max_size=6),
    op=st.text(min_size=1, max_size=64),
)
def test_a_sealed_batch_opens_to_exactly_the_events_that_were_sealed(
    batch_seq: int, payload_list: list[dict[str, Any]], op: str
) -> None:
    device = LAPTOP.device_id
    clock = HLC.zero(device)
    events = []
    for i, payload in enumerate(payload_list):
        clock = clock.tick(1_000 + i)
        events.append(make_event(device, 10 + i, clock, op, payload))
    data = seal_batch(LAPTOP, KEY1, batch_seq, events)
    opened = open_as(data, [LAPTOP], [KEY1], seen={device: batch_seq - 1})
    assert opened == OpenedBatch(device, 1, batch_seq, tuple(events))


def test_sealing_twice_gives_different_bytes_and_no_plaintext(
    laptop: DeviceIdentity, key1: AccountKey
) -> None:
    events = events_for(laptop, 3)
    first, second = seal_batch(laptop, key1, 1, events), seal_batch(laptop, key1, 1, events)
    assert first != second  # a fresh random nonce each time
    for data in (first, second):
        assert b"secret fact" not in data and b"memory.add" not in data
        assert data.startswith(MAGIC)


def test_an_empty_batch_round_trips(laptop: DeviceIdentity, key1: AccountKey) -> None:
    assert open_as(seal_batch(laptop, key1, 1, []), [laptop], [key1]).events == ()


# --- tampering ------------------------------------------------------------------------------


def expected_reason_for_flip(position: int) -> set[RejectReason]:
    """Where a flipped bit lands decides what the reader can say about it."""
    if position < 4:
        return {RejectReason.BAD_MAGIC}
    if position == 4:
        return {RejectReason.BAD_VERSION}
    if position < 17:  # epoch and key id: this device has no such key
        return {RejectReason.UNKNOWN_EPOCH}
    if position < 37:  # sender, batch sequence, count: bound into the batch key
        return {RejectReason.MAC_FAILURE}
    if position < HEADER_SIZE:  # the sealed length no longer matches the file
        return {RejectReason.TRUNCATED, RejectReason.MALFORMED, RejectReason.TOO_LARGE}
    return {RejectReason.MAC_FAILURE}


def test_a_flipped_bit_at_every_byte_position_is_refused(laptop: DeviceIdentity, key1: AccountKey) -> None:
    data = seal_batch(laptop, key1, 1, events_for(laptop, 2))
    for position in range(len(data)):
        for bit in (0, position % 8, 7):
            tampered = bytearray(data)
            tampered[position] ^= 1 << bit
            reason = reason_of(bytes(tampered), [laptop], [key1])
            assert reason in expected_reason_for_flip(position), (position, bit, reason)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_any_set_of_flipped_bits_is_refused(data: st.DataObject) -> None:
    sealed = bytearray(seal_batch(LAPTOP, KEY1, 1, events_for(LAPTOP, 1)))
    positions = data.draw(st.sets(st.integers(0, len(sealed) * 8 - 1), min_size=1, max_size=6))
    for bit in positions:
        sealed[bit // 8] ^= 1 << (bit % 8)
    with pytest.raises(SyncRejected):
        open_as(bytes(sealed), [LAPTOP], [KEY1])


def test_a_truncated_file_is_refused_as_truncated_at_every_length(
    laptop: DeviceIdentity, key1: AccountKey
) -> None:
    data = seal_batch(laptop, key1, 1, events_for(laptop, 2))
    for length in range(len(data)):
        with pytest.raises(SyncRejected) as caught:
            open_as(data[:length], [laptop], [key1])
        assert caught.value.reason is RejectReason.TRUNCATED, length
        assert caught.value.retryable  # a partly copied file: read it again later


def test_bytes_appended_to_a_batch_are_refused(laptop: DeviceIdentity, key1: AccountKey) -> None:
    data = seal_batch(laptop, key1, 1, events_for(laptop, 1))
    assert reason_of(data + b"\x00", [laptop], [key1]) is RejectReason.MALFORMED


def test_a_file_that_is_not_a_batch_or_of_a_future_version_is_named_so(
    laptop: DeviceIdentity, key1: AccountKey
) -> None:
    data = seal_batch(laptop, key1, 1, [])
    assert reason_of(b"PK\x03\x04 a zip file", [laptop], [key1]) is RejectReason.BAD_MAGIC
    assert reason_of(b"X", [laptop], [key1]) is RejectReason.BAD_MAGIC
    assert reason_of(MAGIC + b"\x02" + data[5:], [laptop], [key1]) is RejectReason.BAD_VERSION


def test_a_huge_declared_length_is_refused_without_reading_on(
    laptop: DeviceIdentity, key1: AccountKey
) -> None:
    data = bytearray(seal_batch(laptop, key1, 1, []))
    data[37:41] = (2**32 - 1).to_bytes(4, "big")
    assert reason_of(bytes(data), [laptop], [key1]) is RejectReason.TOO_LARGE


# --- forgery and trust ----------------------------------------------------------------------


def test_a_paired_device_cannot_forge_a_batch_in_another_devices_name(
    laptop: DeviceIdentity, phone: DeviceIdentity, key1: AccountKey
) -> None:
    # The phone holds the shared key, so it can seal; it cannot sign as the laptop.
    forged = forge(phone, key1, claimed_device=laptop.device_id, events=events_for(laptop, 1))
    assert reason_of(forged, [laptop, phone], [key1]) is RejectReason.BAD_SIGNATURE


def test_a_paired_device_cannot_renumber_another_devices_batch(
    laptop: DeviceIdentity, phone: DeviceIdentity, key1: AccountKey
) -> None:
    # The phone opens the laptop's batch with the shared key and re-seals the laptop's
    # own signature and body under a new batch number: the signature covers the header.
    original = seal_batch(laptop, key1, 1, events_for(laptop, 1))
    plain = envelope._batch_box(key1, original[:HEADER_SIZE]).decrypt(original[HEADER_SIZE:])
    renumbered = replace(BatchHeader.unpack(original), batch_seq=7).pack()
    resealed = envelope._seal(renumbered, key1, plain, os.urandom)
    reason = reason_of(resealed, [laptop, phone], [key1], require_contiguous=False)
    assert reason is RejectReason.BAD_SIGNATURE


def test_an_outsider_without_the_sync_key_cannot_make_a_batch_that_opens(
    laptop: DeviceIdentity, mallory: DeviceIdentity, key1: AccountKey
) -> None:
    guessed_key = AccountKey(1, os.urandom(32))
    forged = forge(mallory, guessed_key, claimed_device=laptop.device_id, events=events_for(laptop, 1))
    assert reason_of(forged, [laptop], [key1]) is RejectReason.UNKNOWN_EPOCH
    # Even with the right key id copied from a real batch, the MAC fails.
    real = seal_batch(laptop, key1, 1, [])
    spliced = forged[:9] + real[9:17] + forged[17:]
    assert reason_of(spliced, [laptop], [key1]) is RejectReason.MAC_FAILURE


def test_a_batch_whose_events_claim_another_device_is_refused(
    laptop: DeviceIdentity, phone: DeviceIdentity, key1: AccountKey
) -> None:
    with pytest.raises(InvalidInputError):
        seal_batch(phone, key1, 1, events_for(laptop, 1))
    forged = forge(phone, key1, claimed_device=phone.device_id, events=events_for(laptop, 1))
    assert reason_of(forged, [laptop, phone], [key1]) is RejectReason.WRONG_SENDER


def test_an_event_carrying_another_devices_clock_is_refused(
    laptop: DeviceIdentity, phone: DeviceIdentity, key1: AccountKey
) -> None:
    event = {**events_for(phone, 1)[0], "hlc": HLC(5, 0, laptop.device_id).encode()}
    forged = forge(phone, key1, claimed_device=phone.device_id, events=[event])
    assert reason_of(forged, [laptop, phone], [key1]) is RejectReason.WRONG_SENDER


def test_a_batch_from_a_removed_device_is_refused(
    laptop: DeviceIdentity, phone: DeviceIdentity, key1: AccountKey
) -> None:
    data = seal_batch(phone, key1, 1, events_for(phone, 1))
    reason = reason_of(data, [laptop, phone], [key1], removed={phone.device_id})
    assert reason is RejectReason.REMOVED_DEVICE


def test_a_batch_from_an_unpaired_device_is_refused(
    laptop: DeviceIdentity, mallory: DeviceIdentity, key1: AccountKey
) -> None:
    data = seal_batch(mallory, key1, 1, events_for(mallory, 1))
    assert reason_of(data, [laptop], [key1]) is RejectReason.UNKNOWN_DEVICE


def test_a_batch_copied_into_another_devices_folder_is_refused(
    laptop: DeviceIdentity, phone: DeviceIdentity, key1: AccountKey
) -> None:
    data = seal_batch(laptop, key1, 1, events_for(laptop, 1))
    reason = reason_of(data, [laptop, phone], [key1], expected_device=phone.device_id)
    assert reason is RejectReason.MISPLACED
    assert open_as(data, [laptop, phone], [key1], expected_device=laptop.device_id).batch_seq == 1


# --- replay and order -----------------------------------------------------------------------


def test_a_replayed_batch_is_refused(laptop: DeviceIdentity, key1: AccountKey) -> None:
    first = seal_batch(laptop, key1, 1, events_for(laptop, 1))
    second = seal_batch(laptop, key1, 2, events_for(laptop, 1, first_seq=2))
    seen = {laptop.device_id: 2}
    assert reason_of(second, [laptop], [key1], seen=seen) is RejectReason.REPLAY
    assert reason_of(first, [laptop], [key1], seen=seen) is RejectReason.REPLAY


def test_a_batch_that_skips_ahead_waits_for_the_missing_one(laptop: DeviceIdentity, key1: AccountKey) -> None:
    third = seal_batch(laptop, key1, 3, events_for(laptop, 1))
    with pytest.raises(SyncRejected) as caught:
        open_as(third, [laptop], [key1], seen={laptop.device_id: 1})
    assert caught.value.reason is RejectReason.GAP and caught.value.retryable
    assert (
        open_as(third, [laptop], [key1], seen={laptop.device_id: 1}, require_contiguous=False).batch_seq == 3
    )


# --- malformed bodies signed by a trusted device --------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b'[{"device":1}',  # not JSON
        b'{"not":"a list"}',
        b"[ ]",  # JSON but not canonical
        b"[NaN]",
        b"\xff\xfe",
    ],
)
def test_a_signed_body_that_is_not_canonical_json_is_refused(
    laptop: DeviceIdentity, key1: AccountKey, body: bytes
) -> None:
    forged = forge(laptop, key1, claimed_device=laptop.device_id, body=body, count=0)
    assert reason_of(forged, [laptop], [key1]) is RejectReason.MALFORMED


def test_a_wrong_event_count_or_out_of_order_events_are_refused(
    laptop: DeviceIdentity, key1: AccountKey
) -> None:
    events = events_for(laptop, 2)
    wrong_count = forge(laptop, key1, claimed_device=laptop.device_id, events=events, count=3)
    assert reason_of(wrong_count, [laptop], [key1]) is RejectReason.MALFORMED
    reordered = forge(laptop, key1, claimed_device=laptop.device_id, events=events[::-1])
    assert reason_of(reordered, [laptop], [key1]) is RejectReason.MALFORMED
    extra_field = [{**events[0], "extra": 1}]
    forged = forge(laptop, key1, claimed_device=laptop.device_id, events=extra_field, count=1)
    assert reason_of(forged, [laptop], [key1]) is RejectReason.MALFORMED


def test_sealing_refuses_events_that_are_not_plain_json(laptop: DeviceIdentity, key1: AccountKey) -> None:
    event = events_for(laptop, 1)[0]
    with pytest.raises(InvalidInputError):
        seal_batch(laptop, key1, 1, [{**event, "payload": {"x": float("nan")}}])
    with pytest.raises(InvalidInputError):
        seal_batch(laptop, key1, 1, [{**event, "payload": {"x": object()}}])
    with pytest.raises(InvalidInputError):
        seal_batch(laptop, key1, 0, [event])


# --- key epochs -----------------------------------------------------------------------------


def test_after_rotation_each_key_opens_only_its_own_epoch(laptop: DeviceIdentity, key1: AccountKey) -> None:
    key2 = key1.rotate()
    old = seal_batch(laptop, key1, 1, events_for(laptop, 1))
    new = seal_batch(laptop, key2, 2, events_for(laptop, 1, first_seq=2))
    assert reason_of(new, [laptop], [key1], seen={laptop.device_id: 1}) is RejectReason.UNKNOWN_EPOCH
    assert reason_of(old, [laptop], [key2]) is RejectReason.UNKNOWN_EPOCH
    assert open_as(old, [laptop], [key1, key2]).epoch == 1
    assert open_as(new, [laptop], [key1, key2], seen={laptop.device_id: 1}).epoch == 2


def test_two_different_keys_for_one_epoch_read_as_a_missing_key_not_as_tampering(
    laptop: DeviceIdentity, key1: AccountKey
) -> None:
    # Two devices rotated at the same time: same epoch number, different keys.
    rival = AccountKey(2, os.urandom(32))
    data = seal_batch(laptop, rival, 1, [])
    assert reason_of(data, [laptop], [key1, key1.rotate()]) is RejectReason.UNKNOWN_EPOCH


def test_a_refusal_is_a_typed_sync_error_with_a_message_and_exit_code(
    laptop: DeviceIdentity, key1: AccountKey
) -> None:
    with pytest.raises(SyncError) as caught:
        open_as(b"garbage!", [laptop], [key1])
    assert isinstance(caught.value, SyncRejected)
    assert caught.value.exit_code is ExitCode.SYNC_ERROR
    assert caught.value.reason_code == "bad_magic"
    assert "not a VeraMem batch" in str(caught.value)


def test_an_opened_batch_carries_each_events_clock_as_its_encoding_reads(
    laptop: DeviceIdentity, key1: AccountKey
) -> None:
    """Opening reads every event's clock once (checking it); applying takes them from the opened batch."""
    events = events_for(laptop, 5)
    opened = open_as(seal_batch(laptop, key1, 1, events), [laptop], [key1])
    assert list(opened.clocks) == [HLC.parse(e["hlc"]) for e in events]
    assert all(c.device == laptop.device_id for c in opened.clocks)
