"""Signed ledger heads: each device says where its ledger ends and where it saw each peer's end.

On every exchange a device rewrites one small file, ``devices/<id>/heads/head.vmh``:

    MAGIC "VMH1" | version (1) | epoch (u32) | key id (8) | device id (8)
    | SecretBox(keyed_hash(subkey "ledger-head", header))[ signature (64) | body ]

    body = canonical JSON {"seq", "hash", "batch", "hlc", "seen": {device: {"seq", "hash"}}}
    signature = Ed25519 over (context | header | body) by the device

``seq``/``hash`` are the last entry of the device's own ledger, ``batch`` the last batch
it wrote, ``hlc`` its clock when it wrote the file, ``seen`` the head of every peer's
chain as it received it (the ``sync_chains`` table). Nothing in it is content.

Each reader checks two things (:func:`check`):

- the peer's own head against the chain received from it: once the statement is newer
  than every event applied from that peer (its clock is later), its ledger cannot end
  before the entry already received, nor end there with another hash. Either means the
  peer's ledger was rolled back (an older copy restored, entries cut off) or rewritten,
  even where its own ``verify`` passes, because the whole chain was recomputed;
- what the peer saw of this device's chain against this device's ledger: an entry the
  peer received must still be here, unchanged.

Problems are recorded (``sync_chains.problem`` for a peer, a meta key for this device),
listed by ``sync status`` and returned in the run report. Pure checks over values; the
file IO is in :func:`write` and :func:`read`. This device's ledger is read through
core/storage/ledger_feed.py; the SQL here is on sync's own ``sync_chains`` table only.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nacl.exceptions import CryptoError
from nacl.secret import SecretBox
from veramem_desktop.core.errors import SyncError
from veramem_desktop.core.storage import ledger_feed
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.sync import batchfile, registry
from veramem_desktop.sync.errors import RejectReason, SyncRejected
from veramem_desktop.sync.hlc import HLC, ClockError
from veramem_desktop.sync.keys import (
    AccountKey,
    DeviceIdentity,
    canonical_json,
    derive,
    keyed_hash,
    verify_signature,
)

MAGIC = b"VMH1"
VERSION = 1
_HEADER = struct.Struct(">4sBI8s8s")
HEADER_SIZE = _HEADER.size
SIGNATURE_SIZE = 64
PURPOSE = "ledger-head"
_CONTEXT = b"veramem-sync ledger head v1\x00"
HEADS_DIR = "heads"
HEAD_FILE = "head.vmh"
MAX_HEAD_FILE = 256 * 1024

#: meta key prefix: the clock of the last event applied from a device (a head must be newer to be judged)
META_APPLIED_HLC = "sync_applied_hlc:"
#: meta key: what a peer found wrong with this device's own ledger (empty when nothing)
META_OWN_PROBLEM = "sync_own_chain_problem"


@dataclass(frozen=True)
class Head:
    device: str
    seq: int
    hash: str
    batch: int
    hlc: HLC
    seen: dict[str, tuple[int, str]]

    def body(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "hash": self.hash,
            "batch": self.batch,
            "hlc": self.hlc.encode(),
            "seen": {d: {"seq": s, "hash": h} for d, (s, h) in sorted(self.seen.items())},
        }


@dataclass(frozen=True)
class Problem:
    device: str  # whose ledger is wrong (this device's own id when a peer caught it)
    reason: str  # "rolled_back" | "rewritten"
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"device": self.device, "reason": self.reason, "message": self.message}


# --- this device's statement -------------------------------------------------------------


def build(conn: Connection, me: str, now_ms: int) -> Head:
    """This device's head now (ticks its clock; call inside a write transaction)."""
    seq, digest = ledger_feed.head(conn)
    batch = int(registry.get_meta(conn, registry.META_NEXT_BATCH) or 1) - 1
    stamp = registry.clock(conn, me).tick(now_ms)
    registry.set_clock(conn, stamp)
    seen = {
        str(device_id): (int(seq), str(hash))
        for device_id, seq, hash in conn.execute(
            "SELECT device_id, seq, hash FROM sync_chains WHERE seq > 0"
        ).fetchall()
    }  # the last good entry received
    return Head(me, seq, digest, batch, stamp, seen)


def seal(identity: DeviceIdentity, key: AccountKey, head: Head) -> bytes:
    header = _HEADER.pack(MAGIC, VERSION, key.epoch, key.key_id, bytes.fromhex(identity.device_id))
    body = canonical_json(head.body())
    signature = identity.sign(_CONTEXT + header + body)
    box = SecretBox(keyed_hash(derive(key.key, PURPOSE), header))
    return header + bytes(box.encrypt(signature + body, os.urandom(SecretBox.NONCE_SIZE)))


def open_head(
    data: bytes,
    keys: Mapping[tuple[int, bytes], AccountKey],
    trusted: Mapping[str, bytes],
    expected_device: str,
) -> Head:
    """Check and read a head file of ``expected_device``; refuses with :class:`SyncRejected`."""
    if (
        len(data) < HEADER_SIZE + SecretBox.NONCE_SIZE + SecretBox.MACBYTES + SIGNATURE_SIZE
        or data[:4] != MAGIC
        or data[4] != VERSION
    ):
        raise SyncRejected(
            RejectReason.MALFORMED,
            f"The ledger head file of device {expected_device} is not one this version of VeraMem reads.",
        )
    _magic, _version, epoch, key_id, device = _HEADER.unpack_from(data)
    key = keys.get((epoch, key_id))
    if key is None:
        raise SyncRejected(
            RejectReason.UNKNOWN_EPOCH,
            f"The ledger head of device {expected_device} is sealed "
            "with a key this device does not have yet.",
        )
    header = data[:HEADER_SIZE]
    try:
        plain = SecretBox(keyed_hash(derive(key.key, PURPOSE), header)).decrypt(data[HEADER_SIZE:])
    except CryptoError:
        raise SyncRejected(
            RejectReason.MAC_FAILURE,
            f"The ledger head file of device {expected_device} was altered after it was written.",
        ) from None
    if device.hex() != expected_device:
        raise SyncRejected(
            RejectReason.MISPLACED,
            f"A ledger head of device {device.hex()} was found in the folder of device {expected_device}.",
        )
    verify_key = trusted.get(expected_device)
    signature, body = plain[:SIGNATURE_SIZE], plain[SIGNATURE_SIZE:]
    if verify_key is None or not verify_signature(verify_key, _CONTEXT + header + body, signature):
        raise SyncRejected(
            RejectReason.BAD_SIGNATURE,
            f"The ledger head claiming to be from device {expected_device} has no valid signature.",
        )
    try:
        raw = json.loads(body.decode("utf-8"))
        if canonical_json(raw) != body:
            raise ValueError("not canonical")
        head = Head(
            expected_device,
            _count(raw["seq"]),
            _digest(raw["hash"]),
            _count(raw["batch"]),
            HLC.parse(raw["hlc"]),
            {str(d): (_count(v["seq"]), _digest(v["hash"])) for d, v in dict(raw["seen"]).items()},
        )
    except (KeyError, TypeError, ValueError, AttributeError, UnicodeDecodeError, RecursionError, ClockError):
        raise SyncRejected(
            RejectReason.MALFORMED, f"The ledger head of device {expected_device} is malformed."
        ) from None
    if head.hlc.device != expected_device:
        raise SyncRejected(
            RejectReason.MALFORMED,
            f"The ledger head of device {expected_device} carries another device's clock.",
        )
    return head


def _count(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
        raise ValueError("not a count")
    return value


def _digest(value: object) -> str:
    if not isinstance(value, str) or len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise ValueError("not a hash")
    return value


# --- files -------------------------------------------------------------------------------


def head_path(folder: Path, device_id: str) -> Path:
    return batchfile.device_dir(folder, device_id) / HEADS_DIR / HEAD_FILE


def write(folder: Path, device_id: str, data: bytes) -> Path:
    path = head_path(folder, device_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    return batchfile.atomic_write(path, data)


def read(folder: Path, device_id: str) -> bytes | None:
    """The bytes of a device's head file, None when it has none (yet) or it cannot be read."""
    path = head_path(folder, device_id)
    if not path.is_file() or path.is_symlink():
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_HEAD_FILE + 1)
    except OSError:
        return None
    if len(data) > MAX_HEAD_FILE:
        raise SyncRejected(
            RejectReason.TOO_LARGE, f"The ledger head file of device {device_id} is too large."
        )
    return data


# --- checks ------------------------------------------------------------------------------


def check_peer(head: Head, held: tuple[int, str] | None, applied_hlc: HLC | None) -> Problem | None:
    """The peer's own head against the chain received from it (``held``: seq and hash of the last
    entry applied; ``applied_hlc``: the clock of the last event applied from it)."""
    if held is None or held[0] <= 0 or applied_hlc is None or head.hlc <= applied_hlc:
        return None  # nothing received yet, or this statement is older than what was (a late copy)
    seq, digest = held
    if head.seq < seq:
        return Problem(
            head.device,
            "rolled_back",
            f"Device {head.device}'s ledger now ends at entry {head.seq}, but this device already "
            f"received entry {seq} from it: its ledger was rolled back (an older copy restored, or "
            "entries cut off).",
        )
    if head.seq == seq and head.hash != digest:
        return Problem(
            head.device,
            "rewritten",
            f"Device {head.device}'s ledger entry {seq} is not the one this device received from it: "
            "its ledger was rewritten.",
        )
    return None


def check_own(head: Head, me: str, mine: Mapping[int, str], own_seq: int) -> Problem | None:
    """What ``head``'s device saw of this device's chain against this device's ledger
    (``mine``: hash by seq of the entries it names; ``own_seq``: the last entry here)."""
    saw = head.seen.get(me)
    if saw is None or saw[0] <= 0:
        return None
    seq, digest = saw
    if seq > own_seq:
        return Problem(
            me,
            "rolled_back",
            f"Device {head.device} already received entry {seq} of this device's ledger, but the "
            f"ledger here ends at entry {own_seq}: it was rolled back (an older copy restored, or "
            "entries cut off).",
        )
    if mine.get(seq) != digest:
        return Problem(
            me,
            "rewritten",
            f"Entry {seq} of this device's ledger is not the one device {head.device} received: the "
            "ledger here was rewritten.",
        )
    return None


def check(store: Store, folder: Path, me: str) -> list[Problem]:
    """Read every trusted peer's head file; record and return the problems found."""
    keys = {(k.epoch, k.key_id): k for k in registry.keys(store)}
    peers = {d.device_id: d.verify_key for d in registry.active_devices(store) if d.device_id != me}
    chains = {
        str(device_id): (int(seq), str(hash), problem)
        for device_id, seq, hash, problem in store.query(
            "SELECT device_id, seq, hash, problem FROM sync_chains"
        )
    }
    with store.read() as conn:
        own_seq, _ = ledger_feed.head(conn)
    found: list[Problem] = []
    own: Problem | None = None
    witnessed = False
    for device_id in sorted(peers):
        try:
            data = read(folder, device_id)
            if data is None:
                continue
            head = open_head(data, keys, peers, device_id)
        except (SyncRejected, SyncError):
            continue  # advisory: a peer whose files are refused is reported through its batches
        chain = chains.get(device_id)
        if chain is not None and chain[2] is None:  # a chain already known broken keeps its first problem
            applied = registry.get_meta(store, META_APPLIED_HLC + device_id)
            problem = check_peer(head, (chain[0], chain[1]), HLC.parse(applied) if applied else None)
            if problem is not None:
                found.append(problem)
                with store.atomic() as conn:
                    conn.execute(
                        "UPDATE sync_chains SET problem = ? WHERE device_id = ? AND problem IS NULL",
                        (problem.message, device_id),
                    )
        saw = head.seen.get(me)
        if saw is not None and own is None:
            witnessed = True
            with store.read() as conn:
                digest = ledger_feed.hash_at(conn, saw[0])
            own = check_own(head, me, {saw[0]: digest} if digest is not None else {}, own_seq)
    if own is not None:
        found.append(own)
        with store.atomic() as conn:
            registry.set_meta(conn, META_OWN_PROBLEM, own.message)
    elif witnessed and own_problem(store):  # every peer that saw this chain finds it whole again
        with store.atomic() as conn:
            registry.delete_meta(conn, META_OWN_PROBLEM)
    return found


def note_applied(conn: Connection, sender: str, last_hlc: str) -> None:
    """Remember the clock of the last event applied from ``sender`` (inside the apply transaction)."""
    registry.set_meta(conn, META_APPLIED_HLC + sender, last_hlc)


def own_problem(store: Store) -> str | None:
    return registry.get_meta(store, META_OWN_PROBLEM) or None
