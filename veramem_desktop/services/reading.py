"""Reads of one open store: memories, their versions and detail, messages, sessions, links and the ledger.

A read that names an id (a memory, a message, a trace, a memory's links or ledger entries) takes a
caller and goes through ``core/curation/reads.py``, where the access check lives: the person at their
own store (``Caller.person``: CLI, TUI, SDK, the default when no caller is given) may name any row,
an agent caller (MCP, REST) only what it may see, and anything else is "not found". Listings
(``memories``, ``episodes``, ``sessions``) are the person's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from veramem_desktop.core.curation import detail as detail_mod
from veramem_desktop.core.curation import reads
from veramem_desktop.core.curation.detail import MemoryDetail
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.recall.states import states as recall_states
from veramem_desktop.core.storage import episodes as episodes_mod
from veramem_desktop.core.storage import items as items_mod
from veramem_desktop.core.storage import ledger, ledger_verify, stats
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.ids import iso
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.text.time_values import parse_time
from veramem_desktop.core.vocabulary import Status

from ..config import IdentitySettings


def caller_for(
    identity: IdentitySettings,
    user_id: str | None = None,
    agent_id: str | None = None,
    *,
    include_rejected: bool = False,
) -> Caller:
    """Who is asking: the ids given, else the settings' identity (an agent left empty is none).
    ``include_rejected`` is a person's request to see rejected material too; an agent never gets it
    (core/storage/access.py ignores it whenever an agent id is set)."""
    return Caller(
        user_id or identity.user_id,
        agent_id if agent_id is not None else (identity.agent_id or None),
        include_rejected,
    )


def reader_for(identity: IdentitySettings, caller: Caller | None, include_rejected: bool = False) -> Caller:
    """Who reads or erases by id: ``caller``, or the person (the settings' user) at their own store; with
    ``include_rejected``, a person asking to see rejected material too (an agent never does)."""
    if caller is None:
        return Caller.person(identity.user_id or "user", include_rejected=include_rejected)
    return replace(caller, include_rejected=include_rejected)


class Reading:
    """The reads of one open store, made for the person of ``identity`` unless a caller is given."""

    def __init__(self, store: Store, identity: IdentitySettings) -> None:
        self.store = store
        self.identity = identity

    def _reader(self, caller: Caller | None, include_rejected: bool = False) -> Caller:
        return reader_for(self.identity, caller, include_rejected)

    # ------------------------------------------------------------ memories
    def get(self, memory_id: str, *, caller: Caller | None = None) -> MemoryItem:
        """The memory ``memory_id``, as ``caller`` (the person by default) may read it: the person reads a
        rejected one too (to see what they decided), an agent never; an expired one is not found."""
        return reads.get(self.store, self._reader(caller), memory_id)

    def memories(
        self,
        *,
        user_id: str | None = None,
        kind: str | None = None,
        status: str | None = Status.ACTIVE,
        authority: str | None = None,
        trust: str | None = None,
        agent_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[MemoryItem]:
        """Memory items, newest first, filtered by any of the given fields (None means any)."""
        return items_mod.list_items(
            self.store,
            user_id=user_id,
            kind=kind,
            status=status,
            authority=authority,
            trust=trust,
            agent_id=agent_id,
            limit=limit,
            offset=offset,
        )

    def history(
        self,
        memory_id: str,
        *,
        as_of: str | datetime | None = None,
        include_rejected: bool = False,
        caller: Caller | None = None,
    ) -> list[MemoryItem]:
        """Every version of a memory, oldest first; with ``as_of``, the one version valid then (or none).
        Rejected versions, and versions holding a rejected value, only with ``include_rejected`` (a person
        only). ``caller``: who reads (the person by default; an agent surface passes its own)."""
        reader = self._reader(caller, include_rejected)
        if as_of is None:
            return reads.history(self.store, reader, memory_id)
        moment = iso(as_of) if isinstance(as_of, datetime) else iso(parse_time(as_of))
        return reads.as_of(self.store, reader, memory_id, moment)

    def states(self, items: Sequence[MemoryItem]) -> dict[str, str]:
        """Each memory's state by id, as search labels it (core/recall/states.py)."""
        return recall_states(self.store, [item.id for item in items])

    def detail(
        self, memory_id: str, *, include_rejected: bool = False, caller: Caller | None = None
    ) -> MemoryDetail:
        """A memory with its evidence inside the source episodes, its versions, ledger entries and links.
        Without ``include_rejected``, a rejected memory is not found, and rejected versions and evidence
        holding a rejected value are left out. ``caller``: who reads (the person by default); evidence in
        messages an agent caller may not see is left out and counted in ``evidence_withheld``."""
        return detail_mod.detail(self.store, self._reader(caller, include_rejected), memory_id)

    def links(self, memory_id: str, *, caller: Caller | None = None) -> list[dict[str, Any]]:
        """Every typed edge touching a memory (supports, extends, contrasts, related, prerequisite,
        and the cold-storage edges subsumes and fused), with the other end and the direction.
        ``caller``: who reads (the person by default); a memory an agent caller may not see is not
        found, and edges to memories it may not see are left out."""
        return reads.links(self.store, self._reader(caller), memory_id)

    def memory_count(self) -> int:
        """How many memory rows the store holds, every status and version included."""
        return stats.memory_count(self.store)

    # ------------------------------------------------------------ messages
    def episodes(
        self,
        *,
        user_id: str | None = None,
        session_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
        newest_first: bool = True,
        include_rejected: bool = False,
    ) -> list[Episode]:
        """Episodes; those holding a rejected value only with ``include_rejected`` (a person asking)."""
        return episodes_mod.list_episodes(
            self.store,
            user_id=user_id,
            session_id=session_id,
            limit=limit,
            offset=offset,
            newest_first=newest_first,
            include_rejected=include_rejected,
        )

    def episode(self, episode_id: str, *, caller: Caller | None = None) -> Episode | None:
        """The message ``episode_id``, or None when there is none that ``caller`` (the person by default)
        may see: a message an agent caller may not see is not found, like a missing one."""
        return reads.episode(self.store, self._reader(caller), episode_id)

    def episodes_seen_by(
        self, caller: Caller, *, session_id: str | None = None, limit: int = 50, offset: int = 0
    ) -> list[Episode]:
        """The caller's user's messages, newest first, that ``caller`` may see (an agent surface's listing)."""
        return reads.episodes(self.store, caller, session_id=session_id, limit=limit, offset=offset)

    def sessions(self, *, user_id: str | None = None) -> list[dict[str, Any]]:
        """The sessions of ``user_id`` (everyone's without one), latest first, each with its message count and
        first and last message times."""
        return episodes_mod.sessions(self.store, user_id=user_id)

    # ------------------------------------------------------------ traces, erasure plans and the ledger
    def require_trace(self, trace_id: str, *, caller: Caller) -> None:
        """NotFoundError unless ``trace_id`` is a search or answer made for ``caller`` (before crediting it)."""
        reads.require_trace(self.store, caller, trace_id)

    def forget_preview(
        self, target: str, *, caller: Caller | None = None, reach: str = "session", redact: bool = False
    ) -> forget_mod.ForgetPlan:
        """Exactly what `forget(target, reach=reach, redact=redact)` would erase (versions, evidence,
        episodes, derived items, what restates it within ``reach``, and the messages it redacts)."""
        return reads.forget_plan(self.store, self._reader(caller), target, reach=reach, redact=redact)

    def ledger_entries(
        self, *, target_id: str | None = None, limit: int | None = None, caller: Caller | None = None
    ) -> list[ledger.LedgerEntry]:
        """Ledger entries in order (those about ``target_id`` when given, at most ``limit``). ``caller``: who
        reads (the person by default, who may read the whole ledger); an agent caller reads only the entries
        of a memory or message it may see, and any other target is not found."""
        return reads.ledger_entries(self.store, self._reader(caller), target_id=target_id, limit=limit)

    def ledger_length(self) -> int:
        """How many entries the ledger holds (what `verify` will check)."""
        return stats.ledger_length(self.store)

    def verify(self, progress: Callable[[int, int], None] | None = None) -> ledger_verify.VerifyReport:
        """Recompute the whole hash-chained ledger; the report names the first bad entry, if any."""
        return ledger_verify.verify(self.store, progress)
