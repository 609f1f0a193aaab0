"""The keys of the rejected-value ledger: the store-wide secret they are HMACs under, the scope they are
kept in, and the words a value is recognised by (core/storage/rejections.py and near_misses.py use them)."""

from __future__ import annotations

import hashlib
import hmac
import os

from veramem_desktop.core.storage import meta
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.text.normalize import phrase_words

#: the meta key of the secret every key is an HMAC under
KEY_META = "rejection_key"
#: longest value, in words, recognised inside other text
MAX_PHRASE_WORDS = 8


def scope_of(user_id: str | None, team_id: str | None) -> str:
    return f"{user_id or ''}|{team_id or ''}"


def secret(conn: Connection) -> bytes:
    """The store's rejection secret, made on first use (inside the caller's write transaction)."""
    stored = meta.get(conn, KEY_META)
    if stored is not None:
        return bytes.fromhex(stored)
    key = os.urandom(32)
    meta.add(conn, KEY_META, key.hex())
    return key


def digest(key: bytes, part: str) -> str:
    return hmac.new(key, part.encode("utf-8"), hashlib.sha256).hexdigest()


def phrase_of(value: str | None) -> list[str] | None:
    """The words a rejected value is recognised by inside other text, or None when it is too short or too
    long to say anything on its own (a value of one or two characters would withhold half the store)."""
    if not value:
        return None
    words = phrase_words(value)
    if not words or len(words) > MAX_PHRASE_WORDS or sum(len(w) for w in words) < 3:
        return None
    return words


def ascii_skeleton(text: str) -> str:
    """The skeleton of ASCII text: lower-cased, with 0, 1 and | read as o, l and l."""
    return text.casefold().replace("0", "o").replace("1", "l").replace("|", "l")
