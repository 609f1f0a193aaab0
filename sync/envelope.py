"""The batch envelope: a device's events, signed, then sealed, as one versioned file.

Layout (big-endian)::

    MAGIC "VMS1" | version (1) | epoch (u32) | key id (8) | sender device id (8)
    | batch seq (u64) | event count (u32) | sealed length (u32) | sealed

    sealed = SecretBox(batch key, random nonce)[ signature (64) | body ]
    body   = canonical JSON list of events
    signature = Ed25519 over (context | header | body) by the sender

The header is in clear so a reader knows which key and which device to check against,
and it is bound twice: the batch key is a keyed hash of the header under the epoch's
envelope subkey (so any change to the header breaks the MAC), and the sender's
signature covers it (so a device holding the shared key still cannot relabel another
device's batch). The sealed length makes a partly copied file read as "truncated",
which the caller retries, rather than as tampering.

``open_batch`` refuses with :class:`SyncRejected` and a reason; nothing from a refused
file is returned.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from nacl.exceptions import CryptoError
from nacl.secret import SecretBox
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.storage.canonical import canonical_json
from veramem_desktop.sync.canonical_fast import canonical_bytes, value_if_canonical
from veramem_desktop.sync.errors import RejectReason, SyncRejected
from veramem_desktop.sync.hlc import HLC, ClockError
from veramem_desktop.sync.keys import (
    AccountKey,
    DeviceIdentity,
    Purpose,
    Random,
    keyed_hash,
    verify_signature,
)

MAGIC = b"VMS1"
VERSION = 1
_HEADER = struct.Struct(">4sBI8s8sQII")
HEADER_SIZE = _HEADER.size
SIGNATURE_SIZE = 64
_SEAL_OVERHEAD = SecretBox.NONCE_SIZE + SecretBox.MACBYTES
MIN_SEALED = _SEAL_OVERHEAD + SIGNATURE_SIZE + len(b"[]")
MAX_SEALED = 64 * 1024 * 1024  # a batch file larger than this is refused unread
MAX_OP_LENGTH = 64
_SIGNATURE_CONTEXT = b"veramem-sync batch v1\x00"
EVENT_FIELDS = frozenset({"device", "seq", "hlc", "op", "payload"})


@dataclass(frozen=True)
class BatchHeader:
    epoch: int
    key_id: bytes
    device_id: str
    batch_seq: int
    count: int
    sealed_len: int

    def pack(self) -> bytes:
        return _HEADER.pack(
            MAGIC,
            VERSION,
            self.epoch,
            self.key_id,
            bytes.fromhex(self.device_id),
            self.batch_seq,
            self.count,
            self.sealed_len,
        )

    @classmethod
    def unpack(cls, data: bytes) -> BatchHeader:
        _magic, _version, epoch, key_id, device, batch_seq, count, sealed_len = _HEADER.unpack_from(data)
        return cls(epoch, key_id, device.hex(), batch_seq, count, sealed_len)


@dataclass(frozen=True)
class OpenedBatch:
    """A batch that passed every check."""

    device_id: str
    epoch: int
    batch_seq: int
    events: tuple[dict[str, Any], ...]
    #: each event's clock, read while checking it (so applying does not read it again)
    clocks: tuple[HLC, ...] = field(default=(), compare=False)


def make_event(device: str, seq: int, hlc: HLC, op: str, payload: dict[str, Any]) -> dict[str, Any]:
    """An event as it travels: who made it, its per-device number, its clock, what it does."""
    event = event_for_sealing(device, seq, hlc.encode(), op, payload)
    check_event(event, device)
    return event


def event_for_sealing(device: str, seq: int, hlc: str, op: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The event of :func:`make_event` without checking it here, its clock already encoded
    (:meth:`HLC.encode`): for events that go straight into :func:`seal_batch`, which checks every
    event it seals."""
    return {"device": device, "seq": seq, "hlc": hlc, "op": op, "payload": payload}


def check_event(event: object, sender: str) -> HLC:
    """Refuse an event that is malformed or claims another device than ``sender``; returns its clock."""
    if not isinstance(event, dict) or event.keys() != EVENT_FIELDS:
        raise SyncRejected(RejectReason.MALFORMED, f"An event from device {sender} has the wrong fields.")
    if event["device"] != sender:
        raise SyncRejected(
            RejectReason.WRONG_SENDER,
            f"A batch from device {sender} carries an event of device {event['device']!r}; it was refused.",
        )
    seq = event["seq"]
    if not isinstance(seq, int) or isinstance(seq, bool) or not 1 <= seq < 2**63:
        raise SyncRejected(
            RejectReason.MALFORMED, f"An event from device {sender} has a bad sequence number."
        )
    try:
        clock = HLC.parse(event["hlc"])
    except ClockError:
        raise SyncRejected(
            RejectReason.MALFORMED, f"An event from device {sender} has a bad clock."
        ) from None
    if clock.device != sender:
        raise SyncRejected(
            RejectReason.WRONG_SENDER, f"An event from device {sender} carries the clock of another device."
        )
    op = event["op"]
    if not isinstance(op, str) or not 0 < len(op) <= MAX_OP_LENGTH:
        raise SyncRejected(RejectReason.MALFORMED, f"An event from device {sender} has a bad operation name.")
    if not isinstance(event["payload"], dict):
        raise SyncRejected(
            RejectReason.MALFORMED, f"An event from device {sender} has a payload that is not an object."
        )
    return clock


def _check_events(events: Sequence[object], sender: str) -> list[HLC]:
    """Check every event and their order; returns their clocks."""
    previous = 0
    clocks = []
    for event in events:
        clocks.append(check_event(event, sender))
        assert isinstance(event, dict)
        if event["seq"] <= previous:
            raise SyncRejected(
                RejectReason.MALFORMED, f"Events in a batch from device {sender} are not in sequence order."
            )
        previous = event["seq"]
    return clocks


def _batch_box(account_key: AccountKey, header: bytes) -> SecretBox:
    return SecretBox(keyed_hash(account_key.subkey(Purpose.BATCH), header))


def seal_batch(
    identity: DeviceIdentity,
    account_key: AccountKey,
    batch_seq: int,
    events: Sequence[dict[str, Any]],
    *,
    rng: Random = os.urandom,
) -> bytes:
    """Sign and seal ``events`` of this device as batch number ``batch_seq`` (from 1)."""
    device_id = identity.device_id
    if not 1 <= batch_seq < 2**64:
        raise InvalidInputError(f"Batch sequence {batch_seq} is out of range (1 and up).")
    try:
        _check_events(events, device_id)
    except SyncRejected as exc:
        raise InvalidInputError(f"Cannot seal this batch: {exc.message}") from None
    try:
        body = canonical_bytes(list(events))  # canonical_json's bytes and errors (sync/canonical_fast.py)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"Cannot seal this batch: an event is not plain JSON ({exc}).") from None
    header = BatchHeader(
        epoch=account_key.epoch,
        key_id=account_key.key_id,
        device_id=device_id,
        batch_seq=batch_seq,
        count=len(events),
        sealed_len=_SEAL_OVERHEAD + SIGNATURE_SIZE + len(body),
    )
    if header.sealed_len > MAX_SEALED:
        raise InvalidInputError("This batch is too large; split it into smaller batches.")
    header_bytes = header.pack()
    signature = identity.sign(_SIGNATURE_CONTEXT + header_bytes + body)
    return _seal(header_bytes, account_key, signature + body, rng)


def _seal(header_bytes: bytes, account_key: AccountKey, plain: bytes, rng: Random) -> bytes:
    sealed = _batch_box(account_key, header_bytes).encrypt(plain, rng(SecretBox.NONCE_SIZE))
    return header_bytes + bytes(sealed)


def read_header(data: bytes) -> BatchHeader:
    """The clear header of a batch file, after the structural checks (nothing is trusted yet)."""
    if len(data) < len(MAGIC):
        if MAGIC.startswith(data):
            raise SyncRejected(
                RejectReason.TRUNCATED, "A batch file is incomplete; it will be read again later."
            )
        raise SyncRejected(RejectReason.BAD_MAGIC, "A file in the sync folder is not a VeraMem batch.")
    if data[: len(MAGIC)] != MAGIC:
        raise SyncRejected(RejectReason.BAD_MAGIC, "A file in the sync folder is not a VeraMem batch.")
    if len(data) <= len(MAGIC):
        raise SyncRejected(RejectReason.TRUNCATED, "A batch file is incomplete; it will be read again later.")
    if data[len(MAGIC)] != VERSION:
        raise SyncRejected(
            RejectReason.BAD_VERSION,
            f"A batch file has format version {data[len(MAGIC)]}; update VeraMem on this device to read it.",
        )
    if len(data) < HEADER_SIZE:
        raise SyncRejected(RejectReason.TRUNCATED, "A batch file is incomplete; it will be read again later.")
    header = BatchHeader.unpack(data)
    if header.sealed_len > MAX_SEALED:
        raise SyncRejected(RejectReason.TOO_LARGE, f"A batch file of device {header.device_id} is too large.")
    if len(data) < HEADER_SIZE + header.sealed_len:
        raise SyncRejected(RejectReason.TRUNCATED, "A batch file is incomplete; it will be read again later.")
    if len(data) > HEADER_SIZE + header.sealed_len or header.sealed_len < MIN_SEALED:
        raise SyncRejected(
            RejectReason.MALFORMED, f"A batch file of device {header.device_id} has a bad length."
        )
    return header


def open_batch(
    data: bytes,
    account_keys_by_epoch: Mapping[int, AccountKey],
    trusted_devices: Mapping[str, bytes],
    removed: AbstractSet[str],
    seen: Mapping[str, int],
    *,
    expected_device: str | None = None,
    require_contiguous: bool = True,
) -> OpenedBatch:
    """Check and open one batch file.

    ``trusted_devices`` maps device id to verify key; ``seen`` maps device id to the
    highest batch sequence already applied. With ``require_contiguous`` a batch that
    skips ahead is refused as a (retryable) gap, so batches apply in order.
    ``expected_device`` is the device whose folder the file was found in.
    """
    header = read_header(data)
    key = account_keys_by_epoch.get(header.epoch)
    if key is None or key.key_id != header.key_id:
        raise SyncRejected(
            RejectReason.UNKNOWN_EPOCH,
            f"A batch of device {header.device_id} is sealed with a key this device does not have "
            f"(epoch {header.epoch}). If a device was removed or added recently, wait for its key to arrive.",
        )
    header_bytes = data[:HEADER_SIZE]
    try:
        plain = _batch_box(key, header_bytes).decrypt(data[HEADER_SIZE:])
    except CryptoError:
        raise SyncRejected(
            RejectReason.MAC_FAILURE,
            "A batch file was altered after it was written (its authentication failed); it was refused.",
        ) from None
    # From here on the header is authentic for anyone holding the account key.
    sender = header.device_id
    if expected_device is not None and expected_device != sender:
        raise SyncRejected(
            RejectReason.MISPLACED,
            f"A batch of device {sender} was found in the folder of device {expected_device}.",
        )
    if sender in removed:
        raise SyncRejected(
            RejectReason.REMOVED_DEVICE, f"A batch comes from removed device {sender}; it was refused."
        )
    verify_key = trusted_devices.get(sender)
    if verify_key is None:
        raise SyncRejected(
            RejectReason.UNKNOWN_DEVICE,
            f"A batch comes from device {sender}, which is not paired with this one. Pair it, or remove its folder.",
        )
    signature, body = plain[:SIGNATURE_SIZE], plain[SIGNATURE_SIZE:]
    if not verify_signature(verify_key, _SIGNATURE_CONTEXT + header_bytes + body, signature):
        raise SyncRejected(
            RejectReason.BAD_SIGNATURE, f"A batch claiming to be from device {sender} has a forged signature."
        )
    events, clocks = _parse_body(body, sender, header.count)
    last = seen.get(sender, 0)
    if header.batch_seq <= last:
        raise SyncRejected(
            RejectReason.REPLAY,
            f"Batch {header.batch_seq} of device {sender} was already applied; this copy was refused as a replay.",
        )
    if require_contiguous and header.batch_seq != last + 1:
        raise SyncRejected(
            RejectReason.GAP,
            f"Batch {header.batch_seq} of device {sender} arrived before batch {last + 1}; it will be read later.",
        )
    return OpenedBatch(sender, header.epoch, header.batch_seq, tuple(events), tuple(clocks))


def _parse_body(body: bytes, sender: str, count: int) -> tuple[list[dict[str, Any]], list[HLC]]:
    # Only the canonical encoding is accepted, so one batch has one meaning (no
    # duplicate keys, no alternative spellings of the same value, no NaN). The one
    # encoder of core.canonical writes the same bytes as sync.keys.canonical_json
    # (which signs key grants) without building an encoder per call; decoding and
    # encoding back once is the check, the events are then checked in one loop.
    # sync/canonical_fast.py answers the same question faster where it can vouch for a body.
    fast = value_if_canonical(body)
    if isinstance(fast, list):
        events: list[Any] = fast
    else:
        try:
            decoded = json.loads(body.decode("utf-8"))
            canonical = isinstance(decoded, list) and canonical_json(decoded) == body
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise SyncRejected(
                RejectReason.MALFORMED, f"A batch of device {sender} is not valid JSON."
            ) from None
        if not canonical:
            raise SyncRejected(RejectReason.MALFORMED, f"A batch of device {sender} is not canonical JSON.")
        events = decoded
    if len(events) != count:
        raise SyncRejected(RejectReason.MALFORMED, f"A batch of device {sender} has the wrong event count.")
    clocks = _check_events(events, sender)
    checked: list[dict[str, Any]] = events
    return checked, clocks
