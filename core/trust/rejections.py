"""The rejected-value ledger: what a person rejected can never come back.

A rejection is kept per subject/predicate/scope as a confusable skeleton of the
value (core/trust/normalize.py), so re-assertion, supersession, look-alike characters,
decay, pruning and consolidation cannot launder it back. Nothing removes a row
here except erasing the user who rejected it (``forget user:…``).

The skeleton is stored as an HMAC under a store-wide secret, never as text, so a
rejection can outlive a ``forget`` of the rejected memory without keeping its words.

Besides the keys of the rejected memory itself, the value is kept as a *phrase*: the
keyed hash of its words and of its first word. Any text of the same scope that holds
those words (an episode of any role, a memory written before or after the rejection,
a summary) is then recognised without the value being stored, and is *withheld*:
listed in the ``withheld`` table, which the access predicate (core/trust/access.py) puts in
the SQL of every recall channel. Withheld rows are derived state: each device computes
them from the keys it holds.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from veramem_desktop.core.storage import meta
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.trust.normalize import normalise, phrase_words, skeleton


class RejectedMemory(Protocol):
    """What a rejection reads of the memory rejected (a core/storage/items.MemoryItem).

    Named by its fields rather than imported: items imports this module, to withhold what it inserts.
    """

    @property
    def id(self) -> str: ...
    @property
    def user_id(self) -> str | None: ...
    @property
    def team_id(self) -> str | None: ...
    @property
    def subject(self) -> str | None: ...
    @property
    def predicate(self) -> str | None: ...
    @property
    def value(self) -> str | None: ...
    @property
    def text(self) -> str: ...


TEXT_KEY = ("*", "text")
#: (subject, predicate) of a phrase key; its ``norm_value`` column holds the first word's digest
PHRASE_KEY = ("*", "phrase")
#: longest value, in words, recognised inside other text
MAX_PHRASE_WORDS = 8
_ATTRIBUTION = re.compile(r"^\s*according to [^:]{1,80}:\s*", re.I)


def scope_of(user_id: str | None, team_id: str | None) -> str:
    return f"{user_id or ''}|{team_id or ''}"


def _secret(conn: Connection) -> bytes:
    row = conn.execute("SELECT value FROM meta WHERE key = 'rejection_key'").fetchone()
    if row is not None:
        return bytes.fromhex(row[0])
    key = os.urandom(32)
    meta.add(conn, "rejection_key", key.hex())
    return key


def _digest(secret: bytes, part: str) -> str:
    return hmac.new(secret, part.encode("utf-8"), hashlib.sha256).hexdigest()


def keys_for(
    conn: Connection, subject: str | None, predicate: str | None, value: str | None, text: str
) -> list[tuple[str, str, str]]:
    """The keyed (subject, predicate, skeleton) triples a value is known by: its s/p/v when it has one, and its text."""
    secret = _secret(conn)
    keys = [(TEXT_KEY[0], TEXT_KEY[1], skeleton(_ATTRIBUTION.sub("", text)))]
    if subject and predicate and value:
        keys.append((normalise(subject), normalise(predicate), skeleton(value)))
    return [(_digest(secret, s), _digest(secret, p), _digest(secret, v)) for s, p, v in keys]


def phrase_of(value: str | None) -> list[str] | None:
    """The words a rejected value is recognised by inside other text, or None when it is too short or too
    long to say anything on its own (a value of one or two characters would withhold half the store)."""
    if not value:
        return None
    words = phrase_words(value)
    if not words or len(words) > MAX_PHRASE_WORDS or sum(len(w) for w in words) < 3:
        return None
    return words


def record(conn: Connection, item: RejectedMemory) -> list[str]:
    """Record ``item``'s value as rejected in its scope and withhold what holds it; returns the ids withheld.

    Runs where a person rejects and on every device a rejection is synced to: the keys, the phrase and
    the withheld rows are all computed locally from the item."""
    scope = scope_of(item.user_id, item.team_id)
    done = conn.execute(
        "SELECT 1 FROM withheld WHERE owner_kind = 'memory' AND owner_id = ? AND memory_id = ?",
        (item.id, item.id),
    ).fetchone()
    if done is not None:
        return []  # recorded before (a synced change applied again): new rows are checked as they arrive
    for subject, predicate, skel in keys_for(conn, item.subject, item.predicate, item.value, item.text):
        conn.execute(
            "INSERT OR IGNORE INTO rejected_values(user_id, subject, predicate, scope, norm_value, skeleton, memory_id, created_at)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (item.user_id, subject, predicate, scope, "", skel, item.id, now_iso()),
        )
    words = phrase_of(item.value)
    if words is not None:
        secret = _secret(conn)
        conn.execute(
            "INSERT OR IGNORE INTO rejected_values(user_id, subject, predicate, scope, norm_value, skeleton, memory_id, created_at)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (
                item.user_id,
                _digest(secret, PHRASE_KEY[0]),
                _digest(secret, PHRASE_KEY[1]),
                scope,
                _digest(secret, words[0]),
                _digest(secret, " ".join(words)),
                item.id,
                now_iso(),
            ),
        )
    withheld = [item.id]
    conn.execute(
        "INSERT OR REPLACE INTO withheld(owner_kind, owner_id, reason, memory_id, created_at) "
        "VALUES ('memory', ?, 'rejected', ?, ?)",
        (item.id, item.id, now_iso()),
    )
    # The messages the value was taken from hold it, whatever words it has.
    for (episode_id,) in conn.execute(
        "SELECT episode_id FROM evidence WHERE memory_id = ?", (item.id,)
    ).fetchall():
        withhold(conn, "episode", episode_id, "rejected", item.id)
        withheld.append(episode_id)
    if words is not None:
        withheld += _withhold_holders(conn, item, words)
    return withheld


def _withhold_holders(conn: Connection, item: RejectedMemory, words: list[str]) -> list[str]:
    """Withhold every episode and memory of ``item``'s scope whose text holds the phrase ``words``."""
    out = []
    for kind, sql in (
        ("episode", "SELECT id, content FROM episodes WHERE user_id IS ? AND team_id IS ?"),
        ("memory", "SELECT id, text FROM memory_items WHERE user_id IS ? AND team_id IS ?"),
    ):
        for owner_id, text in conn.execute(sql, (item.user_id, item.team_id)).fetchall():
            # The skeleton of ASCII text is the text lower-cased with 0, 1 and | read as o, l and l: one that
            # lacks the first word that way cannot hold the phrase. Other text is compared by skeleton.
            if text.isascii() and words[0] not in _ascii_skeleton(text):
                continue
            if _contains(phrase_words(text), words) and withhold(conn, kind, owner_id, "rejected", item.id):
                out.append(owner_id)
    return out


def _ascii_skeleton(text: str) -> str:
    return text.casefold().replace("0", "o").replace("1", "l").replace("|", "l")


def _contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    n = len(needle)
    return any(list(haystack[i : i + n]) == list(needle) for i in range(len(haystack) - n + 1))


def withhold(conn: Connection, owner_kind: str, owner_id: str, reason: str, memory_id: str | None) -> bool:
    """Hold a row out of recall (True when it was not held already)."""
    cur = conn.execute(
        "INSERT OR IGNORE INTO withheld(owner_kind, owner_id, reason, memory_id, created_at) "
        "VALUES (?,?,?,?,?)",
        (owner_kind, owner_id, reason, memory_id, now_iso()),
    )
    return bool(cur.rowcount > 0)


def release(conn: Connection, owner_kind: str, owner_id: str) -> None:
    """A person approved a row that only resembled a rejected value: it may be recalled again."""
    conn.execute(
        "DELETE FROM withheld WHERE owner_kind = ? AND owner_id = ? AND reason = 'resembles'",
        (owner_kind, owner_id),
    )


def is_withheld(conn: Connection, owner_kind: str, owner_id: str) -> str | None:
    row = conn.execute(
        "SELECT reason FROM withheld WHERE owner_kind = ? AND owner_id = ?", (owner_kind, owner_id)
    ).fetchone()
    return str(row[0]) if row is not None else None


def holding(
    conn: Connection, *, user_id: str | None, team_id: str | None, texts: Sequence[str]
) -> list[bool]:
    """For each text, whether it holds a value rejected in this scope (any role, any subject)."""
    scope = scope_of(user_id, team_id)
    if conn.execute("SELECT 1 FROM rejected_values WHERE scope = ? LIMIT 1", (scope,)).fetchone() is None:
        return [False] * len(texts)  # nothing rejected here: no text is read
    secret = _secret(conn)
    rows = conn.execute(
        "SELECT norm_value, skeleton FROM rejected_values WHERE scope = ? AND subject = ? AND predicate = ?",
        (scope, _digest(secret, PHRASE_KEY[0]), _digest(secret, PHRASE_KEY[1])),
    ).fetchall()
    if not rows:
        return [False] * len(texts)
    heads = {r[0] for r in rows}
    phrases = {r[1] for r in rows}
    return [_holds(secret, heads, phrases, text) for text in texts]


def _holds(secret: bytes, heads: set[str], phrases: set[str], text: str) -> bool:
    words = phrase_words(text)
    digests: dict[str, str] = {}
    for i, word in enumerate(words):
        head = digests.get(word)
        if head is None:
            head = digests[word] = _digest(secret, word)
        if head not in heads:
            continue
        for n in range(1, MAX_PHRASE_WORDS + 1):
            if i + n > len(words):
                break
            if _digest(secret, " ".join(words[i : i + n])) in phrases:
                return True
    return False


def withhold_if_rejected(
    conn: Connection, owner_kind: str, rows: Iterable[tuple[str, str | None, str | None, str]]
) -> list[str]:
    """Withhold each new (id, user_id, team_id, text) row that holds a rejected value of its scope;
    returns the ids withheld. Called wherever episodes and memories are inserted, synced ones included."""
    out = []
    for owner_id, user_id, team_id, text in rows:
        if holding(conn, user_id=user_id, team_id=team_id, texts=[text])[0] and withhold(
            conn, owner_kind, owner_id, "rejected", None
        ):
            out.append(owner_id)
    return out


def is_rejected(
    conn: Connection,
    *,
    user_id: str | None,
    team_id: str | None,
    subject: str | None,
    predicate: str | None,
    value: str | None,
    text: str,
) -> bool:
    """Whether a candidate restates a rejected value: its own keys, or the rejected words inside its text."""
    scope = scope_of(user_id, team_id)
    for subj, pred, skel in keys_for(conn, subject, predicate, value, text):
        row = conn.execute(
            "SELECT 1 FROM rejected_values WHERE subject = ? AND predicate = ? AND scope = ? AND skeleton = ?",
            (subj, pred, scope, skel),
        ).fetchone()
        if row is not None:
            return True
    return any(holding(conn, user_id=user_id, team_id=team_id, texts=[text, value or ""]))


def withheld_ids(conn: Connection, owner_kind: str, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` are held out of recall."""
    out: set[str] = set()
    for i in range(0, len(ids), 500):
        chunk = list(ids[i : i + 500])
        out |= {
            r[0]
            for r in conn.execute(
                f"SELECT owner_id FROM withheld WHERE owner_kind = ? AND owner_id IN ({','.join('?' * len(chunk))})",
                [owner_kind, *chunk],
            ).fetchall()
        }
    return out


def scope_has_values(conn: Connection, scope: str) -> bool:
    """Whether any value is rejected in ``scope`` (:func:`scope_of`); where none is, nothing is withheld."""
    return (
        conn.execute("SELECT 1 FROM rejected_values WHERE scope = ? LIMIT 1", (scope,)).fetchone() is not None
    )


def has_values_of(conn: Connection, memory_id: str) -> bool:
    """Whether rejected values recorded from the memory ``memory_id`` are here."""
    return (
        conn.execute("SELECT 1 FROM rejected_values WHERE memory_id = ?", (memory_id,)).fetchone() is not None
    )
