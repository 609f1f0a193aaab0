"""Budgets and cold storage: the knapsack keeps the best per token, pinned items never move,
and cold items leave default search but come back with include_archived."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from support.internals import store_of
from veramem_desktop.core.lifecycle.budgets import Budget, BudgetConfig, keep, plan, tokens, value
from veramem_desktop.core.storage.items import MemoryItem

from veramem_desktop.memory import Memory

ITEMS = st.lists(
    st.tuples(st.text(alphabet="abcdef ", min_size=1, max_size=120), st.floats(0.0, 1.0), st.booleans()),
    min_size=1,
    max_size=30,
)


def _items(specs: list[tuple[str, float, bool]], source: str = "tool") -> list[MemoryItem]:
    return [
        MemoryItem(
            id=f"mem_{i:03d}",
            kind="fact",
            text=t,
            authority="unendorsed",
            user_id="ann",
            importance=imp,
            pinned=pin,
            source=source,
            valid_from=f"2024-01-01T00:00:{i:02d}Z",
        )
        for i, (t, imp, pin) in enumerate(specs)
    ]


@settings(max_examples=200, deadline=None)
@given(ITEMS, st.integers(1, 400), st.integers(1, 12))
def test_budgets_never_move_a_pinned_item_and_what_is_kept_fits(
    specs: list[tuple[str, float, bool]], max_tokens: int, max_items: int
) -> None:
    members = _items(specs)
    budget = Budget(max_tokens, max_items)
    kept, moved = keep(members, budget)
    assert not any(m.pinned for m in moved)
    assert {m.id for m in kept} | {m.id for m in moved} == {m.id for m in members}
    unpinned = [m for m in kept if not m.pinned]
    pinned_cost = sum(tokens(m.text) for m in kept if m.pinned)
    if unpinned:  # beyond what pinned items take, the rest fits both budgets
        assert len(kept) <= max_items and pinned_cost + sum(tokens(m.text) for m in unpinned) <= max_tokens
    moved_ids = {m.id for m in plan(members, {"tool": budget})}
    assert not any(m.pinned and m.id in moved_ids for m in members)


def test_the_knapsack_keeps_the_best_importance_per_root_token() -> None:
    short_low = ("short and dull", 0.2, False)
    long_high = ("a long and dense memory " * 8, 0.9, False)
    short_high = ("short and vital", 0.9, False)
    members = _items([short_low, long_high, short_high])
    kept, moved = keep(members, Budget(tokens=60, items=2))
    assert [m.id for m in kept] == ["mem_002", "mem_001"]  # by importance ÷ √tokens
    assert value(members[1]) > value(members[0])  # the long one is not punished in proportion to length
    assert [m.id for m in moved] == ["mem_000"]


def test_each_source_has_its_own_budget_per_person() -> None:
    tool = _items([(f"tool note {i}", 0.5, False) for i in range(5)], "tool")
    user = [
        replace(m, id=m.id + "u", source="user")
        for m in _items([(f"user note {i}", 0.5, False) for i in range(5)])
    ]
    bob = [replace(m, id=m.id + "b", user_id="bob") for m in tool]
    budgets = {"tool": Budget(10_000, 3), "user": Budget(10_000, 100)}
    moved = plan(tool + user + bob, budgets)
    assert (
        len(moved) == 4
        and {m.source for m in moved} == {"tool"}
        and {m.user_id for m in moved} == {"ann", "bob"}
    )


def test_cold_items_leave_default_search_and_return_with_include_archived(mem: Memory) -> None:
    mem.config.organise.linking = False  # only the budget decides here
    kept = mem.add("I keep the spare key under the blue flowerpot.").added[0]["id"]
    with store_of(mem).atomic() as conn:
        from veramem_desktop.core.storage.items import set_fields

        set_fields(conn, kept, device="d", op="memory.pin", pinned=True)
    tool = mem.add("The spare key is under the blue flowerpot by the door.", role="tool", name="notes").added
    tool_id = tool[0]["id"]
    mem.config.organise.tool_items = 0  # no tool memory may stay active
    mem.config.organise.user_items = 0  # nor any user memory: but the pinned one stays
    moved = mem.organiser.enforce_budgets()
    assert moved == [tool_id]
    assert mem.get(kept).status == "active" and mem.get(tool_id).status == "archived"
    default = {h.id for h in mem.search("spare key flowerpot", route="facts").results}
    archived = {h.id for h in mem.search("spare key flowerpot", route="facts", include_archived=True).results}
    assert tool_id not in default and kept in default
    assert tool_id in archived and kept in archived
    assert any(
        e.op == "memory.archive" and e.details.get("reason") == "budget" for e in mem.reading.ledger_entries()
    )


def test_consolidate_reports_the_budget_stage_and_it_reconciles(mem: Memory) -> None:
    mem.config.organise.linking = False
    for text in (
        "The boiler pressure is 2 bar.",
        "The garage door code is 4417.",
        "The wifi router restarts at 3 am.",
        "The water meter reads 1520 litres.",
    ):
        mem.add(text, role="tool", name="sensor")
    mem.config.organise.tool_items = 2
    report = mem.consolidate()
    stage = report.stages["budget"]
    assert stage.found == 2 and stage.written == 2 and report.reconciles
    assert len(mem.memories(status="archived", limit=10)) == 2 and BudgetConfig().budgets["tool"].items > 2
