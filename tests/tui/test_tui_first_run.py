"""First run: a guided init that creates a real store, shows the recovery code once, offers the demo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.fixtures import PASSPHRASE
from textual import events
from textual.widgets import DataTable, Input, Static
from tui_support import fill, fresh_app, settle, shown_text
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.tui.screens.first_run import FirstRunScreen
from veramem_desktop.tui.screens.memories import MemoriesScreen
from veramem_desktop.tui.types import InitRequest
from veramem_desktop.tui.widgets.choice_button import ChoiceButton

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
        sessions = {s["session_id"] for s in reopened.reading.sessions()}
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
        assert app.memory is not None and app.memory.reading.sessions() == []
        app.memory.close()


def _typed(text: str) -> list[str]:
    """The key names that type ``text`` (Pilot names a space 'space')."""
    return ["space" if ch == " " else ch for ch in text]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_a_new_user_completes_the_first_run_with_the_keyboard_alone(
    isolated_home: Path, size: tuple[int, int]
) -> None:
    app = fresh_app(isolated_home)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        # No keyring here: that option is shown unavailable and unchosen, and typing starts in the field.
        keyring = app.screen.query_one("#mode-keyring", ChoiceButton)
        assert keyring.disabled and not keyring.value and "not available" in str(keyring.label)
        assert app.screen.query_one("#mode-passphrase", ChoiceButton).value
        assert app.focused is not None and app.focused.id == "passphrase"
        await pilot.press(*_typed("kitchen table 7"), "enter", *_typed("kitchen table 7"), "enter")
        await settle(pilot)
        code = shown_text(app.screen.query_one("#recovery-code", Static))
        assert len(code.split("-")) == 14
        await pilot.press("enter")  # "I have written it down"
        await pilot.press("enter")  # "Load the demo"
        await settle(pilot)
        assert isinstance(app.screen, MemoriesScreen)
        table = app.screen.query_one("#memory-table", DataTable)
        shown = " ".join(str(cell) for row in range(table.row_count) for cell in table.get_row_at(row))
        assert "vegetarian" in shown and "Porto" in shown
    assert app.memory is not None
    app.memory.close()
    with Memory(isolated_home, passphrase="kitchen table 7") as reopened:
        assert {"demo-kitchen", "demo-correction"} <= {s["session_id"] for s in reopened.reading.sessions()}


async def test_keys_typed_ahead_of_a_focus_move_land_in_the_field_that_has_the_focus(
    isolated_home: Path,
) -> None:
    app = fresh_app(isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        # One burst, as a fast typist or `tmux send-keys` delivers it: Textual queues every key on
        # the first field before the Enter has moved the focus.
        for key in ["s", "e", "c", "r", "e", "t", "9", "9", "enter", "s", "e", "c", "r", "e", "t", "9", "9"]:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await settle(pilot)
        assert app.screen.query_one("#passphrase", Input).value == "secret99"
        assert app.screen.query_one("#passphrase-again", Input).value == "secret99"
        assert app.focused is not None and app.focused.id == "passphrase-again"


async def test_where_a_keyring_exists_it_is_the_default_and_enter_creates_the_store_with_it(
    isolated_home: Path,
) -> None:
    requests: list[InitRequest] = []

    def create(request: InitRequest) -> Any:
        requests.append(request)
        raise InvalidInputError("stop here: the request is what this test checks")

    app = fresh_app(isolated_home, keyring_probe=lambda: True)
    app.create_memory = create
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.query_one("#mode-keyring", ChoiceButton).value
        assert not app.screen.query_one("#passphrase-fields").display
        await pilot.press("enter")
        await settle(pilot)
    assert requests == [InitRequest(use_keyring=True, passphrase=None)]
