"""Ledger: verify with a progress bar; after tampering, the first bad entry is named and marked."""

from __future__ import annotations

import pytest
from support.internals import store_of
from textual.widgets import ProgressBar
from tui_support import app_on, settle
from veramem_desktop.tui.screens.ledger import LedgerScreen
from veramem_desktop.tui.widgets.ledger_table import LedgerTable

from veramem_desktop.memory import Memory

pytestmark = pytest.mark.anyio


async def test_verify_on_an_intact_ledger_fills_the_bar_and_says_it_verifies(demo_mem: Memory) -> None:
    total = demo_mem.verify().total
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        assert isinstance(app.screen, LedgerScreen)
        assert app.screen.query_one(LedgerTable).row_count == total
        await pilot.press("v")
        await settle(pilot)
        bar = app.screen.query_one(ProgressBar)
        assert bar.display and bar.total == total and bar.progress == total
        assert "verifies" in str(app.screen.query_one("#verify-result").render())


async def test_verify_after_an_entry_was_edited_names_the_first_bad_entry_and_highlights_it(
    demo_mem: Memory,
) -> None:
    with store_of(demo_mem).atomic() as conn:  # tamper the way an attacker with the key would
        conn.execute("UPDATE ledger SET details = '{\"forged\": true}' WHERE seq = 5")
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("4", "v")
        await settle(pilot)
        result = str(app.screen.query_one("#verify-result").render())
        assert "First bad entry: #5" in result and "altered" in result
        table = app.screen.query_one(LedgerTable)
        assert table.cursor_row == table.get_row_index("5")  # the bad row is the one under the cursor
        assert "bold red" in str(table.get_row("5")[0].style)


async def test_verify_from_the_command_palette_goes_to_the_ledger_and_runs(demo_mem: Memory) -> None:
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.run_command("verify")
        await settle(pilot)
        assert isinstance(app.screen, LedgerScreen)
        assert "verifies" in str(app.screen.query_one("#verify-result").render())
