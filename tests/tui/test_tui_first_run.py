"""First run: a guided init that creates a real store, shows the recovery code once, offers the demo."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.fixtures import PASSPHRASE
from textual.widgets import Static
from tui_support import fill, fresh_app, settle
from veramem_desktop.tui.screens.first_run import FirstRunScreen

from veramem_desktop.memory import Memory

pytestmark = pytest.mark.anyio


async def test_first_run_creates_a_passphrase_store_shows_the_recovery_code_and_loads_the_demo(
    isolated_home: Path,
) -> None:
    app = fresh_app(isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, FirstRunScreen)
        assert app.memory is None
        await fill(pilot, "#passphrase", "new passphrase 1")
        await pilot.press("enter")
        await fill(pilot, "#passphrase-again", "new passphrase 1")
        await pilot.press("enter")
        await settle(pilot)
        code = str(app.screen.query_one("#recovery-code", Static).render())
        assert len(code.split("-")) == 14
        await pilot.press("enter")  # "I have written it down"
        await pilot.press("enter")  # "Load the demo"
        await settle(pilot)
        assert not isinstance(app.screen, FirstRunScreen)
        assert app.memory is not None
    # The store is on disk, locked by the chosen passphrase, and holds the demo conversations.
    with Memory(isolated_home, passphrase="new passphrase 1") as reopened:
        sessions = {s["session_id"] for s in reopened.sessions()}
        assert "demo-kitchen" in sessions and "demo-correction" in sessions
    app.memory.close()


async def test_first_run_refuses_passphrases_that_differ_and_creates_nothing(isolated_home: Path) -> None:
    app = fresh_app(isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await fill(pilot, "#passphrase", "first passphrase")
        await fill(pilot, "#passphrase-again", "other passphrase")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FirstRunScreen)
        assert any("differ" in n.message for n in app._notifications)
    assert not Memory(isolated_home, passphrase=PASSPHRASE).exists()


async def test_first_run_can_start_empty_without_the_demo(isolated_home: Path) -> None:
    app = fresh_app(isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await fill(pilot, "#passphrase", PASSPHRASE)
        await fill(pilot, "#passphrase-again", PASSPHRASE)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("enter")
        await pilot.click("#demo-no")
        await settle(pilot)
        assert app.memory is not None and app.memory.sessions() == []
        app.memory.close()
