"""Device identities, the account sync key, per-purpose subkeys and key grants.

- A device has an Ed25519 signing key (it signs every batch it writes) and a separate
  X25519 box key (other devices seal keys to it). Keeping the two apart avoids using
  one secret in two different schemes. The device id is a short hash of the verify
  key, so an id can always be checked against the key it claims.
- The account key is 32 random bytes shared by all paired devices, numbered by an
  epoch that goes up by one at every rotation (a removed device keeps the old epochs
  and never learns the new one).
- Nothing uses the account key directly: :func:`derive` gives one subkey per purpose
  (keyed BLAKE2b, the key as the BLAKE2b key and the purpose as the message).
- A key grant hands an account key to one device: sealed with NaCl Box from the
  sender's box key to the recipient's, with the grant header inside the ciphertext so
  it cannot be relabelled.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from nacl.bindings import crypto_core_ed25519_is_valid_point
from nacl.exceptions import CryptoError
from nacl.public import Box, PrivateKey, PublicKey
from nacl.signing import SigningKey
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.sync.errors import RejectReason, SyncRejected

Random = Callable[[int], bytes]
"""A source of random bytes (``os.urandom`` unless a test passes its own)."""

KEY_BYTES = 32
DEVICE_ID_BYTES = 8
DEVICE_ID_RE = re.compile(r"[0-9a-f]{16}")
KEY_ID_BYTES = 8
MAX_DEVICE_NAME = 64

_IDENTITY_MAGIC = b"VMD1"


class Purpose:
    """The purposes subkeys are derived for. One name, one use."""

    BATCH = "batch-envelope"
    KEY_ID = "key-id"
    PAIR_PAYLOAD = "pair-payload"
    PAIR_CONFIRM_APPROVER = "pair-confirm-approver"
    PAIR_CONFIRM_JOINER = "pair-confirm-joiner"


def derive(key: bytes, purpose: str, size: int = KEY_BYTES) -> bytes:
    """A subkey of ``key`` for one ``purpose``: keyed BLAKE2b of the purpose name.

    Distinct purposes give independent keys; the same key and purpose always give the
    same subkey, so nothing has to be stored.
    """
    if not 16 <= len(key) <= 64:
        raise InvalidInputError("A key to derive from must be 16 to 64 bytes long.")
    if not purpose or not purpose.isascii():
        raise InvalidInputError("A subkey purpose must be a non-empty ASCII name.")
    return hashlib.blake2b(b"veramem-sync/" + purpose.encode("ascii"), key=key, digest_size=size).digest()


def keyed_hash(key: bytes, data: bytes, size: int = 32) -> bytes:
    """A MAC of ``data`` under ``key`` (keyed BLAKE2b)."""
    return hashlib.blake2b(data, key=key, digest_size=size).digest()


def device_id_for(verify_key: bytes) -> str:
    """The device id of a verify key: 8 bytes of its BLAKE2b hash, in hex.

    Ids are always checked against the key they name, so a collision would not let
    anyone impersonate a device; 64 bits keep ids short in paths and logs.
    """
    digest = hashlib.blake2b(verify_key, digest_size=DEVICE_ID_BYTES, person=b"veramem-devid").digest()
    return digest.hex()


def check_device_id(device_id: object) -> str:
    """Return ``device_id`` if it is well formed (16 lowercase hex digits), else refuse it."""
    if not isinstance(device_id, str) or not DEVICE_ID_RE.fullmatch(device_id):
        raise InvalidInputError(f"{device_id!r} is not a device id (16 lowercase hex digits).")
    return device_id


@dataclass(frozen=True)
class DevicePublic:
    """What other devices know about a device: its id, public keys and a label."""

    device_id: str
    verify_key: bytes
    box_key: bytes
    name: str = ""

    def __post_init__(self) -> None:
        if len(self.verify_key) != KEY_BYTES or len(self.box_key) != KEY_BYTES:
            raise InvalidInputError("A device's public keys must be 32 bytes each.")
        if check_device_id(self.device_id) != device_id_for(self.verify_key):
            raise InvalidInputError(f"Device id {self.device_id} does not match its verify key.")
        if len(self.name) > MAX_DEVICE_NAME or not self.name.isprintable():
            raise InvalidInputError(
                f"A device name is printable text of at most {MAX_DEVICE_NAME} characters."
            )

    def to_json(self) -> dict[str, str]:
        return {
            "id": self.device_id,
            "verify": self.verify_key.hex(),
            "box": self.box_key.hex(),
            "name": self.name,
        }

    @classmethod
    def from_json(cls, data: object) -> DevicePublic:
        if not isinstance(data, dict) or set(data) != {"id", "verify", "box", "name"}:
            raise InvalidInputError("A device record must have exactly: id, verify, box, name.")
        if not all(isinstance(v, str) for v in data.values()):
            raise InvalidInputError("A device record holds text fields only.")
        return cls(data["id"], _unhex(data["verify"]), _unhex(data["box"]), data["name"])


class DeviceIdentity:
    """A device's secret keys. Keep them in the OS keyring; never in the sync folder."""

    __slots__ = ("_signing", "_signer", "_box", "name")

    def __init__(self, signing_key: SigningKey, box_key: PrivateKey, name: str = "") -> None:
        self._signing = signing_key
        # The same key for OpenSSL, which signs large batches faster (Ed25519 signatures are
        # deterministic: the bytes are those libsodium would give).
        self._signer = Ed25519PrivateKey.from_private_bytes(bytes(signing_key))
        self._box = box_key
        self.name = name

    @classmethod
    def generate(cls, name: str = "", *, rng: Random = os.urandom) -> DeviceIdentity:
        return cls(SigningKey(rng(KEY_BYTES)), PrivateKey(rng(KEY_BYTES)), name)

    @property
    def verify_key(self) -> bytes:
        return bytes(self._signing.verify_key)

    @property
    def box_public_key(self) -> bytes:
        return bytes(self._box.public_key)

    @property
    def device_id(self) -> str:
        return device_id_for(self.verify_key)

    @property
    def public(self) -> DevicePublic:
        return DevicePublic(self.device_id, self.verify_key, self.box_public_key, self.name)

    @property
    def box_private_key(self) -> PrivateKey:
        return self._box

    def sign(self, message: bytes) -> bytes:
        """A detached Ed25519 signature (64 bytes)."""
        return self._signer.sign(message)

    def to_secret_bytes(self) -> bytes:
        """The secret keys, for the keyring: magic, signing seed, box secret."""
        return _IDENTITY_MAGIC + bytes(self._signing) + bytes(self._box)

    @classmethod
    def from_secret_bytes(cls, data: bytes, name: str = "") -> DeviceIdentity:
        if len(data) != 4 + 2 * KEY_BYTES or data[:4] != _IDENTITY_MAGIC:
            raise InvalidInputError("The stored device identity is not readable; pair this device again.")
        return cls(SigningKey(data[4 : 4 + KEY_BYTES]), PrivateKey(data[4 + KEY_BYTES :]), name)

    def __repr__(self) -> str:
        return f"DeviceIdentity(device_id={self.device_id!r}, name={self.name!r})"


def verify_signature(verify_key: bytes, message: bytes, signature: bytes) -> bool:
    """True when ``signature`` is a valid Ed25519 signature of ``message`` by ``verify_key``.

    The checks of libsodium's ``crypto_sign_verify_detached``, each as strict or stricter: the key
    and the signature's R must be canonical points of the prime-order group (libsodium's own
    ``crypto_core_ed25519_is_valid_point``; a small-order key would let anyone sign anything), S
    must be below the group order, then OpenSSL (through ``cryptography``) checks the equation.
    OpenSSL hashes the message with a vectorised SHA-512, about 2.5 times as fast as libsodium's
    portable one on a 1 MB batch; it alone would accept a small-order key."""
    try:
        if len(verify_key) != KEY_BYTES or len(signature) != SIGNATURE_BYTES:
            return False
        if int.from_bytes(signature[KEY_BYTES:], "little") >= _GROUP_ORDER:
            return False
        if not (
            crypto_core_ed25519_is_valid_point(verify_key)
            and crypto_core_ed25519_is_valid_point(signature[:KEY_BYTES])
        ):
            return False
        Ed25519PublicKey.from_public_bytes(verify_key).verify(signature, message)
    except (InvalidSignature, CryptoError, ValueError, TypeError):
        return False
    return True


SIGNATURE_BYTES = 64
_GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493  # l, the order of Ed25519's base point


@dataclass(frozen=True, repr=False)
class AccountKey:
    """The shared sync key of one epoch."""

    epoch: int
    key: bytes

    def __post_init__(self) -> None:
        if not 1 <= self.epoch <= 0xFFFF_FFFF:
            raise InvalidInputError(f"Key epoch {self.epoch} is out of range.")
        if len(self.key) != KEY_BYTES:
            raise InvalidInputError("An account key is 32 bytes.")

    @classmethod
    def generate(cls, epoch: int = 1, *, rng: Random = os.urandom) -> AccountKey:
        return cls(epoch, rng(KEY_BYTES))

    def rotate(self, *, rng: Random = os.urandom) -> AccountKey:
        """A fresh random key for the next epoch (used when a device is removed)."""
        return AccountKey(self.epoch + 1, rng(KEY_BYTES))

    @property
    def key_id(self) -> bytes:
        """8 bytes naming this key without revealing it (tells a wrong key from tampering)."""
        return derive(self.key, Purpose.KEY_ID, KEY_ID_BYTES)

    def subkey(self, purpose: str) -> bytes:
        return derive(self.key, purpose)

    def to_json(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "key": self.key.hex()}

    @classmethod
    def from_json(cls, data: object) -> AccountKey:
        if not isinstance(data, dict) or set(data) != {"epoch", "key"}:
            raise InvalidInputError("An account key record must have exactly: epoch, key.")
        epoch, key = data["epoch"], data["key"]
        if not isinstance(epoch, int) or isinstance(epoch, bool) or not isinstance(key, str):
            raise InvalidInputError("An account key record has an integer epoch and a hex key.")
        return cls(epoch, _unhex(key))

    def __repr__(self) -> str:
        return f"AccountKey(epoch={self.epoch}, key_id={self.key_id.hex()})"


def keys_by_epoch(keys: list[AccountKey]) -> dict[int, AccountKey]:
    return {k.epoch: k for k in keys}


# --- key grants: one account key handed to one device ---------------------------------

GRANT_MAGIC = b"VMK1"
GRANT_VERSION = 1
_GRANT_HEADER = struct.Struct(">4sBI8s8s8s")  # magic, version, epoch, key id, sender, recipient


def seal_key_grant(sender: DeviceIdentity, recipient: DevicePublic, key: AccountKey) -> bytes:
    """Seal ``key`` so only ``recipient`` can open it and it knows ``sender`` wrote it."""
    header = _GRANT_HEADER.pack(
        GRANT_MAGIC,
        GRANT_VERSION,
        key.epoch,
        key.key_id,
        bytes.fromhex(sender.device_id),
        bytes.fromhex(recipient.device_id),
    )
    box = Box(sender.box_private_key, PublicKey(recipient.box_key))
    # The header travels in clear (so the reader knows whose key to use) and again
    # inside the box, where it cannot be altered.
    return header + bytes(box.encrypt(header + key.key))


def open_key_grant(data: bytes, recipient: DeviceIdentity, trusted: Mapping[str, DevicePublic]) -> AccountKey:
    """Open a grant addressed to ``recipient`` from one of the ``trusted`` devices."""
    size = _GRANT_HEADER.size
    if len(data) < size:
        raise SyncRejected(
            RejectReason.TRUNCATED, "A key grant file is incomplete; wait for it to finish copying."
        )
    magic, version, epoch, key_id, sender_raw, recipient_raw = _GRANT_HEADER.unpack_from(data)
    if magic != GRANT_MAGIC:
        raise SyncRejected(RejectReason.BAD_MAGIC, "This file is not a VeraMem key grant.")
    if version != GRANT_VERSION:
        raise SyncRejected(
            RejectReason.BAD_VERSION, f"Key grant version {version} is not supported; update VeraMem."
        )
    sender_id, recipient_id = sender_raw.hex(), recipient_raw.hex()
    if recipient_id != recipient.device_id:
        raise SyncRejected(RejectReason.WRONG_RECIPIENT, f"This key grant is for device {recipient_id}.")
    sender = trusted.get(sender_id)
    if sender is None:
        raise SyncRejected(
            RejectReason.UNKNOWN_DEVICE, f"A key grant comes from device {sender_id}, which is not trusted."
        )
    try:
        plain = Box(recipient.box_private_key, PublicKey(sender.box_key)).decrypt(data[size:])
    except (CryptoError, ValueError):
        raise SyncRejected(
            RejectReason.MAC_FAILURE, f"A key grant from device {sender_id} was altered or is incomplete."
        ) from None
    if len(plain) != size + KEY_BYTES or not hmac.compare_digest(plain[:size], data[:size]):
        raise SyncRejected(RejectReason.MALFORMED, f"A key grant from device {sender_id} is malformed.")
    key = AccountKey(epoch, plain[size:])
    if not hmac.compare_digest(key.key_id, key_id):
        raise SyncRejected(RejectReason.MALFORMED, f"A key grant from device {sender_id} is inconsistent.")
    return key


# --- helpers ------------------------------------------------------------------------------


def canonical_json(value: Any) -> bytes:
    """The one byte encoding of a JSON value that is signed and hashed."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


_HEX_RE = re.compile(r"(?:[0-9a-f]{2})*")


def _unhex(text: str) -> bytes:
    if not _HEX_RE.fullmatch(text):
        raise InvalidInputError("A key field is not lowercase hex.")
    return bytes.fromhex(text)
