"""Reads and erases by id, as one caller may make them: where a read that names an id meets the access predicate.

Search and answer put the predicate (core/storage/access.py) in every channel's SQL. A read
that names an id (a memory, its versions, evidence, links and ledger entries, a message, a
trace) and a forget ask here first, with the same predicate:

- The person holding the store's key (:meth:`Caller.person`: CLI, TUI, SDK) may name any
  row of the file; a missing one is reported by the read itself.
- Any other caller (an agent surface: MCP, REST) sees a memory when some version of its
  chain passes the predicate (archived included), a message when it passes the episode
  predicate, a trace when it made it; it may erase a memory it sees and owns, or a message
  it sees. What it may not see is "not found", so an id never confirms that a row exists;
  evidence in messages it may not see is left out and counted.
- Rejected versions, and memories, versions and evidence holding a rejected value, are left
  out unless the caller shows rejected material (a person asking, never an agent).
- Whoever reads, the person included, expired rows are not found: every read here asks the one
  visibility rule (core/storage/visibility.py) about the rows it names, as the channels' SQL does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veramem_desktop.core.errors import InvalidInputError, NotFoundError, RefusedError
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.lifecycle import links as links_mod
from veramem_desktop.core.lifecycle.restatements import REACHES, Reach
from veramem_desktop.core.storage import (
    episode_contents,
    item_chains,
    item_rows,
    item_states,
    items,
    ledger,
    traces,
    visibility,
)
from veramem_desktop.core.storage import episodes as episodes_mod
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.items import Evidence, MemoryItem
from veramem_desktop.core.storage.store import Store


# ---------------------------------------------------------------- checks
def hidden(store: Store, kind: str, ids: Sequence[str], *, show_rejected: bool) -> set[str]:
    """Which of the stored ``ids`` (``memory`` or ``episode`` rows) the visibility rule hides now."""
    if not ids:
        return set()
    with store.read() as conn:
        return visibility.hidden_ids(conn, kind, ids, now_iso(), show_rejected=show_rejected)


def memory_visible(store: Store, caller: Caller, memory_id: str) -> bool:
    """True when any version in the item's chain is one the caller may see (archived included); for the
    person, when the memory is stored and not expired."""
    if caller.keyholder:
        return item_rows.exists(store, memory_id) and not hidden(
            store, "memory", [memory_id], show_rejected=True
        )
    return item_chains.chain_visible(store, memory_id, caller, now_iso())


def memory_owned(store: Store, caller: Caller, memory_id: str) -> bool:
    """The caller may see the memory and it was recorded for the caller's user."""
    owner = item_states.user_of(store, memory_id)
    return owner is not None and owner == caller.user_id and memory_visible(store, caller, memory_id)


def episode_visible(store: Store, caller: Caller, episode_id: str) -> bool:
    """The caller may see the message ``episode_id``."""
    return bool(visible_episode_ids(store, caller, [episode_id]))


def visible_episode_ids(store: Store, caller: Caller, episode_ids: Sequence[str]) -> set[str]:
    """Which of ``episode_ids`` the caller may see."""
    wanted = sorted({str(i) for i in episode_ids})
    if not wanted:
        return set()
    if caller.keyholder:
        found = episode_contents.existing_ids(store, wanted)
        return found - hidden(store, "episode", sorted(found), show_rejected=caller.shows_rejected)
    return episode_contents.visible_ids(store, wanted, caller, now_iso())


def require_memory(store: Store, caller: Caller, memory_id: str) -> None:
    """NotFoundError unless the caller may see ``memory_id`` (the person's reads report a missing id themselves,
    and an expired one is not found for them either)."""
    if caller.keyholder:
        if isinstance(memory_id, str) and hidden(store, "memory", [memory_id], show_rejected=True):
            raise NotFoundError(f"No memory {memory_id!r}: it has expired.")
        return
    if (
        not isinstance(memory_id, str)
        or not memory_id.startswith("mem_")
        or not memory_visible(store, caller, memory_id)
    ):
        raise NotFoundError(f"No memory {memory_id!r} that this caller can see.")


def require_forgettable(store: Store, caller: Caller, target: str) -> None:
    """NotFoundError or RefusedError unless the caller may erase ``target`` (mem_…, ep_… or user:<id>)."""
    if caller.keyholder:
        return
    if isinstance(target, str) and target.startswith("ep_"):
        if not episode_visible(store, caller, target):
            raise NotFoundError(f"No episode {target!r} that this caller can see.")
        return
    require_memory(store, caller, target)
    if not memory_owned(store, caller, target):
        raise RefusedError(f"{target} belongs to someone else; only its owner can forget it.")


def require_trace(store: Store, caller: Caller, trace_id: str) -> None:
    """NotFoundError unless the trace was written for this caller (its user, and its agent or none)."""
    if caller.keyholder:
        return
    made_for = traces.made_for(store, trace_id)
    if (
        made_for is None
        or made_for.user_id != caller.user_id
        or (made_for.agent_id or None) != caller.agent_id
    ):
        raise NotFoundError(
            f"No trace {trace_id!r} from this caller; use the trace_id a search or answer returned."
        )


# ---------------------------------------------------------------- reads
def shown(store: Store, caller: Caller, versions: list[MemoryItem]) -> list[MemoryItem]:
    """``versions`` without rejected ones and ones holding a rejected value, unless the caller shows them, and
    without expired ones whoever asks (core/storage/visibility.py)."""
    if not versions:
        return versions
    held = hidden(store, "memory", [v.id for v in versions], show_rejected=caller.shows_rejected)
    return [v for v in versions if v.id not in held]


def get(store: Store, caller: Caller, memory_id: str) -> MemoryItem:
    """The memory ``memory_id`` (any status) when the caller may see its chain."""
    require_memory(store, caller, memory_id)
    return items.get(store, memory_id)


def get_shown(store: Store, caller: Caller, memory_id: str) -> MemoryItem:
    """As :func:`get`, and not found when it is rejected or holds a rejected value (unless the caller shows those)."""
    item = get(store, caller, memory_id)
    if not shown(store, caller, [item]):
        raise NotFoundError(f"No memory {memory_id} that may be shown: it was rejected.")
    return item


def history(store: Store, caller: Caller, memory_id: str) -> list[MemoryItem]:
    """Every version of the memory's chain the caller may be shown, oldest first."""
    require_memory(store, caller, memory_id)
    return shown(store, caller, items.history(store, memory_id))


def as_of(store: Store, caller: Caller, memory_id: str, moment: str) -> list[MemoryItem]:
    """The one version valid at ``moment`` (ISO string), when the caller may be shown it; else none."""
    require_memory(store, caller, memory_id)
    found = items.as_of(store, memory_id, moment)
    return shown(store, caller, [found] if found is not None else [])


def evidence(store: Store, caller: Caller, memory_id: str) -> tuple[list[Evidence], int]:
    """(the memory's evidence the caller may see, how many pieces stand in messages it may not see).

    Evidence in a message holding a rejected value is left out (and not counted) unless the caller shows rejected
    material; the memory's own visibility is the caller's to check first (:func:`get`)."""
    found = items.evidence_for(store, memory_id)
    held = hidden(store, "episode", [e.episode_id for e in found], show_rejected=caller.shows_rejected)
    found = [e for e in found if e.episode_id not in held]
    if caller.keyholder:
        return found, 0
    seen = visible_episode_ids(store, caller, [e.episode_id for e in found])
    kept = [e for e in found if e.episode_id in seen]
    return kept, len(found) - len(kept)


def episodes(
    store: Store, caller: Caller, *, session_id: str | None = None, limit: int = 50, offset: int = 0
) -> list[Episode]:
    """The caller's user's messages, newest first, that the caller may see."""
    found = episodes_mod.list_episodes(
        store, user_id=caller.user_id, session_id=session_id, limit=limit, offset=offset, now=now_iso()
    )
    if caller.keyholder or caller.agent_id is None:
        return found
    seen = visible_episode_ids(store, caller, [e.id for e in found])
    return [e for e in found if e.id in seen]


# ---------------------------------------------------------------- erase
def forget_plan(
    store: Store, caller: Caller, target: str, *, reach: str = "none", redact: bool = False
) -> forget_mod.ForgetPlan:
    """What ``forget`` would erase, when the caller may erase ``target`` (``reach``: where what restates it
    is looked for, core/lifecycle/restatements.py; ``redact``: core/lifecycle/redaction.py)."""
    require_forgettable(store, caller, target)
    return forget_mod.plan(store, target, reach=_reach(store, caller, reach), redact=redact)


def forget(
    store: Store, caller: Caller, target: str, *, device: str, reach: str = "none", redact: bool = False
) -> forget_mod.ForgetReport:
    """Erase ``target`` and all built from it (core/lifecycle/forget.py), when the caller may erase it, and
    what restates it within ``reach`` that the caller may erase too; with ``redact``, a memory's messages
    lose only the sentences that state it."""
    require_forgettable(store, caller, target)
    return forget_mod.forget(store, target, device=device, reach=_reach(store, caller, reach), redact=redact)


def _reach(store: Store, caller: Caller, where: str) -> Reach:
    """Where restatements are looked for, limited for an agent caller to what it may erase."""
    if where not in REACHES:
        raise InvalidInputError(f"Unknown reach {where!r}; use one of {', '.join(REACHES)}.")
    if caller.keyholder:
        return Reach(where)

    def allowed(ids: Sequence[str]) -> set[str]:
        episodes = [i for i in ids if i.startswith("ep_")]
        keep = visible_episode_ids(store, caller, episodes) if episodes else set()
        return keep | {
            i
            for i in ids
            if i.startswith("mem_") and memory_visible(store, caller, i) and memory_owned(store, caller, i)
        }

    return Reach(where, allowed)


# ---------------------------------------------------------------- reads by id that name a message, links or the ledger
def target_visible(store: Store, caller: Caller, target_id: str | None) -> bool:
    """The caller may see the memory (mem_…) or message (ep_…) ``target_id``; any other target is not its to see."""
    if caller.keyholder and not (isinstance(target_id, str) and target_id.startswith(("mem_", "ep_"))):
        return True
    if isinstance(target_id, str) and target_id.startswith("mem_"):
        return memory_visible(store, caller, target_id)
    if isinstance(target_id, str) and target_id.startswith("ep_"):
        return episode_visible(store, caller, target_id)
    return False


def episode(store: Store, caller: Caller, episode_id: str) -> Episode | None:
    """The message ``episode_id`` when the caller may see it; None when it is missing or the caller may not see
    it (so an id never confirms that a message exists)."""
    if not target_visible(store, caller, episode_id):
        return None
    return episodes_mod.get(store, episode_id)


def links(store: Store, caller: Caller, memory_id: str) -> list[dict[str, Any]]:
    """Every edge touching the memory (core/lifecycle/links.py) when the caller may see it (NotFoundError when
    it may not, or there is none); edges whose other end the caller may not see are left out."""
    get(store, caller, memory_id)
    found = links_mod.links_of(store, memory_id)
    return [link for link in found if target_visible(store, caller, link["other"])]


def ledger_entries(
    store: Store, caller: Caller, *, target_id: str | None = None, limit: int | None = None
) -> list[ledger.LedgerEntry]:
    """Ledger entries in order (those about ``target_id`` when given, at most ``limit`` read). The person reads
    the whole ledger; any other caller only the entries of a memory or message it may see (NotFoundError for
    any other target, RefusedError without one), less those about something else it may not see."""
    if not caller.keyholder and target_id is None:
        raise RefusedError("The whole ledger is the person's to read; name a memory or message.")
    found = ledger.entries(store, target_id=target_id, limit=limit)
    if caller.keyholder:
        return found  # the person's own ledger: commitments and tombstones, no content
    if not target_visible(store, caller, target_id):
        raise NotFoundError(f"No memory or message {target_id!r} that this caller can see.")
    return [e for e in found if e.target_id == target_id or target_visible(store, caller, e.target_id)]
