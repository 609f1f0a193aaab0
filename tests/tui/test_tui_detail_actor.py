"""A memory's detail lists its ledger entries with who acted and through which surface."""

from __future__ import annotations

import pytest
from tui_support import app_on, settle
from veramem_desktop.tui.screens.memory_detail import MemoryDetailScreen
from veramem_desktop.tui.widgets.ledger_table import LedgerTable

from veramem_desktop.agent_access import AgentAccess, Identity
from veramem_desktop.memory import Memory

pytestmark = pytest.mark.anyio


async def test_the_detail_ledger_says_an_agent_wrote_the_memory_and_a_person_pinned_it(mem: Memory) -> None:
    mid = AgentAccess(mem, Identity("me", "cursor"), channel="mcp").add("I moved to Lisbon in March.")[
        "added"
    ][0]["id"]
    mem.curation.set_pinned(mid, True)
    app = app_on(mem)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.push_screen(MemoryDetailScreen(mid))
        await settle(pilot)
        table = app.screen.query_one("#detail-ledger", LedgerTable)
        by = [str(table.get_row_at(i)[4]) for i in range(table.row_count)]
        ops = [str(table.get_row_at(i)[2]) for i in range(table.row_count)]
    assert ops == ["memory.add", "memory.pin"]
    assert by == ["agent cursor via mcp", "user me via sdk"]


def test_the_detail_says_a_memory_is_pinned_and_when_it_expires(mem: Memory) -> None:
    from veramem_desktop.tui.screens.memory_detail import item_fields

    mid = mem.add("I am in Berlin this week.", expires_in="3d").added[0]["id"]
    assert dict(item_fields(mem.get(mid)))["Kept"].startswith("until ")
    kept = dict(item_fields(mem.curation.set_pinned(mid, True)))["Kept"]
    assert kept.startswith("pinned") and "until" in kept and "erased" in kept
    plain = mem.add("I like espresso.").added[0]["id"]
    assert "Kept" not in dict(item_fields(mem.get(plain)))


def test_the_detail_of_a_correction_names_the_value_that_was_a_mistake(mem: Memory) -> None:
    from veramem_desktop.tui.screens.memory_detail import item_fields

    lisbon = mem.add("I moved to Lisbon in March 2024.").added[0]["id"]
    porto = mem.add("Actually I moved to Porto, not Lisbon.").updated[0]["id"]
    assert dict(item_fields(mem.get(porto)))["Version"] == f"2 (corrects 'Lisbon' in mem_…{lisbon[-8:]})"
    assert "corrects" not in dict(item_fields(mem.get(lisbon)))["Version"]
