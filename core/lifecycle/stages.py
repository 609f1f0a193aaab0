"""Consolidation's archive, merge, summarise, budget and decay stages.

Each is a function over the ``Consolidator`` (core/lifecycle/stage_common.py) that fills its
``StageCount``; core/lifecycle/consolidation.py says what each stage does and runs them in order.
The revise, fuse and distil stages have modules of their own (core/lifecycle/revise.py,
core/lifecycle/merge.py, core/lifecycle/experiences.py).
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from veramem_desktop.core.lifecycle import budgets, outcome
from veramem_desktop.core.lifecycle.conflicts import open_conflicts
from veramem_desktop.core.lifecycle.decay import idle_days, strength
from veramem_desktop.core.lifecycle.rules import (
    BASE_KINDS,
    StageCount,
    conflict_inside,
    scope_of,
    values_disagree,
)
from veramem_desktop.core.lifecycle.stage_common import ConsolidateConfig, Consolidator
from veramem_desktop.core.storage import index, item_states, items
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.vocabulary import Authority, Kind, Status, Trust


# ---------------------------------------------------------------- 1. archive
def archive(con: Consolidator, count: StageCount, now: datetime) -> None:
    cfg = con.config
    found: list[tuple[MemoryItem, str | None]] = []
    with con.store.read() as conn:
        held = open_conflicts(conn)
    for item in item_states.standing(con.store):
        reason = _archive_reason(item, item.uses, item.utility, cfg, now)
        if reason is None:
            continue
        # Only feedback from givers whose authority reaches the memory's may archive it: an
        # agent's failures lower a person's fact in the ranking, never take it out of the way.
        heard = outcome.archive_counters(item)
        found.append((item, _archive_reason(item, heard.uses, heard.utility, cfg, now)))
    count.found = len(found)
    for start in range(0, len(found), cfg.batch):
        with con.store.atomic() as conn:
            for item, reason in found[start : start + cfg.batch]:
                if item.pinned:
                    count.skip("pinned")
                    continue
                if item.id in held:  # a person has a conflict to settle: it stays in view
                    count.skip("open_conflict")
                    continue
                if reason is None:
                    count.skip("feedback_below_authority")
                    continue
                heard = outcome.archive_counters(item)
                items.set_fields(
                    conn,
                    item.id,
                    device=con.device,
                    op="memory.archive",
                    status=Status.ARCHIVED,
                    details={"reason": reason, "utility": round(heard.utility, 4)},
                )
                count.wrote(item.id)
        con.tick("archive", min(start + cfg.batch, len(found)), len(found))


# ---------------------------------------------------------------- 2. merge
def merge(con: Consolidator, count: StageCount) -> None:
    cfg = con.config
    groups: dict[tuple[Any, ...], list[MemoryItem]] = {}
    for item in item_states.standing(con.store, kinds=BASE_KINDS, unpinned=True):
        groups.setdefault((*scope_of(item), item.kind, item.authority), []).append(item)
    con.vectors.refresh(con.store)
    clusters: list[list[MemoryItem]] = []
    for members in groups.values():
        if len(members) > 1:
            clusters += con.clusters(members)
    with con.store.read() as conn:
        held = open_conflicts(conn)
    count.found = len(clusters)
    for n, cluster in enumerate(clusters, start=1):
        if values_disagree(cluster) or conflict_inside(cluster):
            count.skip("conflicting_values")
        elif any(m.id in held for m in cluster):
            count.skip("open_conflict")
        else:
            # the newest wording stands for the cluster; all share one authority and scope
            rep = max(cluster, key=lambda m: (m.valid_from, m.id))
            ordered = [rep, *[m for m in cluster if m.id != rep.id]]
            with con.store.atomic() as conn:
                if _unchanged(con, conn, ordered, count):
                    merged = items.merge(
                        conn,
                        ordered,
                        rep.text,
                        device=con.device,
                        reason=f"near-duplicates (cosine ≥ {cfg.duplicate_cosine})",
                    )
                    vec = con.vectors.vector(rep.id)
                    if vec is None:
                        vec = con.embedder.embed([rep.text])[0]
                    index.index_memory(conn, con.embedder.name, merged.id, merged.text, vec)
                    count.wrote(merged.id)
        con.tick("merge", n, len(clusters))


def _unchanged(con: Consolidator, conn: Connection, members: list[MemoryItem], count: StageCount) -> bool:
    """Whether ``members`` are all still active, read inside the write's transaction; when one is not,
    the write is skipped and counted as ``changed_meanwhile``."""
    if con.still_active(conn, members):
        return True
    count.skip("changed_meanwhile")
    return False


# ---------------------------------------------------------------- 4. summarise
def summarise(con: Consolidator, count: StageCount, notices: list[str]) -> None:
    cfg = con.config
    sessions: dict[tuple[Any, ...], list[MemoryItem]] = {}
    for item in item_states.standing(con.store, kinds=BASE_KINDS, in_session=True):
        sessions.setdefault((item.session_id, *scope_of(item)), []).append(item)
    existing: dict[tuple[Any, ...], MemoryItem] = {}
    # an archived summary still stands for its sources: it is not written again
    for s in item_states.standing(
        con.store, statuses=(Status.ARCHIVED, Status.ACTIVE), kinds=(Kind.SUMMARY,), in_session=True
    ):
        key = (s.session_id, *scope_of(s))
        if key not in existing or s.status == Status.ACTIVE:
            existing[key] = s
    keys = sorted(sessions, key=lambda k: tuple("" if v is None else str(v) for v in k))
    count.found = len(keys)
    for n, key in enumerate(keys, start=1):
        sources = sessions[key][-cfg.max_session_items :]
        previous = existing.get(key)
        source_ids = sorted(s.id for s in sources)
        if len(sources) < cfg.min_session_items:
            count.skip("too_small")
        elif previous is not None and set(source_ids) <= set(previous.metadata.get("sources", [])):
            # it covers every memory the session holds now (the revise stage, which ran first, has
            # already dealt with any of its sources that changed): nothing to write
            count.skip("up_to_date")
        else:
            texts = [s.text for s in sources]
            text = con.ask(partial(con.llm.summarise, texts), count, notices, f"session {key[0]} summary")
            if text is not None:
                if items.weakest([s.authority for s in sources]) != Authority.AUTHORIZED:
                    text = f"According to this session's sources: {text}"
                with con.store.atomic() as conn:
                    if _unchanged(con, conn, sources, count):
                        item = con.write_derived(
                            conn,
                            sources,
                            Kind.SUMMARY,
                            text,
                            {"sources": source_ids, "session": key[0]},
                            previous,
                            "session summary",
                        )
                        count.wrote(item.id)
        con.tick("summarise", n, len(keys))


# ---------------------------------------------------------------- 6. budget
def budget(con: Consolidator, count: StageCount) -> None:
    """Per person and source, what exceeds its budget goes to cold storage (core/lifecycle/budgets.py)."""
    wanted = con.config.budgets.budgets
    if not budgets.over_budget(con.store, wanted):
        return
    with con.store.read() as conn:
        held = open_conflicts(conn)
    planned = budgets.plan(budgets.candidates(con.store, wanted), wanted, held)
    count.found = len(planned)
    for start in range(0, len(planned), con.config.batch):
        with con.store.atomic() as conn:
            for item in planned[start : start + con.config.batch]:
                if budgets.move(conn, item, device=con.device):
                    count.wrote(item.id)
                else:
                    count.skip("changed_meanwhile")
        con.tick("budget", min(start + con.config.batch, len(planned)), len(planned))


# ---------------------------------------------------------------- 7. decay
def decay(con: Consolidator, count: StageCount, now: datetime) -> None:
    cfg = con.config
    plan: list[tuple[MemoryItem, float | None]] = []
    for item in item_states.standing(con.store):
        if item.pinned:
            plan.append((item, None))
            continue
        idle = idle_days(item.last_used_at, item.created_at, now)
        plan.append((item, strength(idle, item.importance, item.trust == Trust.VERIFIED, cfg.decay)))
    count.found = len(plan)
    for start in range(0, len(plan), cfg.batch):
        with con.store.atomic() as conn:
            for item, target in plan[start : start + cfg.batch]:
                if target is None:
                    count.skip("pinned")
                elif abs(target - item.retrieval_strength) < cfg.decay_min_change:
                    count.skip("unchanged")
                else:
                    items.set_fields(
                        conn,
                        item.id,
                        device=con.device,
                        op="memory.decay",
                        retrieval_strength=round(target, 4),
                        details={"retrieval_strength": round(target, 4)},
                    )
                    count.wrote(item.id)
        con.tick("decay", min(start + cfg.batch, len(plan)), len(plan))


def _archive_reason(
    item: MemoryItem, uses: int, utility: float, cfg: ConsolidateConfig, now: datetime
) -> str | None:
    """Why counters of ``uses`` and ``utility`` would archive ``item`` (None: they would not)."""
    if uses >= cfg.archive_min_uses and utility < cfg.archive_max_utility:
        return "low_utility"
    if utility < cfg.idle_max_utility and idle_days(item.last_used_at, item.created_at, now) >= cfg.idle_days:
        return "idle_low_utility"
    return None
