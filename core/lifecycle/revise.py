"""Consolidation's revise stage: summaries and experiences follow what they were built on.

A summary or experience that consolidation wrote (``source = 'derived'``) records its sources
in ``derivations``. When one of them has since been superseded, retracted, rejected or
forgotten, the derived text may state what is no longer true, so it is dealt with before
anything else runs:

- its sources now are the ones that still stand (active or in cold storage, not rejected)
  plus the current version of each superseded one (same memory, or what it was merged into);
- a summary with at least ``min_session_items`` of them, or an experience with at least one
  and a question still on record (its traces), is written again from them by the model: a new
  version (the old one becomes superseded), with derivations to the new sources;
- otherwise, or when the model fails or its abstraction is garbled, it is retired: status
  ``retracted`` with ``valid_to`` (so no search serves it, archived or not), the reason in its
  metadata and in the ledger (ids only), and what it had sent to cold storage comes back.

Forgetting already erases every derived item of a forgotten source (core/lifecycle/forget.py); a source
row that is missing is treated as forgotten all the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.lifecycle import experiences
from veramem_desktop.core.lifecycle.links import bring_back
from veramem_desktop.core.lifecycle.rules import BASE_KINDS, DERIVED_KINDS, StageCount, scope_of
from veramem_desktop.core.storage import derivations, item_chains, item_states, items
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.vocabulary import Authority, Kind, Status, Trust

if TYPE_CHECKING:
    from veramem_desktop.core.lifecycle.stage_common import Consolidator


def why_stale(source: MemoryItem | None) -> str | None:
    """What happened to a source since the derived item was written (None: it still stands)."""
    if source is None:
        return "forgotten"
    if source.trust == Trust.REJECTED:
        return Trust.REJECTED
    if source.status in (Status.SUPERSEDED, Status.RETRACTED):
        return source.status
    return None


def revise(con: Consolidator, count: StageCount, notices: list[str]) -> None:
    derived = item_states.standing(
        con.store, statuses=(Status.ACTIVE, Status.ARCHIVED), kinds=DERIVED_KINDS, derived=True
    )
    if not derived:
        return
    sources: dict[str, list[str]] = {}
    for chunk in _chunks([d.id for d in derived], 500):
        for did, sid in derivations.pairs_of(con.store, chunk):
            sources.setdefault(did, []).append(sid)
    rows = items.get_many(con.store, sorted({s for ids in sources.values() for s in ids}))
    stale: list[tuple[MemoryItem, list[str], dict[str, str]]] = []
    for d in derived:
        gone = {s: why for s in sources.get(d.id, []) if (why := why_stale(rows.get(s))) is not None}
        if gone:
            stale.append((d, sources.get(d.id, []), gone))
    count.found = len(stale)
    for n, (item, source_ids, gone) in enumerate(stale, start=1):
        standing = _standing(con, item, [rows[s] for s in source_ids if s in rows], gone)
        what = ", ".join(f"{s} {why}" for s, why in sorted(gone.items()))
        text, problem = _rewrite(con, item, standing, notices)
        with con.store.atomic() as conn:
            if not _unchanged(conn, item):
                count.skip("changed_meanwhile")
            elif text is not None and _all_stand(conn, standing):
                metadata = dict(item.metadata)
                if item.kind == Kind.SUMMARY:
                    metadata["sources"] = sorted(s.id for s in standing)
                new = con.write_derived(
                    conn, standing, item.kind, text, metadata, item, f"revised: its source {what}"
                )
                count.wrote(new.id)
                notices.append(f"{item.kind} {item.id} revised as {new.id}: its source {what}")
            else:
                retire(conn, item, device=con.device, reason=f"its source {what}")
                count.wrote(item.id)
                notices.append(
                    f"{item.kind} {item.id} retired: its source {what}" + (f"; {problem}" if problem else "")
                )
        con.tick("revise", n, len(stale))


def _standing(
    con: Consolidator, item: MemoryItem, sources: list[MemoryItem], gone: dict[str, str]
) -> list[MemoryItem]:
    """The sources that still stand, with the current version of each superseded one, in time order."""
    out: dict[str, MemoryItem] = {s.id: s for s in sources if s.id not in gone}
    for sid, why in gone.items():
        if why != Status.SUPERSEDED:
            continue
        successor = _successor(con, sid)
        if successor is not None and scope_of(successor) == scope_of(item):
            out.setdefault(successor.id, successor)
    return sorted(out.values(), key=lambda m: (m.valid_from, m.id))


def _successor(con: Consolidator, source_id: str) -> MemoryItem | None:
    """What stands for a superseded memory now: the active version of its chain, else the active
    memory it was merged into."""
    current = item_chains.standing_version(con.store, source_id)
    if current is None:
        current = item_chains.merged_into(con.store, source_id, BASE_KINDS)
    return current


def _rewrite(
    con: Consolidator, item: MemoryItem, standing: list[MemoryItem], notices: list[str]
) -> tuple[str | None, str]:
    """The derived text written again from ``standing`` (None, with why, when it cannot be)."""
    cfg = con.config
    if item.kind == Kind.SUMMARY:
        if len(standing) < cfg.min_session_items:
            return None, ""
        try:
            text = con.llm.summarise([s.text for s in standing[-cfg.max_session_items :]]).unwrap(notices)
        except ModelError as exc:
            return None, f"the model failed ({exc.message})"
        text = text.strip() if isinstance(text, str) else ""
        if not text or len(text) > cfg.summary_max_chars:
            return None, "the model's summary was unusable"
        if items.weakest([s.authority for s in standing]) != Authority.AUTHORIZED:
            text = f"According to this session's sources: {text}"
        return text, ""
    question = experiences.question_of(con, item)
    if not standing or question is None:
        return None, ""
    members = standing[: cfg.experience_max_items]
    abstracted, _, why = experiences.abstract(con, experiences.story(question, members), notices)
    return abstracted, ("" if abstracted is not None else why)


def _unchanged(conn: Connection, item: MemoryItem) -> bool:
    status = item_states.status_of(conn, item.id)
    return status is not None and status == item.status


def _all_stand(conn: Connection, members: list[MemoryItem]) -> bool:
    if not members:
        return False
    return item_states.count_standing(conn, [m.id for m in members]) == len(members)


def retire(conn: Connection, item: MemoryItem, *, device: str, reason: str) -> None:
    """Take a derived item out of every search for good, and bring back what it had sent to cold storage."""
    items.set_fields(
        conn,
        item.id,
        device=device,
        op="memory.retire",
        status=Status.RETRACTED,
        valid_to=now_iso(),
        metadata={"retired": reason},
        details={"reason": "a source changed"},
    )
    chain = item_chains.chain_ids(conn, item.root_id)
    for mid in item_states.cold_by_any(conn, chain):
        bring_back(conn, mid, device=device, reason="what stood for it was retired")


def _chunks(values: list[str], size: int) -> list[list[str]]:
    return [values[i : i + size] for i in range(0, len(values), size)]
