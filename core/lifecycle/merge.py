"""Consolidation's fusion stage: many closely related recent memories become one.

Within one scope (user, team, agent, visibility) and kind, memories learned in the
last ``fuse_days`` whose vectors are at least ``fuse_cosine`` alike form connected
clusters; a cluster of ``fuse_min_items`` or more (oldest ``fuse_max_items`` of it) is
given to the model oldest first, to write one memory that keeps the time order and
every distinct fact. The reply is checked: every name and number of every source must
still be there, else the cluster is left as it was (``lost_facts``).

The fused memory's evidence is the union of the sources' evidence, its authority the
weakest of theirs (with source-attributed wording when that is below authorized), its
confidence the lowest, its importance the highest. It records its sources
(``fused_from`` and the ``derivations`` table), so forgetting any source or any of
their evidence erases it, and the surviving sources come back from cold storage.
The sources go to cold storage (archived), each behind a ``fused`` link. A cluster with a
memory in an open conflict (core/lifecycle/conflicts.py) is left as it is (``open_conflict``) until a
person settles the conflict.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from veramem_desktop.core.lifecycle import links
from veramem_desktop.core.lifecycle.conflicts import open_conflicts
from veramem_desktop.core.lifecycle.rules import (
    BASE_KINDS,
    StageCount,
    conflict_inside,
    scope_of,
    values_disagree,
)
from veramem_desktop.core.storage import derivations, index, item_states, items
from veramem_desktop.core.storage.ids import iso
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.text.terms import entities
from veramem_desktop.core.vocabulary import Authority

if TYPE_CHECKING:
    from veramem_desktop.core.lifecycle.stage_common import Consolidator


def lost_facts(sources: list[str], fused: str) -> set[str]:
    """The names and numbers of ``sources`` that ``fused`` no longer holds (casefolded)."""
    have = entities(fused) | {w.casefold() for w in fused.split()}
    have_text = fused.casefold()
    lost: set[str] = set()
    for text in sources:
        for e in entities(text):
            if e not in have and e.casefold() not in have_text:
                lost.add(e)
    return lost


def fuse(con: Consolidator, count: StageCount, notices: list[str], now: datetime) -> None:
    cfg = con.config
    since = iso(now - timedelta(days=cfg.fuse_days))
    groups: dict[tuple[Any, ...], list[MemoryItem]] = {}
    for item in item_states.standing(
        con.store, kinds=BASE_KINDS, unpinned=True, created_since=since, unfused=True
    ):
        groups.setdefault((*scope_of(item), item.kind), []).append(item)
    con.vectors.refresh(con.store)
    clusters: list[list[MemoryItem]] = []
    for members in groups.values():
        if len(members) >= cfg.fuse_min_items:
            clusters += [c for c in con.clusters(members, cfg.fuse_cosine) if len(c) >= cfg.fuse_min_items]
    count.found = len(clusters)
    with con.store.read() as conn:
        held = open_conflicts(conn)
    for n, cluster in enumerate(clusters, start=1):
        ordered = sorted(cluster, key=lambda m: (m.valid_from, m.created_at, m.id))[: cfg.fuse_max_items]
        if values_disagree(ordered) or conflict_inside(ordered):
            count.skip("conflicting_values")
        elif any(m.id in held for m in ordered):
            count.skip("open_conflict")
        else:
            texts = [m.text for m in ordered]
            text = con.ask(
                partial(con.llm.summarise, texts), count, notices, f"fusion of {len(ordered)} memories"
            )
            if text is not None:
                if lost_facts(texts, text):
                    count.skip("lost_facts")
                    notices.append(
                        f"fusion of {len(ordered)} memories: the model's text dropped names or numbers; "
                        "left as they are"
                    )
                else:
                    _write(con, ordered, text, count)
        con.tick("fuse", n, len(clusters))


def _write(con: Consolidator, sources: list[MemoryItem], text: str, count: StageCount) -> None:
    authority = items.weakest([s.authority for s in sources])
    if authority != Authority.AUTHORIZED and not text.lower().startswith("according to"):
        text = f"According to these sources: {text}"
    vector = con.embedder.embed([text])[0]
    first = sources[0]
    sessions = {s.session_id for s in sources}
    origins = {s.source for s in sources}
    with con.store.atomic() as conn:
        if not con.still_active(conn, sources):
            count.skip("changed_meanwhile")
            return
        evidence = con.evidence_of(conn, sources)
        new = MemoryItem(
            id="",
            kind=first.kind,
            text=text,
            authority=authority,
            user_id=first.user_id,
            agent_id=first.agent_id,
            team_id=first.team_id,
            session_id=first.session_id if len(sessions) == 1 else None,
            visibility=first.visibility,
            valid_from=min(s.valid_from for s in sources),
            confidence=min(s.confidence for s in sources),
            importance=max(s.importance for s in sources),
            uses=sum(s.uses for s in sources),
            successes=sum(s.successes for s in sources),
            failures=sum(s.failures for s in sources),
            source=origins.pop() if len(origins) == 1 else "derived",
            metadata={"fused_from": [s.id for s in sources]},
        )
        fused = items.insert(
            conn,
            new,
            evidence,
            device=con.device,
            op="memory.fuse",
            details={"sources": [s.id for s in sources]},
        )
        derivations.add(conn, fused.id, [s.id for s in sources])
        index.index_memory(conn, con.embedder.name, fused.id, fused.text, vector)
        for s in sources:
            links.send_cold(conn, s.id, device=con.device, reason="fused", by=fused.id)
            links.add_link(conn, fused.id, s.id, "fused", 1.0, device=con.device)
        count.wrote(fused.id)
