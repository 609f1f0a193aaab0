"""Who is acting: the person, agent or system process behind a change, and the surface it came through.

Every ledger entry records its :class:`Actor` inside the part of the entry its hash
covers (``details["actor"]``), so editing who did something breaks ``verify`` like
editing what was done. Entries written before actors were recorded carry none and
stay valid.

The surface that builds the ``Memory`` facade says who acts: the CLI and TUI act as
the person (the config's user id), MCP and REST as their fixed agent, consolidation
and sync as the system. The actor is held by the store's connection in an
:class:`Acting` (one per connection, one value per thread), set for the length of a
call with :meth:`Acting.scope`; :func:`core.ledger.append` reads it, so the engine's
functions do not each take one more argument. The outermost scope wins: an agent
surface that forgets through the facade stays the actor, even though the facade's
own method would otherwise act as the person.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

#: who can act
KINDS = ("user", "agent", "system")
#: the surfaces a change comes through
CHANNELS = ("cli", "sdk", "mcp", "rest", "tui", "sync", "consolidate")


@dataclass(frozen=True)
class Actor:
    kind: str  # one of KINDS
    id: str
    channel: str  # one of CHANNELS

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"actor kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.channel not in CHANNELS:
            raise ValueError(f"channel {self.channel!r} is not one of {', '.join(CHANNELS)}")

    @classmethod
    def user(cls, user_id: str, channel: str) -> Actor:
        return cls("user", user_id or "user", channel)

    @classmethod
    def agent(cls, agent_id: str, channel: str) -> Actor:
        return cls("agent", agent_id, channel)

    @classmethod
    def system(cls, name: str, channel: str) -> Actor:
        return cls("system", name, channel)

    def record(self, *, speaker_role: str | None = None) -> dict[str, str]:
        """What the ledger keeps. A message in the user's name written by an agent is marked as relayed:
        the agent put it there, the person's words came through it."""
        out = {"kind": self.kind, "id": self.id, "channel": self.channel}
        if self.kind == "agent" and speaker_role == "user":
            out["relayed"] = "user"
        return out


def describe(record: Any) -> str:
    """One line for a person: "agent cursor via mcp (relaying a user message)"; "" when none was recorded."""
    if not isinstance(record, dict) or not record.get("kind"):
        return ""
    text = f"{record.get('kind')} {record.get('id', '?')} via {record.get('channel', '?')}"
    if record.get("origin_channel"):
        text += f" (first via {record['origin_channel']})"
    if record.get("relayed") == "user":
        text += " (relaying a user message)"
    return text


class Acting:
    """Who is acting on one connection: a default for the surface, and a value per thread for a call."""

    def __init__(self, default: Actor | None = None) -> None:
        self.default = default
        self._local = threading.local()

    def current(self) -> Actor | None:
        actor: Actor | None = getattr(self._local, "actor", None)
        return actor if actor is not None else self.default

    @contextmanager
    def scope(self, actor: Actor | None, *, system: bool = False) -> Iterator[Actor | None]:
        """Act as ``actor`` in this thread until the block ends, unless an outer scope already says who acts.

        ``system``: a system job (consolidation, expiry, sync) acts as itself whoever started it."""
        outer: Actor | None = getattr(self._local, "actor", None)
        if actor is None or (outer is not None and not system):
            yield outer
            return
        self._local.actor = actor
        try:
            yield actor
        finally:
            self._local.actor = outer
