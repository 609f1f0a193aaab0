"""The rejected-value ledger: what a person rejected can never come back.

A rejection is kept per subject/predicate/scope as a confusable skeleton of the
value (core/normalize.py), so re-assertion, supersession, look-alike characters,
decay, pruning and consolidation cannot launder it back. Nothing removes a row
here except erasing the user who rejected it (``forget user:…``).

The skeleton is stored as an HMAC under a store-wide secret, never as text, so a
rejection can outlive a ``forget`` of the rejected memory without keeping its words.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re

from .ids import now_iso
from .items import MemoryItem
from .normalize import normalise, skeleton
from .store import Connection

TEXT_KEY = ("*", "text")
_ATTRIBUTION = re.compile(r"^\s*according to [^:]{1,80}:\s*", re.I)


def scope_of(user_id: str | None, team_id: str | None) -> str:
    return f"{user_id or ''}|{team_id or ''}"


def _secret(conn: Connection) -> bytes:
    row = conn.execute("SELECT value FROM meta WHERE key = 'rejection_key'").fetchone()
    if row is not None:
        return bytes.fromhex(row[0])
    key = os.urandom(32)
    conn.execute("INSERT INTO meta(key, value) VALUES ('rejection_key', ?)", (key.hex(),))
    return key


def _digest(secret: bytes, part: str) -> str:
    return hmac.new(secret, part.encode("utf-8"), hashlib.sha256).hexdigest()


def keys_for(conn: Connection, subject: str | None, predicate: str | None, value: str | None,
             text: str) -> list[tuple[str, str, str]]:
    """The keyed (subject, predicate, skeleton) triples a value is known by: its s/p/v when it has one, and its text."""
    secret = _secret(conn)
    keys = [(TEXT_KEY[0], TEXT_KEY[1], skeleton(_ATTRIBUTION.sub("", text)))]
    if subject and predicate and value:
        keys.append((normalise(subject), normalise(predicate), skeleton(value)))
    return [(_digest(secret, s), _digest(secret, p), _digest(secret, v)) for s, p, v in keys]


def record(conn: Connection, item: MemoryItem) -> None:
    scope = scope_of(item.user_id, item.team_id)
    for subject, predicate, skel in keys_for(conn, item.subject, item.predicate, item.value, item.text):
        conn.execute(
            "INSERT OR IGNORE INTO rejected_values(user_id, subject, predicate, scope, norm_value, skeleton, memory_id, created_at)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (item.user_id, subject, predicate, scope, "", skel, item.id, now_iso()),
        )


def is_rejected(conn: Connection, *, user_id: str | None, team_id: str | None, subject: str | None,
                predicate: str | None, value: str | None, text: str) -> bool:
    scope = scope_of(user_id, team_id)
    for subj, pred, skel in keys_for(conn, subject, predicate, value, text):
        row = conn.execute(
            "SELECT 1 FROM rejected_values WHERE subject = ? AND predicate = ? AND scope = ? AND skeleton = ?",
            (subj, pred, scope, skel),
        ).fetchone()
        if row is not None:
            return True
    return False
