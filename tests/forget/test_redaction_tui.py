"""The terminal app's forget dialog offers redaction when the full erasure would take other memories
of the message: "Keep the rest of its message" previews what each message keeps, and Forget then
redacts (the sibling memories stay)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.widgets import Button

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tui"))
from tui_support import app_on, settle, shown_text  # noqa: E402
from veramem_desktop.tui.screens.forget import ForgetScreen  # noqa: E402

from veramem_desktop.memory import Memory  # noqa: E402


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # Textual's loop


@pytest.mark.anyio
async def test_the_forget_dialog_redacts_when_asked_and_the_siblings_stay(mem: Memory) -> None:
    added = mem.add("Ana is visiting on Saturday. She is allergic to peanuts.", session_id="kitchen")
    ana = next(a["id"] for a in added.added if "visiting" in a["text"])
    sibling = next(a["id"] for a in added.added if a["id"] != ana)
    app = app_on(mem)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        dialog = ForgetScreen(ana)
        app.push_screen(dialog)
        await settle(pilot)
        keep = dialog.query_one("#forget-redact", Button)
        assert keep.display and not keep.disabled  # the full erasure would take the allergy too
        await pilot.click("#forget-redact")
        await settle(pilot)
        listed = shown_text(dialog.query_one("#forget-list"))
        assert (
            "Messages that keep their other sentences" in listed and "She is allergic to peanuts." in listed
        )
        assert not keep.display
        await pilot.click("#forget-confirm")
        await settle(pilot)
        assert any(n.title == "Forgotten" for n in app._notifications)
    assert mem.get(sibling).status == "active"
    assert not [h for h in mem.search("Saturday", route="dual", k=20).results if "Saturday" in h.text]
    assert mem.verify().ok


@pytest.mark.anyio
async def test_the_choice_is_not_offered_when_nothing_else_would_go(mem: Memory) -> None:
    added = mem.add("My locker code is 4471.", session_id="gym")
    app = app_on(mem)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        dialog = ForgetScreen(added.added[0]["id"])
        app.push_screen(dialog)
        await settle(pilot)
        assert not dialog.query_one("#forget-redact", Button).display
