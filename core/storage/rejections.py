"""The rejected-value ledger: what a person rejected can never come back.

A rejection is kept per subject/predicate/scope as a confusable skeleton of the
value (core/text/normalize.py), so re-assertion, supersession, look-alike characters,
decay, pruning and consolidation cannot launder it back. Nothing removes a row
here except erasing the user who rejected it (``forget user:…``).

The skeleton is stored as an HMAC under a store-wide secret, never as text, so a
rejection can outlive a ``forget`` of the rejected memory without keeping its words.

Besides the keys of the rejected memory itself, the value is kept as a *phrase*: the
keyed hash of its words and of its first word. Any text of the same scope that holds
those words (an episode of any role, a memory written before or after the rejection,
a summary) is then recognised without the value being stored, and is *withheld*:
listed in the ``withheld`` table, which the access predicate (core/storage/access.py) puts in
the SQL of every recall channel. Withheld rows are derived state: each device computes
them from the keys it holds.

A value of one to three words is also kept by its *near keys* (core/storage/near_misses.py): a text
holding a near miss of it ("Berlln" after "Berlin") is *held* (withheld as ``resembles``) for a person
to decide, on every path that stores text, since they all call :func:`withhold_if_rejected`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from veramem_desktop.core.storage import near_misses, rejection_rows, scope_texts
from veramem_desktop.core.storage.near_misses import NEAR_BACKFILLED, NEAR_KEY, variants
from veramem_desktop.core.storage.rejection_keys import (
    KEY_META,
    MAX_PHRASE_WORDS,
    ascii_skeleton,
    phrase_of,
    scope_of,
)
from veramem_desktop.core.storage.rejection_keys import digest as _digest
from veramem_desktop.core.storage.rejection_keys import secret as _secret
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.text.normalize import normalise, phrase_words, skeleton
from veramem_desktop.core.vocabulary import Withheld

__all__ = ["KEY_META", "MAX_PHRASE_WORDS", "NEAR_BACKFILLED", "NEAR_KEY", "phrase_of", "scope_of", "variants"]


class Scoped(Protocol):
    """Whose a memory or a message is: the user and team its rejections are scoped by."""

    @property
    def user_id(self) -> str | None: ...
    @property
    def team_id(self) -> str | None: ...


class Keyed(Protocol):
    """The key a statement may carry: its subject, predicate and value (each may be missing)."""

    @property
    def subject(self) -> str | None: ...
    @property
    def predicate(self) -> str | None: ...
    @property
    def value(self) -> str | None: ...


class RejectedMemory(Scoped, Keyed, Protocol):
    """What a rejection reads of the memory rejected (a core/storage/items.MemoryItem).

    Named by its fields rather than imported: items imports this module, to withhold what it inserts.
    """

    @property
    def id(self) -> str: ...
    @property
    def text(self) -> str: ...


TEXT_KEY = ("*", "text")
#: (subject, predicate) of a phrase key; its ``norm_value`` column holds the first word's digest
PHRASE_KEY = ("*", "phrase")
_ATTRIBUTION = re.compile(r"^\s*according to [^:]{1,80}:\s*", re.I)


def keys_for(
    conn: Connection, subject: str | None, predicate: str | None, value: str | None, text: str
) -> list[tuple[str, str, str]]:
    """The keyed (subject, predicate, skeleton) triples a value is known by: its s/p/v when it has one, and its text."""
    secret = _secret(conn)
    keys = [(TEXT_KEY[0], TEXT_KEY[1], skeleton(_ATTRIBUTION.sub("", text)))]
    if subject and predicate and value:
        keys.append((normalise(subject), normalise(predicate), skeleton(value)))
    return [(_digest(secret, s), _digest(secret, p), _digest(secret, v)) for s, p, v in keys]


def record(conn: Connection, item: RejectedMemory) -> list[str]:
    """Record ``item``'s value as rejected in its scope and withhold what holds it; returns the ids withheld.

    Runs where a person rejects and on every device a rejection is synced to: the keys, the phrase and
    the withheld rows are all computed locally from the item."""
    scope = scope_of(item.user_id, item.team_id)
    if rejection_rows.is_recorded(conn, item.id):
        return []  # recorded before (a synced change applied again): new rows are checked as they arrive
    for subject, predicate, skel in keys_for(conn, item.subject, item.predicate, item.value, item.text):
        rejection_rows.add_value(
            conn,
            user_id=item.user_id,
            subject=subject,
            predicate=predicate,
            scope=scope,
            norm_value="",
            skeleton=skel,
            memory_id=item.id,
        )
    words = phrase_of(item.value)
    if words is not None:
        secret = _secret(conn)
        rejection_rows.add_value(
            conn,
            user_id=item.user_id,
            subject=_digest(secret, PHRASE_KEY[0]),
            predicate=_digest(secret, PHRASE_KEY[1]),
            scope=scope,
            norm_value=_digest(secret, words[0]),
            skeleton=_digest(secret, " ".join(words)),
            memory_id=item.id,
        )
    if words is not None and len(words) <= near_misses.NEAR_MAX_WORDS:
        near_misses.record_near_keys(conn, item.id, item.user_id, scope, " ".join(words))
    withheld = [item.id]
    rejection_rows.withhold_rejected(conn, item.id)
    # The messages the value was taken from hold it, whatever words it has.
    for episode_id in scope_texts.quoted_episode_ids(conn, item.id):
        rejection_rows.withhold(conn, "episode", episode_id, Withheld.REJECTED, item.id)
        withheld.append(episode_id)
    if words is not None:
        withheld += _withhold_holders(conn, item, words)
        if len(words) <= near_misses.NEAR_MAX_WORDS:
            withheld += near_misses.hold_near_holders(
                conn, item.id, item.user_id, item.team_id, " ".join(words)
            )
    return withheld


def _withhold_holders(conn: Connection, item: RejectedMemory, words: list[str]) -> list[str]:
    """Withhold every episode and memory of ``item``'s scope whose text holds the phrase ``words``."""
    out = []
    for kind, texts in (("episode", scope_texts.episode_texts), ("memory", scope_texts.memory_texts)):
        for owner_id, text in texts(conn, item.user_id, item.team_id):
            # The skeleton of ASCII text is the text lower-cased with 0, 1 and | read as o, l and l: one that
            # lacks the first word that way cannot hold the phrase. Other text is compared by skeleton.
            if text.isascii() and words[0] not in ascii_skeleton(text):
                continue
            if _contains(phrase_words(text), words) and rejection_rows.withhold(
                conn, kind, owner_id, Withheld.REJECTED, item.id
            ):
                out.append(owner_id)
    return out


def _contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    n = len(needle)
    return any(list(haystack[i : i + n]) == list(needle) for i in range(len(haystack) - n + 1))


def holding(
    conn: Connection, *, user_id: str | None, team_id: str | None, texts: Sequence[str]
) -> list[bool]:
    """For each text, whether it holds a value rejected in this scope (any role, any subject)."""
    scope = scope_of(user_id, team_id)
    if not rejection_rows.scope_has_values(conn, scope):
        return [False] * len(texts)  # nothing rejected here: no text is read
    secret = _secret(conn)
    rows = rejection_rows.phrase_keys(
        conn, scope, _digest(secret, PHRASE_KEY[0]), _digest(secret, PHRASE_KEY[1])
    )
    if not rows:
        return [False] * len(texts)
    heads = {r.norm_value for r in rows}
    phrases = {r.skeleton for r in rows}
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
    """Withhold each new (id, user_id, team_id, text) row that holds a rejected value of its scope, and
    hold (``resembles``) one holding a near miss of one; returns the ids withheld. Called wherever episodes and memories are inserted, synced ones included."""
    out = []
    for owner_id, user_id, team_id, text in rows:
        if not rejection_rows.scope_has_values(conn, scope_of(user_id, team_id)):
            continue  # nothing rejected in this scope: nothing to hold
        if holding(conn, user_id=user_id, team_id=team_id, texts=[text])[0]:
            reason = Withheld.REJECTED
        elif near_misses.near_miss(conn, user_id=user_id, team_id=team_id, text=text) or (
            owner_kind == "memory" and rejection_rows.cites_held(conn, owner_id)
        ):
            # held for a person to decide, with what was taken from a held message
            reason = Withheld.RESEMBLES
        else:
            continue
        if rejection_rows.withhold(conn, owner_kind, owner_id, reason, None):
            out.append(owner_id)
    return out


def is_rejected(conn: Connection, owner: Scoped, claim: Keyed, text: str) -> bool:
    """Whether a candidate restates a rejected value in ``owner``'s scope: ``claim``'s own keys, or the
    rejected words inside ``text``."""
    scope = scope_of(owner.user_id, owner.team_id)
    for subj, pred, skel in keys_for(conn, claim.subject, claim.predicate, claim.value, text):
        if rejection_rows.has_key(conn, subject=subj, predicate=pred, scope=scope, skeleton=skel):
            return True
    return any(holding(conn, user_id=owner.user_id, team_id=owner.team_id, texts=[text, claim.value or ""]))
