"""Pairing a new device through the shared folder, as pure steps over messages.

Three messages, each a small JSON file that only its writer writes:

1. **join request** (new device J): request id, a public tag, J's device record (id,
   verify key, box key, name), SPAKE2 message A, created/expiry times, J's signature.
   J shows the one-time code ``TT-SSSS-SSSS`` to the person.
2. **approval** (trusted device A, after the person typed the code): SPAKE2 message B,
   A's device record, a key-confirmation MAC over the transcript, and the account
   keys plus the device list, sealed to J's box key and then with a key derived from
   the SPAKE2 session key.
3. **confirmation** (J): J's key-confirmation MAC over the same transcript. Only then
   does A return J's device record for the caller to add to the trusted devices.

Why a folder reader cannot guess the code: the code is never written anywhere, and
what the folder holds (SPAKE2 messages, MACs, ciphertexts) cannot be checked against
a guessed code without solving a Diffie-Hellman problem. An attacker who also writes
to the folder can take part in one exchange with one guessed code per pairing attempt
(each side runs SPAKE2 once and then stops), and the secret part of the code has 40
bits, so one guess succeeds with probability about 1 in 10^12.

The 2-character tag (10 bits, public) only picks the request among those pending; the
approver refuses to answer when two pending requests share a tag, so an attacker
cannot win extra guesses by flooding the folder with requests.

Why a swapped public key fails: the transcript hashed into both MACs contains the
request exactly as J wrote it (J keeps its own copy) and the approver's record. If
someone replaces J's keys in the folder, J's MAC check fails and J stops; J's
confirmation would not verify for A either, so A never trusts the swapped key, and the
sealed keys are addressed to the swapped box key and under a session key the swapper
does not have.
"""

from __future__ import annotations

import hmac
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from nacl.exceptions import CryptoError
from nacl.public import PublicKey, SealedBox
from nacl.secret import SecretBox
from spake2 import SPAKE2_A, SPAKE2_B
from spake2.spake2 import SPAKEError
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.sync.errors import PairingFailed, PairingFailure
from veramem_desktop.sync.keys import (
    AccountKey,
    DeviceIdentity,
    DevicePublic,
    Purpose,
    Random,
    canonical_json,
    check_device_id,
    derive,
    keyed_hash,
    verify_signature,
)

PROTOCOL_VERSION = 1
REQUEST_TTL_MS = 10 * 60 * 1000
# How far a request's creation time may be ahead of the approver's clock.
MAX_CLOCK_SKEW_MS = 5 * 60 * 1000
# How long after the request expires the approver still waits for the confirmation
# (the file-sync engine needs time to carry it back).
CONFIRM_GRACE_MS = 5 * 60 * 1000
MAX_MESSAGE_BYTES = 256 * 1024

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
TAG_CHARS = 2
SECRET_CHARS = 8
_CONFUSABLE = str.maketrans({"O": "0", "I": "1", "L": "1"})

_ID_JOINER = b"veramem-pair-joiner:"
_ID_APPROVER = b"veramem-pair-approver"
_REQUEST_SIG_CONTEXT = b"veramem-pair join-request v1\x00"
_TRANSCRIPT_CONTEXT = b"veramem-pair transcript v1\x00"
SPAKE_MESSAGE_BYTES = 33
REQUEST_ID_BYTES = 16
MAC_BYTES = 32


def _fail(reason: PairingFailure, message: str) -> PairingFailed:
    return PairingFailed(reason, message)


# --- the one-time code -----------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class PairingCode:
    """``tag`` picks the join request (public); ``secret`` is the SPAKE2 password (40 bits)."""

    tag: str
    secret: str

    @classmethod
    def generate(cls, *, rng: Random = os.urandom) -> PairingCode:
        # 256 is a multiple of 32, so each byte's low five bits are uniform.
        chars = "".join(CROCKFORD[b & 31] for b in rng(TAG_CHARS + SECRET_CHARS))
        return cls(chars[:TAG_CHARS], chars[TAG_CHARS:])

    @classmethod
    def parse(cls, text: str) -> PairingCode:
        """Read a typed code: case, dashes and spaces do not matter; O reads as 0, I and L as 1."""
        cleaned = "".join(text.split()).replace("-", "").upper().translate(_CONFUSABLE)
        if len(cleaned) != TAG_CHARS + SECRET_CHARS or any(c not in CROCKFORD for c in cleaned):
            raise _fail(
                PairingFailure.BAD_CODE_FORMAT,
                "That is not a pairing code. It looks like AB-CDEF-GHJK: type it as shown on the new device.",
            )
        return cls(cleaned[:TAG_CHARS], cleaned[TAG_CHARS:])

    def display(self) -> str:
        return f"{self.tag}-{self.secret[:4]}-{self.secret[4:]}"

    def password(self) -> bytes:
        return b"veramem-pair-v1|" + (self.tag + self.secret).encode("ascii")

    def __repr__(self) -> str:
        return f"PairingCode(tag={self.tag!r}, secret=<hidden>)"


# --- messages ---------------------------------------------------------------------------


@dataclass(frozen=True)
class JoinRequest:
    request_id: str
    tag: str
    device: DevicePublic
    spake_msg: bytes
    created_ms: int
    expires_ms: int
    signature: bytes

    def signed_part(self) -> dict[str, Any]:
        return {
            "v": PROTOCOL_VERSION,
            "type": "join",
            "request_id": self.request_id,
            "tag": self.tag,
            "device": self.device.to_json(),
            "spake": self.spake_msg.hex(),
            "created_ms": self.created_ms,
            "expires_ms": self.expires_ms,
        }

    def to_json(self) -> dict[str, Any]:
        return {**self.signed_part(), "sig": self.signature.hex()}

    def to_bytes(self) -> bytes:
        return canonical_json(self.to_json())

    @classmethod
    def from_bytes(cls, data: bytes) -> JoinRequest:
        obj = _load(data, "join", {"request_id", "tag", "device", "spake", "created_ms", "expires_ms", "sig"})
        try:
            tag = obj["tag"]
            if not isinstance(tag, str) or len(tag) != TAG_CHARS or any(c not in CROCKFORD for c in tag):
                raise InvalidInputError("bad tag")
            return cls(
                request_id=_request_id(obj["request_id"]),
                tag=tag,
                device=DevicePublic.from_json(obj["device"]),
                spake_msg=_hex_field(obj["spake"], SPAKE_MESSAGE_BYTES),
                created_ms=_int_field(obj["created_ms"]),
                expires_ms=_int_field(obj["expires_ms"]),
                signature=_hex_field(obj["sig"], 64),
            )
        except InvalidInputError as exc:
            raise _fail(
                PairingFailure.MALFORMED, f"A join request in the folder is malformed ({exc})."
            ) from None


@dataclass(frozen=True)
class Approval:
    request_id: str
    approver: DevicePublic
    spake_msg: bytes
    confirm: bytes
    sealed: bytes

    def to_bytes(self) -> bytes:
        return canonical_json(
            {
                "v": PROTOCOL_VERSION,
                "type": "approval",
                "request_id": self.request_id,
                "approver": self.approver.to_json(),
                "spake": self.spake_msg.hex(),
                "confirm": self.confirm.hex(),
                "sealed": self.sealed.hex(),
            }
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> Approval:
        obj = _load(data, "approval", {"request_id", "approver", "spake", "confirm", "sealed"})
        try:
            return cls(
                request_id=_request_id(obj["request_id"]),
                approver=DevicePublic.from_json(obj["approver"]),
                spake_msg=_hex_field(obj["spake"], SPAKE_MESSAGE_BYTES),
                confirm=_hex_field(obj["confirm"], MAC_BYTES),
                sealed=_hex_field(obj["sealed"], None),
            )
        except InvalidInputError as exc:
            raise _fail(
                PairingFailure.MALFORMED, f"An approval in the folder is malformed ({exc})."
            ) from None


@dataclass(frozen=True)
class Confirmation:
    request_id: str
    confirm: bytes

    def to_bytes(self) -> bytes:
        return canonical_json(
            {
                "v": PROTOCOL_VERSION,
                "type": "confirm",
                "request_id": self.request_id,
                "confirm": self.confirm.hex(),
            }
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> Confirmation:
        obj = _load(data, "confirm", {"request_id", "confirm"})
        try:
            return cls(_request_id(obj["request_id"]), _hex_field(obj["confirm"], MAC_BYTES))
        except InvalidInputError as exc:
            raise _fail(PairingFailure.MALFORMED, f"A pairing confirmation is malformed ({exc}).") from None


@dataclass(frozen=True, repr=False)
class AccountGrant:
    """What a new device receives: every account key it needs to read the history, the
    trusted devices (the approver among them) and the ids of removed devices."""

    keys: tuple[AccountKey, ...]
    devices: tuple[DevicePublic, ...]
    removed: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return {
            "keys": [k.to_json() for k in self.keys],
            "devices": [d.to_json() for d in self.devices],
            "removed": sorted(self.removed),
        }

    @classmethod
    def from_json(cls, obj: object) -> AccountGrant:
        if not isinstance(obj, dict) or set(obj) != {"keys", "devices", "removed"}:
            raise InvalidInputError("account grant fields")
        keys, devices, removed = obj["keys"], obj["devices"], obj["removed"]
        if (
            not (isinstance(keys, list) and isinstance(devices, list) and isinstance(removed, list))
            or not keys
        ):
            raise InvalidInputError("account grant lists")
        return cls(
            tuple(AccountKey.from_json(k) for k in keys),
            tuple(DevicePublic.from_json(d) for d in devices),
            frozenset(check_device_id(r) for r in removed),
        )

    def __repr__(self) -> str:
        return f"AccountGrant(epochs={[k.epoch for k in self.keys]}, devices={len(self.devices)})"


# --- state kept by each side between messages ------------------------------------------


@dataclass
class JoinerSession:
    """Held in memory by the new device while it waits; the code is never written out."""

    identity: DeviceIdentity
    code: PairingCode
    request: JoinRequest
    _spake: SPAKE2_A = field(repr=False)
    finished: bool = False


@dataclass(frozen=True, repr=False)
class PendingApproval:
    """Held by the approver until the new device confirms (or the deadline passes)."""

    request_id: str
    joiner: DevicePublic
    expected_confirm: bytes
    deadline_ms: int

    def to_json(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "joiner": self.joiner.to_json(),
            "expected_confirm": self.expected_confirm.hex(),
            "deadline_ms": self.deadline_ms,
        }

    @classmethod
    def from_json(cls, obj: object) -> PendingApproval:
        if not isinstance(obj, dict) or set(obj) != {
            "request_id",
            "joiner",
            "expected_confirm",
            "deadline_ms",
        }:
            raise InvalidInputError("The saved pairing state is not readable; approve the device again.")
        return cls(
            _request_id(obj["request_id"]),
            DevicePublic.from_json(obj["joiner"]),
            _hex_field(obj["expected_confirm"], MAC_BYTES),
            _int_field(obj["deadline_ms"]),
        )

    def __repr__(self) -> str:
        return f"PendingApproval(request_id={self.request_id!r}, joiner={self.joiner.device_id!r})"


@dataclass(frozen=True)
class JoinResult:
    grant: AccountGrant
    approver_id: str
    confirmation: Confirmation


# --- the steps --------------------------------------------------------------------------


def start_join(
    identity: DeviceIdentity, now_ms: int, *, rng: Random = os.urandom, ttl_ms: int = REQUEST_TTL_MS
) -> JoinerSession:
    """Step 1 (new device): a fresh code and the join request to write to the folder."""
    if not 0 < ttl_ms <= REQUEST_TTL_MS:
        raise InvalidInputError(f"A join request lives at most {REQUEST_TTL_MS // 60000} minutes.")
    code = PairingCode.generate(rng=rng)
    request_id = rng(REQUEST_ID_BYTES).hex()
    spake = SPAKE2_A(code.password(), idA=_ID_JOINER + request_id.encode(), idB=_ID_APPROVER, entropy_f=rng)
    unsigned = JoinRequest(request_id, code.tag, identity.public, spake.start(), now_ms, now_ms + ttl_ms, b"")
    signature = identity.sign(_REQUEST_SIG_CONTEXT + canonical_json(unsigned.signed_part()))
    request = replace(unsigned, signature=signature)
    return JoinerSession(identity, code, request, spake)


def find_request(requests: Iterable[JoinRequest], code: PairingCode, now_ms: int) -> JoinRequest:
    """The one pending request the code's tag points at (refuses if none or several)."""
    matching = [r for r in requests if r.tag == code.tag]
    live = [r for r in matching if now_ms < r.expires_ms]
    if len(live) > 1:
        raise _fail(
            PairingFailure.DUPLICATE_REQUEST,
            "Several join requests match this code, so someone may be tampering with the sync folder. "
            "Nothing was approved; start the join again on the new device.",
        )
    if not live:
        if matching:
            raise _fail(
                PairingFailure.EXPIRED, "The join request for this code has expired; start the join again."
            )
        raise _fail(
            PairingFailure.NO_REQUEST,
            "No join request matches this code. Check the code, and wait for the folder to finish syncing.",
        )
    return live[0]


def approve_join(
    request: JoinRequest,
    code: PairingCode,
    approver: DeviceIdentity,
    grant: AccountGrant,
    now_ms: int,
    *,
    rng: Random = os.urandom,
) -> tuple[PendingApproval, Approval]:
    """Step 2 (trusted device): answer a join request with the code the person typed."""
    if request.tag != code.tag:
        raise _fail(PairingFailure.WRONG_REQUEST, "This join request does not belong to that code.")
    if not now_ms < request.expires_ms or request.expires_ms - request.created_ms > REQUEST_TTL_MS:
        raise _fail(
            PairingFailure.EXPIRED, "The join request has expired; start the join again on the new device."
        )
    if request.created_ms > now_ms + MAX_CLOCK_SKEW_MS:
        raise _fail(
            PairingFailure.EXPIRED,
            "The join request is dated in the future; check the clocks of both devices and start again.",
        )
    if not verify_signature(
        request.device.verify_key,
        _REQUEST_SIG_CONTEXT + canonical_json(request.signed_part()),
        request.signature,
    ):
        raise _fail(
            PairingFailure.BAD_SIGNATURE, "The join request was altered in the folder; start the join again."
        )
    joiner_id = request.device.device_id
    if joiner_id in grant.removed:
        raise _fail(
            PairingFailure.REMOVED_DEVICE,
            f"Device {joiner_id} was removed and cannot join again with the same identity; reset it first.",
        )
    if any(d.device_id == joiner_id for d in grant.devices):
        raise _fail(PairingFailure.ALREADY_PAIRED, f"Device {joiner_id} is already paired.")
    if approver.device_id not in {d.device_id for d in grant.devices}:
        raise InvalidInputError("The approving device must be in the device list it hands over.")

    spake = SPAKE2_B(
        code.password(), idA=_ID_JOINER + request.request_id.encode(), idB=_ID_APPROVER, entropy_f=rng
    )
    msg_b = spake.start()
    session_key = _finish_spake(spake, request.spake_msg)
    transcript = _transcript(request, approver.public, msg_b)
    confirm_a = keyed_hash(derive(session_key, Purpose.PAIR_CONFIRM_APPROVER), transcript, MAC_BYTES)
    confirm_j = keyed_hash(derive(session_key, Purpose.PAIR_CONFIRM_JOINER), transcript, MAC_BYTES)
    # Two locks: only the holder of J's box key, and only a party that knew the code.
    inner = SealedBox(PublicKey(request.device.box_key)).encrypt(canonical_json(grant.to_json()))
    outer = SecretBox(derive(session_key, Purpose.PAIR_PAYLOAD)).encrypt(
        bytes(inner), rng(SecretBox.NONCE_SIZE)
    )
    approval = Approval(request.request_id, approver.public, msg_b, confirm_a, bytes(outer))
    pending = PendingApproval(
        request.request_id, request.device, confirm_j, request.expires_ms + CONFIRM_GRACE_MS
    )
    return pending, approval


def finish_join(session: JoinerSession, approval: Approval, now_ms: int) -> JoinResult:
    """Step 3 (new device): check the approval, obtain the account keys, and confirm.

    A session finishes once: a failed attempt (wrong code, tampering, a stale approval)
    uses it up, so an attacker never gets a second guess against the same code.
    """
    request = session.request
    if approval.request_id != request.request_id:
        raise _fail(PairingFailure.WRONG_REQUEST, "This approval answers another join request.")
    if session.finished:
        raise _fail(
            PairingFailure.CONFIRMATION_FAILED, "This pairing attempt is already used up; start again."
        )
    if not now_ms < request.expires_ms:
        raise _fail(PairingFailure.EXPIRED, "The pairing code has expired; start the join again.")
    session.finished = True
    session_key = _finish_spake(session._spake, approval.spake_msg)
    transcript = _transcript(request, approval.approver, approval.spake_msg)
    expected = keyed_hash(derive(session_key, Purpose.PAIR_CONFIRM_APPROVER), transcript, MAC_BYTES)
    if not hmac.compare_digest(expected, approval.confirm):
        raise _fail(
            PairingFailure.CONFIRMATION_FAILED,
            "Pairing failed: the code typed on the other device was wrong, or a pairing file was altered. "
            "No key was handed over; start the join again.",
        )
    try:
        inner = SecretBox(derive(session_key, Purpose.PAIR_PAYLOAD)).decrypt(approval.sealed)
        plain = SealedBox(session.identity.box_private_key).decrypt(inner)
        grant = AccountGrant.from_json(json.loads(plain.decode("utf-8")))
    except (CryptoError, ValueError, InvalidInputError):
        raise _fail(
            PairingFailure.MALFORMED, "The approval could not be opened; start the join again."
        ) from None
    if approval.approver not in grant.devices:
        raise _fail(PairingFailure.MALFORMED, "The approving device is missing from the device list it sent.")
    confirm_j = keyed_hash(derive(session_key, Purpose.PAIR_CONFIRM_JOINER), transcript, MAC_BYTES)
    return JoinResult(grant, approval.approver.device_id, Confirmation(request.request_id, confirm_j))


def complete_approval(pending: PendingApproval, confirmation: Confirmation, now_ms: int) -> DevicePublic:
    """Step 4 (trusted device): the new device proved it shares the session; trust it."""
    if confirmation.request_id != pending.request_id:
        raise _fail(PairingFailure.WRONG_REQUEST, "This confirmation belongs to another pairing.")
    if now_ms > pending.deadline_ms:
        raise _fail(PairingFailure.EXPIRED, "The confirmation came too late; pair the device again.")
    if not hmac.compare_digest(pending.expected_confirm, confirmation.confirm):
        raise _fail(
            PairingFailure.CONFIRMATION_FAILED,
            f"Device {pending.joiner.device_id} did not confirm the pairing; it was not added. "
            "A pairing file may have been altered in the folder.",
        )
    return pending.joiner


# --- helpers ----------------------------------------------------------------------------


def _finish_spake(spake: SPAKE2_A | SPAKE2_B, message: bytes) -> bytes:
    try:
        return bytes(spake.finish(message))
    except (SPAKEError, ValueError):
        # A message that is not a group element or comes from the wrong side.
        raise _fail(
            PairingFailure.MALFORMED, "A pairing message is malformed; start the join again."
        ) from None


def _transcript(request: JoinRequest, approver: DevicePublic, msg_b: bytes) -> bytes:
    """Everything both sides must agree on, J's public keys and the approver's included."""
    return _TRANSCRIPT_CONTEXT + canonical_json(
        {"request": request.to_json(), "approver": approver.to_json(), "spake_b": msg_b.hex()}
    )


def _load(data: bytes, kind: str, fields: set[str]) -> dict[str, Any]:
    if len(data) > MAX_MESSAGE_BYTES:
        raise _fail(PairingFailure.MALFORMED, f"A pairing {kind} file is too large.")
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _fail(PairingFailure.MALFORMED, f"A pairing {kind} file is not valid JSON.") from None
    if not isinstance(obj, dict) or obj.get("v") != PROTOCOL_VERSION or obj.get("type") != kind:
        raise _fail(
            PairingFailure.MALFORMED, f"A pairing file is not a version {PROTOCOL_VERSION} {kind} message."
        )
    if set(obj) != fields | {"v", "type"}:
        raise _fail(PairingFailure.MALFORMED, f"A pairing {kind} file has the wrong fields.")
    return obj


def _request_id(value: object) -> str:
    if not isinstance(value, str) or len(value) != 2 * REQUEST_ID_BYTES:
        raise InvalidInputError("bad request id")
    _hex_field(value, REQUEST_ID_BYTES)
    return value


def _hex_field(value: object, size: int | None) -> bytes:
    if not isinstance(value, str) or value != value.lower():
        raise InvalidInputError("expected lowercase hex")
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise InvalidInputError("expected hex") from None
    if raw.hex() != value or (size is not None and len(raw) != size):
        raise InvalidInputError("wrong length")
    return raw


def _int_field(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
        raise InvalidInputError("expected a non-negative integer")
    return value


def pending_requests(messages: Sequence[bytes]) -> tuple[list[JoinRequest], list[PairingFailed]]:
    """Parse the join request files found in the folder, keeping the malformed ones as reports."""
    good: list[JoinRequest] = []
    bad: list[PairingFailed] = []
    for data in messages:
        try:
            good.append(JoinRequest.from_bytes(data))
        except PairingFailed as exc:
            bad.append(exc)
    return good, bad
