"""The store key: made at init, kept in the OS keyring or wrapped by a passphrase.

The store is encrypted with a random 256-bit raw key. It is kept either in the OS
keyring or, where no keyring backend exists (headless Linux, CI), wrapped with
NaCl SecretBox under a key stretched from a passphrase with Argon2id and a
per-store salt. ``veramem.keys.json`` beside the store holds only the salt, the
wrapped key and a key check value: never the key in plaintext. A recovery code
(the key itself, encoded for a person to write down) is shown once at init.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nacl.exceptions
import nacl.pwhash
import nacl.secret
import nacl.utils

from .core.errors import (
    InvalidInputError,
    MissingKeyError,
    NotAStoreError,
    NotInitialisedError,
    WrongKeyError,
)
from .core.ids import now_iso

KEYRING_SERVICE = "veramem-desktop"
FORMAT = 1
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

PassphraseSource = Callable[[], str | None]


def key_check(key: bytes) -> str:
    """A value that confirms a key belongs to this store without revealing it."""
    return hmac.new(key, b"veramem key check v1", hashlib.sha256).hexdigest()


# ------------------------------------------------------------------ recovery code
def encode_recovery_code(key: bytes) -> str:
    """The key as 13 groups of four Crockford base32 characters plus a checksum group."""
    payload = key + hashlib.sha256(b"veramem recovery" + key).digest()[:2]
    value = int.from_bytes(payload, "big")
    bits = len(payload) * 8
    chars = []
    for shift in range(bits - 5, -5, -5):
        chars.append(_CROCKFORD[(value >> shift) & 31] if shift >= 0 else _CROCKFORD[(value << -shift) & 31])
    text = "".join(chars)
    return "-".join(text[i : i + 4] for i in range(0, len(text), 4))


def decode_recovery_code(code: str) -> bytes:
    cleaned = code.upper().replace("-", "").replace(" ", "").replace("O", "0").replace("I", "1").replace("L", "1")
    try:
        value = 0
        for ch in cleaned:
            value = (value << 5) | _CROCKFORD.index(ch)
    except ValueError:
        raise InvalidInputError("That recovery code has a character that is not in the code alphabet.") from None
    nbits = len(cleaned) * 5
    if nbits < 34 * 8:
        raise InvalidInputError("That recovery code is too short: it has 14 groups of four characters.")
    payload = (value >> (nbits - 34 * 8)).to_bytes(34, "big")
    key, check = payload[:32], payload[32:]
    if hashlib.sha256(b"veramem recovery" + key).digest()[:2] != check:
        raise InvalidInputError("That recovery code has a typo: its checksum does not match. Check each group.")
    return key


# ------------------------------------------------------------------ keyring
def keyring_usable() -> bool:
    """True when an OS keyring backend that really stores secrets is available."""
    if os.environ.get("VERAMEM_NO_KEYRING"):
        return False
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
    except Exception:
        return False
    if isinstance(backend, fail.Keyring):
        return False
    name = type(backend).__module__ + "." + type(backend).__name__
    if "null" in name.lower() or "chainer" in name.lower() and not getattr(backend, "backends", None):
        return False
    return float(getattr(backend, "priority", 0) or 0) > 0


def _keyring_get(username: str) -> str | None:
    import keyring

    try:
        return keyring.get_password(KEYRING_SERVICE, username)
    except Exception as exc:
        raise MissingKeyError(f"The OS keyring could not be read ({type(exc).__name__}). Unlock with "
                              "`veramem unlock --recovery-code`.") from None


def _keyring_set(username: str, secret: str) -> None:
    import keyring

    keyring.set_password(KEYRING_SERVICE, username, secret)


# ------------------------------------------------------------------ key info file
@dataclass
class KeyInfo:
    store_id: str
    key_check: str
    mode: str  # "keyring" | "passphrase"
    created_at: str
    salt: str = ""
    opslimit: int = 0
    memlimit: int = 0
    wrapped_key: str = ""

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, **self.__dict__}, indent=2)

    @classmethod
    def from_json(cls, text: str, path: Path) -> KeyInfo:
        try:
            data = json.loads(text)
            data.pop("format", None)
            return cls(**data)
        except (ValueError, TypeError):
            raise NotAStoreError(f"{path} is damaged (not valid key information). Restore it from a backup, "
                                 "or unlock with `veramem unlock --recovery-code`.") from None


def read_keyinfo(path: Path) -> KeyInfo:
    if not path.exists():
        raise NotInitialisedError(f"No key information at {path}. Run `veramem init` first.")
    return KeyInfo.from_json(path.read_text("utf-8"), path)


def write_keyinfo(path: Path, info: KeyInfo) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(info.to_json())
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _stretch(passphrase: str, salt: bytes, opslimit: int, memlimit: int) -> bytes:
    return nacl.pwhash.argon2id.kdf(
        nacl.secret.SecretBox.KEY_SIZE, passphrase.encode("utf-8"), salt, opslimit=opslimit, memlimit=memlimit
    )


def wrap_with_passphrase(info: KeyInfo, key: bytes, passphrase: str) -> KeyInfo:
    if not passphrase:
        raise InvalidInputError("The passphrase is empty.")
    salt = nacl.utils.random(nacl.pwhash.argon2id.SALTBYTES)
    ops, mem = nacl.pwhash.argon2id.OPSLIMIT_INTERACTIVE, nacl.pwhash.argon2id.MEMLIMIT_INTERACTIVE
    box = nacl.secret.SecretBox(_stretch(passphrase, salt, ops, mem))
    info.mode = "passphrase"
    info.salt = base64.b64encode(salt).decode()
    info.opslimit, info.memlimit = ops, mem
    info.wrapped_key = base64.b64encode(bytes(box.encrypt(key))).decode()
    return info


def unwrap_with_passphrase(info: KeyInfo, passphrase: str) -> bytes:
    box = nacl.secret.SecretBox(_stretch(passphrase, base64.b64decode(info.salt), info.opslimit, info.memlimit))
    try:
        key = bytes(box.decrypt(base64.b64decode(info.wrapped_key)))
    except nacl.exceptions.CryptoError:
        raise WrongKeyError("Wrong passphrase: the store was not opened and nothing was changed.") from None
    if not hmac.compare_digest(key_check(key), info.key_check):
        raise WrongKeyError("The unwrapped key does not belong to this store.")
    return key


# ------------------------------------------------------------------ the manager
@dataclass
class NewKey:
    key: bytes
    recovery_code: str
    mode: str


class KeyManager:
    """Creates and loads the key of the store whose key information is at ``keyinfo_path``."""

    def __init__(self, keyinfo_path: Path, passphrase_source: PassphraseSource | None = None) -> None:
        self.path = keyinfo_path
        self.passphrase_source = passphrase_source

    def _passphrase(self, explicit: str | None) -> str | None:
        if explicit:
            return explicit
        env = os.environ.get("VERAMEM_PASSPHRASE")
        if env:
            return env
        if self.passphrase_source is not None:
            return self.passphrase_source()
        return None

    def create(self, *, passphrase: str | None = None, use_keyring: bool | None = None) -> NewKey:
        key = nacl.utils.random(32)
        info = KeyInfo(store_id=str(uuid.uuid4()), key_check=key_check(key), mode="keyring", created_at=now_iso())
        if use_keyring is None:
            use_keyring = keyring_usable() and not (passphrase or os.environ.get("VERAMEM_PASSPHRASE"))
        if use_keyring:
            _keyring_set(info.store_id, key.hex())
        else:
            secret = self._passphrase(passphrase)
            if not secret:
                raise MissingKeyError(
                    "No OS keyring is available here, so the store needs a passphrase. "
                    "Run `veramem init` in a terminal to choose one, or set VERAMEM_PASSPHRASE."
                )
            wrap_with_passphrase(info, key, secret)
        write_keyinfo(self.path, info)
        return NewKey(key, encode_recovery_code(key), info.mode)

    def load(self, *, passphrase: str | None = None) -> bytes:
        info = read_keyinfo(self.path)
        if info.mode == "keyring":
            stored = _keyring_get(info.store_id) if keyring_usable() else None
            if not stored:
                raise MissingKeyError(
                    "The store's key is not in the OS keyring (it may have been reset, or this is another account). "
                    "Run `veramem unlock --recovery-code` with the code shown at init."
                )
            key = bytes.fromhex(stored)
            if not hmac.compare_digest(key_check(key), info.key_check):
                raise WrongKeyError("The key in the OS keyring does not belong to this store. "
                                    "Run `veramem unlock --recovery-code`.")
            return key
        secret = self._passphrase(passphrase)
        if not secret:
            raise MissingKeyError(
                "This store is locked with a passphrase. Run the command in a terminal to be asked for it, "
                "or set VERAMEM_PASSPHRASE."
            )
        return unwrap_with_passphrase(info, secret)

    def recover(self, code: str, *, new_passphrase: str | None = None, use_keyring: bool | None = None) -> bytes:
        """Check a recovery code against the store and keep its key again (keyring or new passphrase)."""
        info = read_keyinfo(self.path)
        key = decode_recovery_code(code)
        if not hmac.compare_digest(key_check(key), info.key_check):
            raise WrongKeyError("That recovery code belongs to another store: nothing was changed.")
        if use_keyring is None:
            use_keyring = keyring_usable() and not new_passphrase
        if use_keyring:
            _keyring_set(info.store_id, key.hex())
            info.mode, info.salt, info.wrapped_key, info.opslimit, info.memlimit = "keyring", "", "", 0, 0
        else:
            secret = self._passphrase(new_passphrase)
            if not secret:
                raise MissingKeyError("No OS keyring is available: choose a new passphrase to keep the key under.")
            wrap_with_passphrase(info, key, secret)
        write_keyinfo(self.path, info)
        return key

    def describe(self) -> dict[str, Any]:
        info = read_keyinfo(self.path)
        return {"mode": info.mode, "store_id": info.store_id, "created_at": info.created_at}
