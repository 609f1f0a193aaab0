"""The engine's closed vocabularies: a memory's status, trust, authority and kind, the state recall
gives a hit, and why a row is held out of recall.

Each is a :class:`Vocabulary`, a :class:`~enum.StrEnum` whose members *are* their strings: a member
equals, hashes, formats, binds as an SQL parameter and encodes to JSON exactly as the plain string
does, and the plain strings read back from the store compare equal to the members. ``repr`` is the
string's too (a plain StrEnum's is ``<Status.ACTIVE: 'active'>``), so a member that reaches a
message through ``!r``, a dataclass's repr or ``%r`` prints as the string did. Stored data, JSON,
every surface's output and the ledger's hashes are the same whether code writes ``Status.ACTIVE``
or ``"active"``; the members let a type checker and a reader see which vocabulary a value is of.

The values are the ones the schema's CHECK constraints allow (core/storage/schema_v1.py). This
module imports nothing from the engine, so every layer of core may use it.
"""

from __future__ import annotations

from enum import StrEnum


class Vocabulary(StrEnum):
    """A closed set of strings whose members print, hash and compare exactly as their strings."""

    def __repr__(self) -> str:
        return str.__repr__(self)


class Status(Vocabulary):
    """Where a stored memory is in its life (``memory_items.status``)."""

    #: what the memory holds now
    ACTIVE = "active"
    #: a newer version replaced it (``supersedes``), or it was merged into another memory
    SUPERSEDED = "superseded"
    #: a statement said it stopped holding, or a person deleted it
    RETRACTED = "retracted"
    #: consolidation set it aside (low utility); kept as history
    ARCHIVED = "archived"


class Trust(Vocabulary):
    """Whether a person has reviewed a memory (``memory_items.trust``)."""

    #: nobody has reviewed it yet: every derived or imported memory starts here
    CANDIDATE = "candidate"
    #: a person approved it
    VERIFIED = "verified"
    #: a person rejected it; its value may not come back (core/storage/rejections.py)
    REJECTED = "rejected"
    #: a raw episode's own trust on a search hit; never stored on a memory
    RAW = "raw"


class Authority(Vocabulary):
    """How far a memory's evidence lets it be relied on, from the role of its source message
    (``memory_items.authority``): nothing ever raises it."""

    #: the user (or the system prompt) said it
    AUTHORIZED = "authorized"
    #: the assistant said it
    ATTESTED = "attested"
    #: a tool, a document or a shared pool said it
    UNENDORSED = "unendorsed"


class Kind(Vocabulary):
    """What a memory is (``memory_items.kind``)."""

    FACT = "fact"
    PREFERENCE = "preference"
    EVENT = "event"
    #: distilled from successful traces (core/lifecycle/experiences.py)
    EXPERIENCE = "experience"
    #: a session's summary (core/lifecycle/consolidate.py)
    SUMMARY = "summary"


#: the kind a search hit of a raw message carries, beside the memory kinds
EPISODE_KIND = "episode"


class State(Vocabulary):
    """A hit's state, as recall's truth stage finds it (core/recall/truth.py); every surface shows it."""

    #: what the memory holds now
    CURRENT = "current"
    #: a current memory contradicted by another one a person has not settled
    IN_CONFLICT = "in_conflict"
    #: a message nothing was derived from
    RAW = "raw"
    #: history: a newer version replaced it
    SUPERSEDED = "superseded"
    #: stored as current, but a newer statement of the same attribute of the same person replaces it
    #: (recall's safety net, core/recall/safety_net.py, found the change the write path did not record)
    PROBABLY_SUPERSEDED = "probably_superseded"
    #: history: a statement retired it
    RETRACTED = "retracted"
    #: history: consolidation set it aside
    ARCHIVED = "archived"
    #: it resembles a rejected value; shown only to a person who asked for rejected material
    HELD = "held"
    #: a person rejected it, or it holds a rejected value; shown only to a person who asked
    REJECTED = "rejected"


#: the states of what holds now (current, or current and contested)
LIVE_STATES = frozenset({State.CURRENT, State.IN_CONFLICT})
#: states whose text is not what the memory holds now
STALE_STATES = frozenset({State.SUPERSEDED, State.PROBABLY_SUPERSEDED, State.RETRACTED, State.ARCHIVED})


class Withheld(Vocabulary):
    """Why a row is held out of recall (``withheld.reason``, core/storage/rejection_rows.py)."""

    #: it is, or it states, a value a person rejected
    REJECTED = "rejected"
    #: it resembles a rejected value closely enough to wait for a person
    RESEMBLES = "resembles"


class ForgetReason(Vocabulary):
    """The reasons for a forget the engine itself gives (a person's own reason is free text)."""

    #: its time to live ran out (core/lifecycle/expiry.py)
    EXPIRED = "expired"
