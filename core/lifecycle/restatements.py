"""What restates a forgotten memory: the messages and memories that repeat its value.

Forgetting "I moved to Lisbon in March." must not leave the assistant's "Noted: Lisbon since
March.", a tool's copy or a summary that says it, each still found by search. What repeats a
memory is decided by the same mechanism that finds a rejected value inside other text
(core/storage/rejections.py): a forgotten memory is known by the words of its value's confusable
skeleton (``phrase_of``), or, for a memory without a structured value, by the words of each of
its quotes (a copy of the quote, when the quote is long enough to say something on its own); a
message or memory restates it when its text holds those words in that order, however it is
spelled (case, accents, look-alike letters, spacing).

Where it looks is the forget's ``reach``: ``session`` (the default for a person's forget) looks
in the sessions the forgotten messages belong to, ``everywhere`` in every session of the same
user, ``none`` nowhere (what a synced device does when a tombstone arrives: the device that
forgot sends a tombstone for every restatement it erased). Only the same user's items are ever
looked at, and a caller that is not the person sees only what it may erase (``allowed``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from veramem_desktop.core.storage import forget_reach as reach_rows
from veramem_desktop.core.storage.near_misses import joined_runs
from veramem_desktop.core.storage.rejections import phrase_of
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.text.normalize import phrase_words

REACHES = ("none", "session", "everywhere")
#: a quote stands for a memory without a value only when it has this many words (fewer say too little)
MIN_QUOTE_WORDS = 3
#: and at most this many (a longer one is a whole message: its copies are found by its value, if any)
MAX_QUOTE_WORDS = 40
#: characters of each restatement's text shown in a forget plan
SHOWN_CHARS = 200

#: ids -> the ids among them the caller may erase
Allowed = Callable[[Sequence[str]], set[str]]


@dataclass(frozen=True)
class Reach:
    """How far a forget looks for restatements (``where``: one of :data:`REACHES`), and what the
    caller may erase (None: the person, who may erase anything)."""

    where: str = "session"
    allowed: Allowed | None = None


NO_REACH = Reach("none")


@dataclass
class Found:
    """The restating episodes and memories, and each one listed for the person (kind, id, session,
    the start of its text)."""

    episodes: set[str] = field(default_factory=set)
    memories: set[str] = field(default_factory=set)
    listed: list[dict[str, str]] = field(default_factory=list)


_NOT_WORD = re.compile(r"[\W_]+")


def find(conn: Connection, memories: set[str], episodes: set[str], reach: Reach) -> Found:
    """The episodes and memories, not already erased, that restate one of ``memories`` (those a
    forget erases for what they say, not the ones built from them) within ``reach``."""
    found = Found()
    if reach.where == "none" or not memories:
        return found
    phrases = phrases_of(conn, memories)
    users = reach_rows.owners_of(conn, memories | episodes)
    if not phrases or not users:
        return found
    sessions = None if reach.where == "everywhere" else reach_rows.sessions_of(conn, memories, episodes)
    erased = memories | episodes
    for kind, rows in (
        ("episode", _episode_texts(conn, users, sessions)),
        ("memory", _memory_texts(conn, users, sessions)),
    ):
        hits = [
            (oid, session, text) for oid, session, text in rows if oid not in erased and holds(text, phrases)
        ]
        if reach.allowed is not None and hits:
            keep = reach.allowed([h[0] for h in hits])
            hits = [h for h in hits if h[0] in keep]
        for oid, session, text in hits:
            (found.episodes if kind == "episode" else found.memories).add(oid)
            found.listed.append(
                {"kind": kind, "id": oid, "session_id": session or "", "text": text[:SHOWN_CHARS]}
            )
    return found


def phrases_of(conn: Connection, memories: set[str]) -> list[list[str]]:
    """The word sequences the memories are recognised by (see the module's docstring)."""
    phrases: list[list[str]] = []
    for mid, value in reach_rows.values_of(conn, memories):
        words = phrase_of(value) if isinstance(value, str) else None
        if words:
            phrases.append(words)
            continue
        for quote in reach_rows.quotes_of(conn, mid):
            words = phrase_words(quote)
            if MIN_QUOTE_WORDS <= len(words) <= MAX_QUOTE_WORDS:
                phrases.append(words)
    unique = {tuple(p) for p in phrases}
    return [list(p) for p in sorted(unique)]


def _episode_texts(
    conn: Connection, users: list[str | None], sessions: list[str] | None
) -> Iterable[tuple[str, str | None, str]]:
    for user in users:
        yield from reach_rows.episode_texts(conn, user, sessions)


def _memory_texts(
    conn: Connection, users: list[str | None], sessions: list[str] | None
) -> Iterable[tuple[str, str | None, str]]:
    for user in users:
        yield from reach_rows.memory_texts(conn, user, sessions)


def holds(text: str, phrases: Sequence[Sequence[str]]) -> bool:
    """Whether ``text`` holds one of ``phrases`` (ASCII text that lacks a phrase's first word, lower-cased
    and with 0, 1 and | read as o, l and l, is passed over unread, as the rejection scan does)."""
    folded = text.casefold().replace("0", "o").replace("1", "l").replace("|", "l") if text.isascii() else None
    glued = _NOT_WORD.sub("", folded) if folded is not None else None
    words: list[str] | None = None
    for phrase in phrases:
        if folded is not None and glued is not None and phrase[0] not in folded and phrase[0] not in glued:
            continue
        if words is None:
            words = phrase_words(text)
        n = len(phrase)
        if any(words[i : i + n] == list(phrase) for i in range(len(words) - n + 1)):
            return True
        # the phrase written apart ("L i s b o n", "Lis bon"), as near misses of a rejected value are read
        if " ".join(phrase) in joined_runs(words, n, len(" ".join(phrase)), 0):
            return True
    return False
