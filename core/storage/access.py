"""The access predicate: who may see which memory or episode, as SQL.

Every candidate channel (dense, BM25, entity, raw episodes) puts this predicate in
its own SQL, so nothing a caller may not see is ever scored. Grants are read at
query time, so revoking one hides items retroactively.

- A memory is visible when it is active (or archived, when asked for), not
  rejected, and: private and the caller's own; or team-visible and the caller is
  a current member of its team; or public. Preferences are only ever seen by their
  owner, whatever their visibility says.
- When an agent calls: if the user has granted agents explicitly (user_agent
  edges), or the agent has been granted to any user, the agent must hold a current
  grant from this user (an agent granted only for alice reads nothing of bob's,
  through any surface); if the agent has resource grants
  (agent_resource edges), it sees items written by no agent, by itself, or by the
  agents/resources it was granted.
- An episode is visible to its own user (and the agent rules above).
- A read or erase that names an id applies the same predicate (core/curation/reads.py); the
  person holding the store's key (:meth:`Caller.person`) may name any row.
- Every predicate ends with the one visibility rule (core/storage/visibility.py): rows
  that hold a rejected value or resemble one while a person has not decided (the
  ``withheld`` table), and rejected memories, are recalled by no one except a person
  who asks for rejected material (never an agent); expired rows by no one at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from veramem_desktop.core.storage import visibility
from veramem_desktop.core.storage.store import Connection

_ACTIVE = "{g}.granted_at <= :now AND ({g}.revoked_at IS NULL OR {g}.revoked_at > :now)"


@dataclass(frozen=True)
class Caller:
    """Who is asking: the user, the agent acting for them, and the time of the question."""

    user_id: str
    agent_id: str | None = None
    #: a person asking to see rejected material too (``--include-rejected``); ignored for agents
    include_rejected: bool = False
    #: the person who holds the store's key, at a surface of their own (CLI, TUI, SDK): a read or erase
    #: by id (core/curation/reads.py) may reach every row of the file, whoever it was recorded for; recall
    #: still answers for ``user_id`` alone. Never set for an agent surface (MCP, REST).
    keyholder: bool = False

    @classmethod
    def person(cls, user_id: str, *, include_rejected: bool = False) -> Caller:
        """The person at their own store (see ``keyholder``)."""
        return cls(user_id, None, include_rejected, keyholder=True)

    @property
    def shows_rejected(self) -> bool:
        return self.include_rejected and self.agent_id is None


def _user_agent_clause() -> str:
    """SQL: the agent ``:agent`` may act for the user ``:caller``: it holds a current grant from them, or
    no user_agent grant names either of them (an open store)."""
    active_ua = _ACTIVE.format(g="ua")
    return f"""(EXISTS (SELECT 1 FROM grants ua WHERE ua.kind = 'user_agent' AND ua.subject = :caller
                     AND ua.object = :agent AND {active_ua})
             OR (NOT EXISTS (SELECT 1 FROM grants ua WHERE ua.kind = 'user_agent' AND ua.subject = :caller)
                 AND NOT EXISTS (SELECT 1 FROM grants ua WHERE ua.kind = 'user_agent' AND ua.object = :agent)))"""


class Sight(NamedTuple):
    """What one search may see: the caller, the memory kinds it asks for, whether archived memories count,
    and the moment (ISO) the access predicate is read at."""

    caller: Caller
    kinds: tuple[str, ...]
    include_archived: bool
    now: str


def may_act_for(conn: Connection, caller: Caller, now: str) -> bool:
    """Whether the caller's agent (if any) may act for the caller's user at all: the grant half of the
    read rule, asked by writes, so an agent that reads nothing of a user writes nothing for them either."""
    if caller.agent_id is None or caller.keyholder:
        return True
    return bool(conn.execute(f"SELECT {_user_agent_clause()}", params(caller, now)).fetchone()[0])


def _agent_clause(alias: str) -> str:
    active_ar = _ACTIVE.format(g="ar")
    return f"""(
        :agent IS NULL
        OR (
            {_user_agent_clause()}
            AND
            (NOT EXISTS (SELECT 1 FROM grants ar WHERE ar.kind = 'agent_resource' AND ar.subject = :agent)
             OR {alias}.agent_id IS NULL OR {alias}.agent_id = :agent
             OR EXISTS (SELECT 1 FROM grants ar WHERE ar.kind = 'agent_resource' AND ar.subject = :agent
                        AND ar.object = {alias}.agent_id AND {active_ar}))
        )
    )"""


def memory_predicate(alias: str = "m", *, include_archived: bool = False) -> str:
    """SQL boolean over ``memory_items AS alias``; bind it with :func:`params`."""
    statuses = "('active', 'archived')" if include_archived else "('active')"
    active_tm = _ACTIVE.format(g="tm")
    return f"""(
        {alias}.status IN {statuses}
        AND (
            ({alias}.user_id = :caller AND ({alias}.visibility = 'private' OR {alias}.kind = 'preference'))
            OR ({alias}.kind != 'preference' AND {alias}.visibility = 'public')
            OR ({alias}.kind != 'preference' AND {alias}.visibility = 'team' AND {alias}.team_id IN (
                    SELECT tm.object FROM grants tm WHERE tm.kind = 'team_member' AND tm.subject = :caller AND {active_tm}))
        )
        AND {_agent_clause(alias)}
        AND {visibility.memory_shown(alias)}
    )"""


def episode_predicate(alias: str = "e") -> str:
    """SQL boolean over ``episodes AS alias``; bind it with :func:`params`."""
    return f"({alias}.user_id = :caller AND {_agent_clause(alias)} AND {visibility.episode_shown(alias)})"


def params(caller: Caller, now: str) -> dict[str, Any]:
    return {
        "caller": caller.user_id,
        "agent": caller.agent_id,
        "now": now,
        "show_rejected": int(caller.shows_rejected),
    }
