"""What an agent may do with the memory, pinned to one caller: the layer under MCP and REST.

An agent surface never chooses whose memory it reads: the user and agent ids are
fixed when the server starts (flags, ``VERAMEM_USER_ID`` / ``VERAMEM_AGENT_ID``, or
the config's identity) and every call goes through :class:`AgentAccess`, which

- searches and answers as that caller, so the access predicate and grants apply;
- passes that caller to every call that names an id (detail, history, forget,
  feedback), so the engine checks it may see the id with the same predicate search
  uses (core/curation/reads.py), and may erase only what the caller owns;
- lets agents write only user, assistant and tool messages;
- offers nothing that approves, rejects or raises trust: those are human acts;
- records every change it makes in the ledger as the agent's (or, with no agent id, the
  user's) through its channel (``mcp`` or ``rest``); a user message it writes is recorded
  as relayed by the agent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.actor import Actor

from .config import Config
from .memory import Memory

#: Roles an agent may write. System, document and shared evidence stay with the human surfaces.
AGENT_ROLES = ("user", "assistant", "tool")


@dataclass(frozen=True)
class Identity:
    user_id: str
    agent_id: str | None


def resolve_identity(config: Config, user_id: str | None = None, agent_id: str | None = None) -> Identity:
    """Explicit value, else the environment, else the config's identity."""
    user = user_id or os.environ.get("VERAMEM_USER_ID") or config.identity.user_id
    agent = agent_id or os.environ.get("VERAMEM_AGENT_ID") or config.identity.agent_id or None
    if not user:
        raise InvalidInputError("No user id: set VERAMEM_USER_ID or identity.user_id in the config.")
    return Identity(user, agent)


class AgentAccess:
    """The memory as one agent acting for one user may use it."""

    def __init__(self, memory: Memory, identity: Identity, *, channel: str = "mcp") -> None:
        self.memory = memory
        self.identity = identity
        self.channel = channel
        self.actor = (
            Actor.agent(identity.agent_id, channel)
            if identity.agent_id
            else Actor.user(identity.user_id, channel)
        )

    @property
    def caller(self) -> Caller:
        return Caller(self.identity.user_id, self.identity.agent_id)

    # ------------------------------------------------------------ write
    def add(
        self,
        messages: str | dict[str, Any] | Sequence[str | dict[str, Any]],
        *,
        session_id: str | None = None,
        until: str | None = None,
        expires_in: str | None = None,
    ) -> dict[str, Any]:
        items = [messages] if isinstance(messages, (str, dict)) else list(messages)
        if not items:
            raise InvalidInputError("Nothing to add: give at least one message.")
        for i, item in enumerate(items):
            role = item.get("role", "user") if isinstance(item, dict) else "user"
            if role not in AGENT_ROLES:
                raise InvalidInputError(
                    f"Message {i + 1} has role {role!r}; agents may add {', '.join(AGENT_ROLES)} messages only."
                )
        with self.memory.acting_as(self.actor):
            result = self.memory.adding.add(
                items,
                user_id=self.identity.user_id,
                agent_id=self.identity.agent_id,
                session_id=session_id,
                until=until,
                expires_in=expires_in,
            )
        return result.to_dict()

    def feedback(self, trace_id: str, reward: float) -> dict[str, Any]:
        self.memory.reading.require_trace(trace_id, caller=self.caller)
        with self.memory.acting_as(self.actor):
            return dict(
                self.memory.outcomes.feedback(trace_id, reward, by="agent")
            )  # an agent's word, never the person's

    def forget_preview(self, target: str) -> dict[str, Any]:
        return self.memory.reading.forget_preview(target, caller=self.caller).to_dict()

    def forget(self, target: str) -> dict[str, Any]:
        with self.memory.acting_as(self.actor):
            return self.memory.curation.forget(target, caller=self.caller).to_dict()

    # ------------------------------------------------------------ read
    def search(
        self, query: str, *, k: int | None = None, route: str | None = None, include_archived: bool = False
    ) -> Any:
        return self.memory.recall.search(
            query,
            user_id=self.identity.user_id,
            agent_id=self.identity.agent_id,
            k=k,
            route=route,
            include_archived=include_archived,
        )

    def answer(self, question: str, *, k: int | None = None) -> Any:
        return self.memory.recall.answer(
            question, user_id=self.identity.user_id, agent_id=self.identity.agent_id, k=k or 10
        )

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        # rejected versions are left out: an agent never sees rejected material
        return [v.to_dict() for v in self.memory.reading.history(memory_id, caller=self.caller)]

    def detail(self, memory_id: str) -> dict[str, Any]:
        """The item, its versions, ledger entries and evidence; evidence in episodes the caller cannot see is withheld
        (``evidence_withheld`` counts it)."""
        found = self.memory.reading.detail(memory_id, include_rejected=False, caller=self.caller)
        data: dict[str, Any] = json.loads(json.dumps(found.to_dict(), default=str))
        return data

    def episodes(
        self, *, session_id: str | None = None, limit: int = 50, offset: int = 0
    ) -> list[dict[str, Any]]:
        eps = self.memory.reading.episodes_seen_by(
            self.caller, session_id=session_id, limit=limit, offset=offset
        )
        return [e.to_dict() for e in eps]

    def status(self) -> dict[str, Any]:
        return self.memory.status()

    def verify(self) -> dict[str, Any]:
        return self.memory.reading.verify().to_dict()
