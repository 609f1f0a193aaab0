"""Forget: search, open, preview exactly what goes, confirm; the memory is then gone from search."""

from __future__ import annotations

import pytest
from textual.widgets import Button
from tui_support import app_on, fill, settle, shown_text
from veramem_desktop.tui.screens.forget import ForgetScreen
from veramem_desktop.tui.screens.memories import MemoriesScreen
from veramem_desktop.tui.screens.memory_detail import MemoryDetailScreen
from veramem_desktop.tui.widgets.memory_table import MemoryTable

from veramem_desktop.memory import Memory

pytestmark = pytest.mark.anyio


def _ids(table: MemoryTable) -> list[str]:
    return [str(key.value) for key in table.rows]


async def _open_vim_memory(pilot, table: MemoryTable) -> str:  # type: ignore[no-untyped-def]
    row = next(
        i
        for i, key in enumerate(table.rows)
        if str(key.value).startswith("mem_") and "Vim" in str(table.get_row_at(i)[1])
    )
    table.focus()
    table.move_cursor(row=row)
    await pilot.press("enter")
    await settle(pilot)
    return str(list(table.rows)[row].value)


async def test_search_open_forget_and_the_memory_is_gone_from_search(demo_mem: Memory) -> None:
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await fill(pilot, "#search", "vim")
        await settle(pilot)
        table = app.screen.query_one(MemoryTable)
        target = await _open_vim_memory(pilot, table)
        assert isinstance(app.screen, MemoryDetailScreen)
        await pilot.press("d")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ForgetScreen)
        preview = demo_mem.forget_preview(target)
        summary = shown_text(dialog.query_one("#forget-summary"))
        assert "1 memory" in summary or f"{len(preview.memories)} memories" in summary
        assert f"{len(preview.episodes)} source episode" in summary
        listed = shown_text(dialog.query_one("#forget-list"))
        # What goes is listed by its words, not only by ids: the memory and the message it came from.
        assert demo_mem.get(target).text[:40] in listed
        assert "user: My favourite editor is Vim" in listed
        assert not dialog.query_one("#forget-confirm", Button).disabled
        await pilot.press("enter")  # the Forget button has the focus
        await settle(pilot)
        assert isinstance(app.screen, MemoriesScreen)
        assert any(n.title == "Forgotten" for n in app._notifications)
        # The list was refreshed with the same query: the forgotten memory is not in it.
        assert app.screen.query_one("#search").value == "vim"
        assert target not in _ids(app.screen.query_one(MemoryTable))
        assert all(hit.id != target for hit in demo_mem.search("vim").results)
        assert demo_mem.verify().ok


async def test_cancelling_the_forget_dialog_erases_nothing(demo_mem: Memory) -> None:
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        target = await _open_vim_memory(pilot, app.screen.query_one(MemoryTable))
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MemoryDetailScreen)
        assert demo_mem.get(target).id == target
