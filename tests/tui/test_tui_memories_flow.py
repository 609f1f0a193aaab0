"""Memories: live search as you type, filters, and a memory's detail with its evidence highlighted."""

from __future__ import annotations

import pytest
from rich.text import Text
from tui_support import app_on, fill, settle
from veramem_desktop.tui.formatting import QUOTE_STYLE
from veramem_desktop.tui.screens.memories import MemoriesScreen
from veramem_desktop.tui.screens.memory_detail import MemoryDetailScreen
from veramem_desktop.tui.widgets.evidence_view import EvidenceView, evidence_renderable
from veramem_desktop.tui.widgets.filter_bar import FilterBar, Filters
from veramem_desktop.tui.widgets.memory_table import MemoryTable

from veramem_desktop.memory import Memory

pytestmark = pytest.mark.anyio


def row_texts(table: MemoryTable) -> list[str]:
    return [str(table.get_row_at(i)[1]) for i in range(table.row_count)]


async def test_the_list_shows_the_active_memories_once_the_store_is_open(demo_mem: Memory) -> None:
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(MemoryTable)
        assert isinstance(app.screen, MemoriesScreen)
        assert table.row_count == len(demo_mem.memories(limit=200)) > 0
        assert not table.loading


async def test_typing_a_query_searches_as_you_type_and_shows_the_matching_memory_first(
    demo_mem: Memory,
) -> None:
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "v", "i", "m")
        await settle(pilot)
        texts = row_texts(app.screen.query_one(MemoryTable))
        assert texts and "Vim" in texts[0]  # the memory or its source episode, best first
        assert "for “vim”" in str(app.screen.query_one("#memories-summary").render())
        # Clearing the query brings the full list back.
        await fill(pilot, "#search", "")
        await settle(pilot)
        assert app.screen.query_one(MemoryTable).row_count == len(demo_mem.memories(limit=200))


async def test_a_kind_filter_narrows_the_list_to_that_kind(demo_mem: Memory) -> None:
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = app.screen.query_one(FilterBar)
        bar.post_message(FilterBar.Changed(Filters(kind="preference")))
        await settle(pilot)
        table = app.screen.query_one(MemoryTable)
        expected = demo_mem.memories(kind="preference", limit=200)
        assert 0 < table.row_count == len(expected) < len(demo_mem.memories(limit=200))
        assert {str(table.get_row_at(i)[0]) for i in range(table.row_count)} == {"preference"}


async def test_opening_a_memory_shows_its_fields_and_the_quote_highlighted_in_its_episode(
    demo_mem: Memory,
) -> None:
    app = app_on(demo_mem)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "v", "i", "m")
        await settle(pilot)
        await pilot.press("enter")  # leave the search field for the list
        table = app.screen.query_one(MemoryTable)
        row = next(
            i
            for i, key in enumerate(table.rows)
            if key.value and key.value.startswith("mem_") and "Vim" in str(table.get_row_at(i)[1])
        )
        table.move_cursor(row=row)
        await pilot.press("enter")  # open it
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MemoryDetailScreen)
        assert "Vim" in str(screen.query_one("#detail-text").render())
        views = list(screen.query(EvidenceView))
        assert views, "the detail shows at least one piece of evidence"
        evidence = views[0].evidence
        body = evidence_renderable(evidence).renderables[1]
        assert isinstance(body, Text)
        marked = [body.plain[s.start : s.end] for s in body.spans if s.style == QUOTE_STYLE]
        assert marked and marked[0] in evidence.episode.content and "Vim" in marked[0]
        assert screen.query_one("#detail-ledger").row_count >= 1  # the entry that added it
        await pilot.press("escape")
        assert isinstance(app.screen, MemoriesScreen)
