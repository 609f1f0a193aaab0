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

A value of one to three words is also kept by its *near keys*: keyed hashes of the variants its
skeleton (the words joined by one space) has after up to one edit (two from eight characters): a
character deleted, one replaced by a wildcard, two neighbours swapped. A run of words of another text
whose own variants meet one of them within that many edits in all ("Berlln" or "Ber1in" after "Berlin", "Porlamoo" after "Porlamo") is
a near miss: the text is *held* (withheld as ``resembles``) for a person to decide, on every path that
stores text, since they all call :func:`withhold_if_rejected`. The variants are computed the same way
on both sides (a symmetric-deletion index), so no rejected word is kept in clear.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from veramem_desktop.core.storage import meta, rejection_rows, scope_texts
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


#: the meta key of the secret every key here is an HMAC under
KEY_META = "rejection_key"
TEXT_KEY = ("*", "text")
#: (subject, predicate) of a near key: ``skeleton`` holds a variant's digest, ``norm_value`` "edits:allowed"
NEAR_KEY = ("*", "near")
#: shortest rejected word recognised by its near misses, and the length from which two edits count
NEAR_MIN_CHARS = 5
NEAR_TWO_EDITS_CHARS = 8
#: longest value, in words, recognised by its near misses ("New Yrok" after "New York")
NEAR_MAX_WORDS = 3
_WILD = "?"  # never a character of a skeleton's word
#: (subject, predicate) of a phrase key; its ``norm_value`` column holds the first word's digest
PHRASE_KEY = ("*", "phrase")
#: longest value, in words, recognised inside other text
MAX_PHRASE_WORDS = 8
_ATTRIBUTION = re.compile(r"^\s*according to [^:]{1,80}:\s*", re.I)


def scope_of(user_id: str | None, team_id: str | None) -> str:
    return f"{user_id or ''}|{team_id or ''}"


def _secret(conn: Connection) -> bytes:
    stored = meta.get(conn, KEY_META)
    if stored is not None:
        return bytes.fromhex(stored)
    key = os.urandom(32)
    meta.add(conn, KEY_META, key.hex())
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
    if words is not None and len(words) <= NEAR_MAX_WORDS:
        _record_near(conn, item, scope, " ".join(words))
    withheld = [item.id]
    rejection_rows.withhold_rejected(conn, item.id)
    # The messages the value was taken from hold it, whatever words it has.
    for episode_id in scope_texts.quoted_episode_ids(conn, item.id):
        rejection_rows.withhold(conn, "episode", episode_id, "rejected", item.id)
        withheld.append(episode_id)
    if words is not None:
        withheld += _withhold_holders(conn, item, words)
    return withheld


def near_edits(word: str) -> int:
    """How many edits a near miss of the rejected ``word`` may be (0: too short to tell)."""
    if len(word) < NEAR_MIN_CHARS:
        return 0
    return 2 if len(word) >= NEAR_TWO_EDITS_CHARS else 1


def variants(word: str, edits: int, *, swaps: bool = False) -> dict[str, int]:
    """Each string ``word`` becomes after up to ``edits`` deletions or wildcard replacements (and, with
    ``swaps``, one swap of neighbours), with the fewest edits that give it. Pure."""
    out = {word: 0}
    frontier = [word]
    for step in range(1, edits + 1):
        made_now: list[str] = []
        for text in frontier:
            for i in range(len(text)):
                if text[i] == _WILD:
                    continue
                for made in (text[:i] + text[i + 1 :], text[:i] + _WILD + text[i + 1 :]):
                    if made and made not in out:
                        out[made] = step
                        made_now.append(made)
        frontier = made_now
    if swaps:
        for i in range(len(word) - 1):
            made = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
            out.setdefault(made, 1)
    return out


#: meta flag: the near keys of rejections recorded before near keys existed were made
NEAR_BACKFILLED = "rejection_near_keys"


def _backfill_near(conn: Connection) -> None:
    """Once per store: near keys for the rejected memories still here that were recorded before near keys
    existed (their value is kept on the rejected row, so nothing is read that a person did not keep)."""
    if meta.get(conn, NEAR_BACKFILLED) is not None:
        return
    for memory_id, user_id, team_id, value in rejection_rows.rejected_memories(conn):
        words = phrase_of(value)
        if words is not None and len(words) <= NEAR_MAX_WORDS:
            _record_near_keys(conn, memory_id, user_id, scope_of(user_id, team_id), " ".join(words))
    meta.put(conn, NEAR_BACKFILLED, "1")


def _record_near(conn: Connection, item: RejectedMemory, scope: str, word: str) -> None:
    _record_near_keys(conn, item.id, item.user_id, scope, word)


def _record_near_keys(conn: Connection, memory_id: str, user_id: str | None, scope: str, word: str) -> None:
    edits = near_edits(word)
    if not edits:
        return
    secret = _secret(conn)
    subject, predicate = _digest(secret, NEAR_KEY[0]), _digest(secret, NEAR_KEY[1])
    for variant, used in sorted(variants(word, edits, swaps=True).items(), key=lambda kv: kv[1]):
        rejection_rows.add_value(
            conn,
            user_id=user_id,
            subject=subject,
            predicate=predicate,
            scope=scope,
            norm_value=f"{used}:{edits}:{len(word.split())}:{len(word)}",
            skeleton=_digest(secret, "near\x1f" + variant),
            memory_id=memory_id,
        )


def near_miss(conn: Connection, *, user_id: str | None, team_id: str | None, text: str) -> bool:
    """Whether ``text`` holds a word (or a run of up to three) within a few edits of a value rejected in
    this scope (the same words themselves are :func:`holding`'s)."""
    scope = scope_of(user_id, team_id)
    if not rejection_rows.scope_has_values(conn, scope):
        return False
    _backfill_near(conn)
    secret = _secret(conn)
    rows = rejection_rows.phrase_keys(conn, scope, _digest(secret, NEAR_KEY[0]), _digest(secret, NEAR_KEY[1]))
    if not rows:
        return False
    near: dict[str, tuple[int, int]] = {}
    shapes: set[tuple[int, int]] = set()  # (words, characters) of the rejected values
    for norm, digest in rows:
        parts = norm.split(":")
        if len(parts) != 4 or not all(p.isdigit() for p in parts):
            continue  # not a near key this code wrote
        used, allowed, n, length = (int(p) for p in parts)
        near[digest] = (used, allowed)
        shapes.add((n, length))
    if not near:
        return False
    most = max(a for _, a in near.values())
    words = phrase_words(text)
    # each run of as many words as a rejected value has, joined by one space as its near keys were, and
    # within a few characters of its length (the others cannot be a few edits away)
    runs = {
        run
        for n, length in shapes
        for i in range(len(words) - n + 1)
        if abs(len(run := " ".join(words[i : i + n])) - length) <= most
    }
    for run in runs:
        for variant in variants(run, most):
            found = near.get(_digest(secret, "near\x1f" + variant))
            # equal variants have their wildcards in the same places, each one substitution (counted on
            # the rejected side); the deletions made here are the rest of the edits between the runs
            if found is not None and 0 < found[0] + len(run) - len(variant) <= found[1]:
                return True
    return False


def _withhold_holders(conn: Connection, item: RejectedMemory, words: list[str]) -> list[str]:
    """Withhold every episode and memory of ``item``'s scope whose text holds the phrase ``words``."""
    out = []
    for kind, texts in (("episode", scope_texts.episode_texts), ("memory", scope_texts.memory_texts)):
        for owner_id, text in texts(conn, item.user_id, item.team_id):
            # The skeleton of ASCII text is the text lower-cased with 0, 1 and | read as o, l and l: one that
            # lacks the first word that way cannot hold the phrase. Other text is compared by skeleton.
            if text.isascii() and words[0] not in _ascii_skeleton(text):
                continue
            if _contains(phrase_words(text), words) and rejection_rows.withhold(
                conn, kind, owner_id, "rejected", item.id
            ):
                out.append(owner_id)
    return out


def _ascii_skeleton(text: str) -> str:
    return text.casefold().replace("0", "o").replace("1", "l").replace("|", "l")


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
    """Withhold each new (id, user_id, team_id, text) row that holds a rejected value of its scope, and
    hold (``resembles``) one holding a near miss of one; returns the ids withheld. Called wherever episodes and memories are inserted, synced ones included."""
    out = []
    for owner_id, user_id, team_id, text in rows:
        if not rejection_rows.scope_has_values(conn, scope_of(user_id, team_id)):
            continue  # nothing rejected in this scope: nothing to hold
        if holding(conn, user_id=user_id, team_id=team_id, texts=[text])[0]:
            reason = "rejected"
        elif near_miss(conn, user_id=user_id, team_id=team_id, text=text) or (
            owner_kind == "memory" and rejection_rows.cites_held(conn, owner_id)
        ):
            reason = "resembles"  # held for a person to decide, with what was taken from a held message
        else:
            continue
        if rejection_rows.withhold(conn, owner_kind, owner_id, reason, None):
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
        if rejection_rows.has_key(conn, subject=subj, predicate=pred, scope=scope, skeleton=skel):
            return True
    return any(holding(conn, user_id=user_id, team_id=team_id, texts=[text, value or ""]))
