"""The rejected-value ledger: what a person rejected can never come back.

A rejection is kept per subject/predicate/scope as a confusable skeleton of the
value (core/normalize.py), so re-assertion, supersession, look-alike characters,
decay, pruning and consolidation cannot launder it back. Nothing removes a row
here except erasing the user who rejected it (``forget user:…``).
"""

from __future__ import annotations

from .ids import now_iso
from .items import MemoryItem
from .normalize import normalise, skeleton
from .store import Connection

TEXT_KEY = ("*", "text")


def scope_of(user_id: str | None, team_id: str | None) -> str:
    return f"{user_id or ''}|{team_id or ''}"


def keys_for(subject: str | None, predicate: str | None, value: str | None, text: str) -> list[tuple[str, str, str]]:
    """The (subject, predicate, skeleton) keys a value is known by: its s/p/v when it has one, and its text."""
    keys = [(TEXT_KEY[0], TEXT_KEY[1], skeleton(text))]
    if subject and predicate and value:
        keys.append((normalise(subject), normalise(predicate), skeleton(value)))
    return keys


def record(conn: Connection, item: MemoryItem) -> None:
    scope = scope_of(item.user_id, item.team_id)
    for subject, predicate, skel in keys_for(item.subject, item.predicate, item.value, item.text):
        conn.execute(
            "INSERT OR IGNORE INTO rejected_values(user_id, subject, predicate, scope, norm_value, skeleton, memory_id, created_at)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (item.user_id, subject, predicate, scope, normalise(item.value or item.text), skel, item.id, now_iso()),
        )


def is_rejected(conn: Connection, *, user_id: str | None, team_id: str | None, subject: str | None,
                predicate: str | None, value: str | None, text: str) -> bool:
    scope = scope_of(user_id, team_id)
    for subj, pred, skel in keys_for(subject, predicate, value, text):
        row = conn.execute(
            "SELECT 1 FROM rejected_values WHERE subject = ? AND predicate = ? AND scope = ? AND skeleton = ?",
            (subj, pred, scope, skel),
        ).fetchone()
        if row is not None:
            return True
    return False
