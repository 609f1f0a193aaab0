"""The store key: made at init, kept in the OS keyring or wrapped by a passphrase.

The store is encrypted with a random 256-bit raw key. It is kept either in the OS
keyring or, where no keyring backend exists (headless Linux, CI), wrapped with
NaCl SecretBox under a key stretched from a passphrase with Argon2id and a
per-store salt. ``veramem.keys.json`` beside the store holds only the salt, the
wrapped key and a key check value: never the key in plaintext. A recovery code
(the key itself, encoded for a person to write down) is shown once at init.

A rekey retires the old key: the key information keeps the old key's check value (the same keyed
fingerprint it keeps of the current key, which confirms a key without revealing it) with the rekey's
time, so a recovery code from before it is told apart from a code of another store.

Every new passphrase (init, ``veramem passphrase``, a recovery, a restore, the terminal
app's first run) passes one strength rule, :func:`passphrase_problem`: at least
``MIN_PASSPHRASE_CHARS`` characters, and a zxcvbn estimate of at least 10^8 guesses (score
3 of 4), so a dictionary word, a keyboard walk or a date with a digit appended is refused
with what to do instead. A passphrase that already protects a store is never re-judged:
opening and ``rekey`` take it as it is.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nacl.exceptions
import nacl.pwhash
import nacl.secret
import nacl.utils

from veramem_desktop.core.errors import (
    InvalidInputError,
    KeyFileDamagedError,
    LockedError,
    MissingKeyError,
    NotInitialisedError,
    WrongKeyError,
)
from veramem_desktop.core.storage.ids import now_iso

#: the passphrase rule (see the module's docstring)
MIN_PASSPHRASE_CHARS = 8
MIN_PASSPHRASE_SCORE = 3
#: words a passphrase is judged against as if they were common ones
_OWN_WORDS = ["veramem", "vera", "memory", "desktop", "passphrase", "password"]
#: zxcvbn's cost grows with length; what follows the first characters only adds strength
_JUDGED_CHARS = 100

KEYRING_SERVICE = "veramem-desktop"
FORMAT = 1
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

PassphraseSource = Callable[[], str | None]

#: what a locked store says where nothing can ask for its passphrase (no terminal, no VERAMEM_PASSPHRASE)
LOCKED = (
    "This store is locked with a passphrase and there is no terminal here to ask for it. "
    "Run the command in a terminal, or set VERAMEM_PASSPHRASE."
)


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
    cleaned = (
        code.upper().replace("-", "").replace(" ", "").replace("O", "0").replace("I", "1").replace("L", "1")
    )
    try:
        value = 0
        for ch in cleaned:
            value = (value << 5) | _CROCKFORD.index(ch)
    except ValueError:
        raise InvalidInputError(
            "That recovery code has a character that is not in the code alphabet."
        ) from None
    nbits = len(cleaned) * 5
    if nbits < 34 * 8:
        raise InvalidInputError("That recovery code is too short: it has 14 groups of four characters.")
    payload = (value >> (nbits - 34 * 8)).to_bytes(34, "big")
    key, check = payload[:32], payload[32:]
    if hashlib.sha256(b"veramem recovery" + key).digest()[:2] != check:
        raise InvalidInputError(
            "That recovery code has a typo: its checksum does not match. Check each group."
        )
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
        raise MissingKeyError(
            f"The OS keyring could not be read ({type(exc).__name__}). Unlock with "
            "`veramem unlock --recovery-code`."
        ) from None


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
    #: the keys a rekey replaced, oldest first: {"key_check": …, "retired_at": ISO time}
    retired: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> str:
        fields = {k: v for k, v in self.__dict__.items() if k != "retired" or v}  # never rekeyed: as before
        return json.dumps({"format": FORMAT, **fields}, indent=2)

    def retired_at(self, key: bytes) -> str | None:
        """When a rekey retired ``key`` from this store (ISO time), or None when it never was its key."""
        check = key_check(key)
        for entry in self.retired:
            if hmac.compare_digest(entry["key_check"], check):
                return entry["retired_at"]
        return None

    def refuse(self, key: bytes, what: str) -> WrongKeyError:
        """The wrong-key error for a ``what`` ("That recovery code") whose key is not the current one."""
        when = self.retired_at(key)
        if when is not None:
            return WrongKeyError(
                f"{what} is this store's, from before the rekey of {when[:10]}: since then only the code "
                "shown by that rekey opens it (older backups still open with the older code). Nothing was "
                "changed."
            )
        return WrongKeyError(f"{what} belongs to another store: nothing was changed.")

    @classmethod
    def from_json(cls, text: str, path: Path) -> KeyInfo:
        """Read and check the key information; anything malformed is a damaged file (exit 6)."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise _damaged(path, "it is not valid JSON") from None
        if not isinstance(data, dict):
            raise _damaged(path, "it is not a JSON object")
        data.pop("format", None)
        problem = _keyinfo_problem(data)
        if problem:
            raise _damaged(path, problem)
        return cls(**data)


#: the fields of the key information by type (anything else is damage)
_TEXT_FIELDS = ("store_id", "key_check", "mode", "created_at", "salt", "wrapped_key")
_INT_FIELDS = ("opslimit", "memlimit")
_LIST_FIELDS = ("retired",)


def _b64_length(value: str) -> int | None:
    try:
        return len(base64.b64decode(value, validate=True))
    except (ValueError, TypeError):
        return None


def _keyinfo_problem(data: dict[str, Any]) -> str:
    """What is wrong with key information read from disk, or "" when it is whole."""
    problem = _field_problem(data)
    if problem or data["mode"] == "keyring":
        return problem
    return _wrapping_problem(data)


def _field_problem(data: dict[str, Any]) -> str:
    """The fields every key file has: present, known, of their type, in their form."""
    required = ("store_id", "key_check", "mode", "created_at")
    missing = [k for k in required if k not in data]
    if missing:
        return f"{', '.join(missing)} missing"
    unknown = sorted(set(data) - set(_TEXT_FIELDS) - set(_INT_FIELDS) - set(_LIST_FIELDS))
    if unknown:
        return f"unknown field {unknown[0][:40]!r}"
    wrong_text = [name for name in _TEXT_FIELDS if name in data and not isinstance(data[name], str)]
    if wrong_text:
        return f"{wrong_text[0]} is not text"
    wrong_int = [
        name
        for name in _INT_FIELDS
        if name in data and (isinstance(data[name], bool) or not isinstance(data[name], int))
    ]
    if wrong_int:
        return f"{wrong_int[0]} is not a whole number"
    if data["mode"] not in ("keyring", "passphrase"):
        return "mode is neither keyring nor passphrase"
    if not _is_check(data["key_check"]):
        return "key_check is not 64 hexadecimal digits"
    return _retired_problem(data.get("retired", []))


def _is_check(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def _retired_problem(retired: object) -> str:
    """The retired keys' list: each entry a check value and the time a rekey retired it."""
    if not isinstance(retired, list) or len(retired) > 10_000:
        return "retired is not a list of retired keys"
    for entry in retired:
        if (
            not isinstance(entry, dict)
            or set(entry) != {"key_check", "retired_at"}
            or not _is_check(entry["key_check"])
            or not isinstance(entry["retired_at"], str)
        ):
            return "an entry of retired is not a key check and a time"
    return ""


def _wrapping_problem(data: dict[str, Any]) -> str:
    """A passphrase key file's salt, wrapped key and Argon2id limits."""
    salt = _b64_length(data.get("salt", ""))
    if salt is None:
        return "salt is not base64"
    if salt != nacl.pwhash.argon2id.SALTBYTES:
        return f"salt is {salt} bytes, not {nacl.pwhash.argon2id.SALTBYTES}"
    wrapped = _b64_length(data.get("wrapped_key", ""))
    wrapped_size = 32 + nacl.secret.SecretBox.NONCE_SIZE + nacl.secret.SecretBox.MACBYTES
    if wrapped is None:
        return "wrapped_key is not base64"
    if wrapped != wrapped_size:
        return f"wrapped_key is {wrapped} bytes, not {wrapped_size}"
    ops, mem = data.get("opslimit", 0), data.get("memlimit", 0)
    # Bounded by what is ever written (interactive) and what Argon2id allows at the most (sensitive),
    # so a damaged number can neither fail inside libsodium nor ask for terabytes of memory.
    if not nacl.pwhash.argon2id.OPSLIMIT_MIN <= ops <= nacl.pwhash.argon2id.OPSLIMIT_SENSITIVE:
        return f"opslimit {ops} is out of range"
    if not nacl.pwhash.argon2id.MEMLIMIT_MIN <= mem <= nacl.pwhash.argon2id.MEMLIMIT_SENSITIVE:
        return f"memlimit {mem} is out of range"
    return ""


def _damaged(path: Path, problem: str) -> KeyFileDamagedError:
    return KeyFileDamagedError(
        f"{path} is damaged ({problem}); the store itself was not touched. Restore the file from a backup, "
        "or run `veramem unlock --recovery-code` with the code shown at init to write it again."
    )


def read_keyinfo(path: Path) -> KeyInfo:
    if not path.exists():
        raise NotInitialisedError(f"No key information at {path}. Run `veramem init` first.")
    if path.is_dir():
        raise _damaged(path, "it is a folder")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise _damaged(path, f"it cannot be read: {exc.strerror}") from None
    if not raw.strip():
        raise _damaged(path, "it is empty")
    if len(raw) > 64 * 1024:
        raise _damaged(path, "it is far larger than key information ever is")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _damaged(path, "it is not UTF-8 text") from None
    return KeyInfo.from_json(text, path)


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


def passphrase_problem(passphrase: str) -> str | None:
    """Why ``passphrase`` is too weak to protect a store's key, with what to do instead; None when
    it is strong enough. The one rule for every surface (CLI, SDK, terminal app)."""
    advice = (
        f"Choose one of at least {MIN_PASSPHRASE_CHARS} characters that is hard to guess: "
        "four or five uncommon words, or a long sentence only you would write."
    )
    if not passphrase:
        return "The passphrase is empty. " + advice
    if len(passphrase) < MIN_PASSPHRASE_CHARS:
        return f"The passphrase is shorter than {MIN_PASSPHRASE_CHARS} characters. " + advice
    from zxcvbn import zxcvbn  # the estimator's dictionaries load only when a passphrase is chosen

    estimate = zxcvbn(passphrase[:_JUDGED_CHARS], user_inputs=_OWN_WORDS)
    if estimate["score"] >= MIN_PASSPHRASE_SCORE:
        return None
    warning = str(estimate["feedback"].get("warning") or "").strip()
    why = f" ({warning.rstrip('.')})" if warning else ""
    return f"The passphrase is too easy to guess{why}. " + advice


class WeakPassphraseError(InvalidInputError):
    title = "Weak passphrase"


def check_new_passphrase(passphrase: str) -> str:
    """``passphrase`` when it passes :func:`passphrase_problem`, else a :class:`WeakPassphraseError`."""
    problem = passphrase_problem(passphrase)
    if problem is not None:
        raise WeakPassphraseError(problem)
    return passphrase


def wrap_with_passphrase(info: KeyInfo, key: bytes, passphrase: str, *, new: bool = True) -> KeyInfo:
    """Wrap ``key`` under ``passphrase``; a ``new`` passphrase (one a person is choosing now) must
    pass the strength rule, one that already protects the store (``rekey``) is kept as it is."""
    if not passphrase:
        raise InvalidInputError("The passphrase is empty.")
    if new:
        check_new_passphrase(passphrase)
    salt = nacl.utils.random(nacl.pwhash.argon2id.SALTBYTES)
    ops, mem = nacl.pwhash.argon2id.OPSLIMIT_INTERACTIVE, nacl.pwhash.argon2id.MEMLIMIT_INTERACTIVE
    box = nacl.secret.SecretBox(_stretch(passphrase, salt, ops, mem))
    info.mode = "passphrase"
    info.salt = base64.b64encode(salt).decode()
    info.opslimit, info.memlimit = ops, mem
    info.wrapped_key = base64.b64encode(bytes(box.encrypt(key))).decode()
    return info


def unwrap_with_passphrase(info: KeyInfo, passphrase: str) -> bytes:
    box = nacl.secret.SecretBox(
        _stretch(passphrase, base64.b64decode(info.salt), info.opslimit, info.memlimit)
    )
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
        info = KeyInfo(
            store_id=str(uuid.uuid4()), key_check=key_check(key), mode="keyring", created_at=now_iso()
        )
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
            try:
                key = bytes.fromhex(stored)
            except ValueError:
                key = b""
            if len(key) != 32 or not hmac.compare_digest(key_check(key), info.key_check):
                raise WrongKeyError(
                    "The key in the OS keyring does not belong to this store. "
                    "Run `veramem unlock --recovery-code`."
                )
            return key
        secret = self._passphrase(passphrase)
        if not secret:
            raise LockedError(LOCKED)
        return unwrap_with_passphrase(info, secret)

    def recover(
        self,
        code: str,
        *,
        new_passphrase: str | None = None,
        use_keyring: bool | None = None,
        open_store: Callable[[bytes], str] | None = None,
    ) -> bytes:
        """Check a recovery code against the store and keep its key again (keyring or new passphrase).

        When the key information is damaged, ``open_store`` (which opens the store with the
        key and returns its store id, or raises) confirms the code instead, and the key
        information is written anew.
        """
        key = decode_recovery_code(code)
        try:
            info = read_keyinfo(self.path)
        except (KeyFileDamagedError, NotInitialisedError):
            if open_store is None:
                raise
            store_id = open_store(key)  # raises when the code does not open this store
            info = KeyInfo(store_id=store_id, key_check=key_check(key), mode="keyring", created_at=now_iso())
        if not hmac.compare_digest(key_check(key), info.key_check):
            raise info.refuse(key, "That recovery code")
        if use_keyring is None:
            use_keyring = keyring_usable() and not new_passphrase
        if use_keyring:
            _keyring_set(info.store_id, key.hex())
            info.mode, info.salt, info.wrapped_key, info.opslimit, info.memlimit = "keyring", "", "", 0, 0
        else:
            secret = self._passphrase(new_passphrase)
            if not secret:
                raise MissingKeyError(
                    "No OS keyring is available: choose a new passphrase to keep the key under."
                )
            wrap_with_passphrase(info, key, secret)
        write_keyinfo(self.path, info)
        return key

    def check_recovery_code(self, code: str) -> bytes:
        """The key of a recovery code that opens this store, checked before anything else is asked.

        A typo (its checksum), a code of another store and a code from before a rekey (named with the
        rekey's date) are refused here. Where the key information is damaged or missing, the code is
        confirmed later by opening the store itself (:meth:`recover`).
        """
        key = decode_recovery_code(code)
        try:
            info = read_keyinfo(self.path)
        except (KeyFileDamagedError, NotInitialisedError):
            return key
        if not hmac.compare_digest(key_check(key), info.key_check):
            raise info.refuse(key, "That recovery code")
        return key

    def describe(self) -> dict[str, Any]:
        info = read_keyinfo(self.path)
        return {"mode": info.mode, "store_id": info.store_id, "created_at": info.created_at}


# ------------------------------------------------------------------ changing how the key is kept
def _keyring_delete(username: str) -> None:
    import keyring
    import keyring.errors

    try:
        keyring.delete_password(KEYRING_SERVICE, username)
    except keyring.errors.PasswordDeleteError:
        pass


def keep_key(path: Path, key: bytes, *, passphrase: str | None = None, use_keyring: bool = False) -> KeyInfo:
    """Keep the store's key another way: wrapped under a new passphrase, or in the OS keyring.

    The key itself does not change (see :func:`replace_key` for that). The new key
    information is written before the old keyring entry is removed, so an interruption
    leaves the key reachable one way or the other.
    """
    info = read_keyinfo(path)
    if not hmac.compare_digest(key_check(key), info.key_check):
        raise WrongKeyError("That key does not belong to this store: nothing was changed.")
    was_keyring = info.mode == "keyring"
    if use_keyring:
        if not keyring_usable():
            raise MissingKeyError("No OS keyring is available here, so the key stays under a passphrase.")
        _keyring_set(info.store_id, key.hex())
        info.mode, info.salt, info.wrapped_key, info.opslimit, info.memlimit = "keyring", "", "", 0, 0
    else:
        if not passphrase:
            raise MissingKeyError("Choose the new passphrase at the prompt (or in VERAMEM_NEW_PASSPHRASE).")
        wrap_with_passphrase(info, key, passphrase)
    write_keyinfo(path, info)
    if was_keyring and not use_keyring:
        _keyring_delete(info.store_id)
    return info


def pending_keyinfo_path(path: Path) -> Path:
    """Where the key information of a new store key waits while the store is re-encrypted."""
    return path.with_name(path.name + ".rekey")


def stage_new_key(path: Path, new_key: bytes, *, passphrase: str | None = None) -> KeyInfo:
    """Write the key information for ``new_key`` beside the current one (kept the same way).

    It becomes the key information with :func:`commit_new_key` once the store is
    re-encrypted; if the process stops in between, the staged file still unlocks the
    store (``veramem rekey`` finishes the switch when run again).
    """
    info = read_keyinfo(path)
    staged = KeyInfo(
        store_id=info.store_id, key_check=key_check(new_key), mode=info.mode, created_at=now_iso()
    )
    if info.mode == "keyring":
        _keyring_set(info.store_id + ".rekey", new_key.hex())
    else:
        if not passphrase:
            raise MissingKeyError("The store's passphrase is needed to keep the new key under it.")
        wrap_with_passphrase(staged, new_key, passphrase, new=False)  # the store's current passphrase
    write_keyinfo(pending_keyinfo_path(path), staged)
    return staged


def staged_key(path: Path, *, passphrase: str | None = None) -> bytes | None:
    """The new key staged by :func:`stage_new_key`, or None when no switch is pending."""
    pending = pending_keyinfo_path(path)
    if not pending.exists():
        return None
    info = read_keyinfo(pending)
    if info.mode == "keyring":
        stored = _keyring_get(info.store_id + ".rekey") if keyring_usable() else None
        if not stored:
            return None
        key = bytes.fromhex(stored)
        return key if hmac.compare_digest(key_check(key), info.key_check) else None
    if not passphrase:
        raise MissingKeyError("The store's passphrase is needed to read the staged key.")
    return unwrap_with_passphrase(info, passphrase)


def commit_new_key(path: Path, new_key: bytes) -> None:
    """Make the staged key information current (after the store was re-encrypted with ``new_key``)."""
    pending = pending_keyinfo_path(path)
    info = read_keyinfo(pending)
    if not hmac.compare_digest(key_check(new_key), info.key_check):
        raise WrongKeyError("The staged key information does not match the new key: nothing was changed.")
    if info.mode == "keyring":
        _keyring_set(info.store_id, new_key.hex())
    _retire_current(path, info)
    os.replace(pending, path)
    if info.mode == "keyring":
        _keyring_delete(info.store_id + ".rekey")


def _retire_current(path: Path, staged: KeyInfo) -> None:
    """Carry the current key's check value into the staged key information as retired now (with the keys
    retired before it), so a recovery code from before this rekey is recognised as this store's."""
    try:
        current = read_keyinfo(path)
    except (KeyFileDamagedError, NotInitialisedError):
        return  # nothing to carry: the staged information stands on its own
    if current.key_check == staged.key_check:
        return  # the switch was made already (an interrupted commit run again)
    earlier = [e for e in current.retired if e["key_check"] != staged.key_check]
    staged.retired = [*earlier, {"key_check": current.key_check, "retired_at": now_iso()}]
    write_keyinfo(pending_keyinfo_path(path), staged)


def discard_staged_key(path: Path) -> None:
    pending = pending_keyinfo_path(path)
    if pending.exists():
        info = read_keyinfo(pending)
        pending.unlink()
        if info.mode == "keyring" and keyring_usable():
            _keyring_delete(info.store_id + ".rekey")


def adopt_key(
    path: Path, key: bytes, store_id: str, *, passphrase: str | None = None, use_keyring: bool = False
) -> KeyInfo:
    """New key information for an existing key (a store restored where its key information was lost)."""
    info = KeyInfo(store_id=store_id, key_check=key_check(key), mode="keyring", created_at=now_iso())
    if use_keyring:
        _keyring_set(store_id, key.hex())
    else:
        if not passphrase:
            raise MissingKeyError("Choose a passphrase to keep the store's key under.")
        wrap_with_passphrase(info, key, passphrase)
    write_keyinfo(path, info)
    return info
