"""Budgets: how much each source (user, agent, tool, document) may keep active, per person.

When a person's memories from one source exceed its token or item budget, a greedy
knapsack keeps the best value per cost — importance ÷ √tokens, so a dense, longer
memory is not punished in proportion to its length — and the rest move to cold
storage (status ``archived``: searchable with include_archived, never deleted).
Pinned memories, and memories in an open conflict a person has not settled
(core/lifecycle/conflicts.py), are always kept and are never moved; they use budget first.

:func:`plan` is pure; :func:`apply` writes the moves, each through ``items.set_fields``
(ledgered).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from veramem_desktop.core.lifecycle.conflicts import in_open_conflict, open_conflicts
from veramem_desktop.core.storage import item_scopes, item_states, items
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.vocabulary import Status

#: the sources that have budgets (derived and shared items have none)
SOURCES = ("user", "agent", "tool", "document")


@dataclass(frozen=True)
class Budget:
    tokens: int
    items: int


def default_budgets() -> dict[str, Budget]:
    return {
        "user": Budget(400_000, 20_000),
        "agent": Budget(200_000, 10_000),
        "tool": Budget(100_000, 5_000),
        "document": Budget(200_000, 10_000),
    }


@dataclass(frozen=True)
class BudgetConfig:
    budgets: Mapping[str, Budget] = field(default_factory=default_budgets)


def tokens(text: str) -> int:
    """A model-free token estimate (about four characters a token), at least one."""
    return max(1, math.ceil(len(text) / 4))


def value(item: MemoryItem) -> float:
    """What one memory is worth per unit of space: importance ÷ √tokens."""
    return item.importance / math.sqrt(tokens(item.text))


def keep(
    members: Sequence[MemoryItem], budget: Budget, held: Collection[str] = frozenset()
) -> tuple[list[MemoryItem], list[MemoryItem]]:
    """(kept, moved): pinned and ``held`` (in open conflict) first, then by value (ties by id) while
    both budgets hold. A memory that does not fit is skipped and smaller ones after it may still fit."""
    pinned = [m for m in members if m.pinned or m.id in held]
    rest = sorted((m for m in members if not (m.pinned or m.id in held)), key=lambda m: (-value(m), m.id))
    used_tokens = sum(tokens(m.text) for m in pinned)
    used_items = len(pinned)
    kept, moved = list(pinned), []
    for m in rest:
        cost = tokens(m.text)
        if used_items + 1 <= budget.items and used_tokens + cost <= budget.tokens:
            kept.append(m)
            used_items += 1
            used_tokens += cost
        else:
            moved.append(m)
    return kept, moved


def plan(
    members: Sequence[MemoryItem], budgets: Mapping[str, Budget], held: Collection[str] = frozenset()
) -> list[MemoryItem]:
    """The memories to move to cold storage: per (user, source) group over its budget; ``held``
    ids (memories in an open conflict) are never among them."""
    groups: dict[tuple[str | None, str], list[MemoryItem]] = {}
    for m in members:
        if m.source in budgets and m.status == Status.ACTIVE:
            groups.setdefault((m.user_id, m.source), []).append(m)
    out: list[MemoryItem] = []
    for (_, source), group in sorted(groups.items(), key=lambda kv: (kv[0][0] or "", kv[0][1])):
        budget = budgets[source]
        if len(group) <= budget.items and sum(tokens(m.text) for m in group) <= budget.tokens:
            continue
        out += keep(group, budget, held)[1]
    return out


def over_budget(store: Store, budgets: Mapping[str, Budget]) -> bool:
    """A cheap check (two aggregates per source) before loading anything."""
    rows = item_scopes.source_usage(store, list(budgets))
    return any(int(n) > budgets[s].items or int(t or 0) > budgets[s].tokens for s, n, t in rows)


def candidates(store: Store, budgets: Mapping[str, Budget]) -> list[MemoryItem]:
    return item_scopes.active_of_sources(store, list(budgets))


def move(conn: Connection, item: MemoryItem, *, device: str) -> bool:
    """Move one planned memory to cold storage if it is still active, unpinned and in no open conflict."""
    state = item_states.status_and_pinned(conn, item.id)
    if state is None or state.status != Status.ACTIVE or state.pinned or in_open_conflict(conn, item.id):
        return False
    items.set_fields(
        conn,
        item.id,
        device=device,
        op="memory.archive",
        status=Status.ARCHIVED,
        metadata={"cold": "budget"},
        details={"reason": "budget", "source": item.source, "value": round(value(item), 4)},
    )
    return True


def enforce(store: Store, *, device: str, config: BudgetConfig | None = None) -> list[str]:
    """Check and apply every budget; returns the ids moved to cold storage."""
    budgets = (config or BudgetConfig()).budgets
    if not over_budget(store, budgets):
        return []
    moved: list[str] = []
    with store.atomic() as conn:
        for item in plan(candidates(store, budgets), budgets, open_conflicts(conn)):
            if move(conn, item, device=device):
                moved.append(item.id)
    return moved
