"""The other sections and the app-wide parts: episodes, sync, settings, help, palette, theme, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from textual.command import CommandPalette
from tui_support import app_on, fill, settle, shown_text
from veramem_desktop.tui.app import DARK, LIGHT, VeramemApp, measure_first_content, measure_first_paint
from veramem_desktop.tui.screens.episodes import EpisodesScreen
from veramem_desktop.tui.screens.help import HelpScreen
from veramem_desktop.tui.screens.memories import MemoriesScreen
from veramem_desktop.tui.screens.unlock import UnlockScreen
from veramem_desktop.tui.widgets.episode_timeline import EpisodeTimeline
from veramem_desktop.tui.widgets.session_list import SessionList

from veramem_desktop.memory import Memory

pytestmark = pytest.mark.anyio


async def test_episodes_show_each_session_and_its_messages_in_order(demo_mem: Memory) -> None:
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert isinstance(app.screen, EpisodesScreen)
        sessions = app.screen.query_one(SessionList)
        assert sessions.option_count == len(demo_mem.reading.sessions())
        # The newest session is highlighted first: the correction, user then assistant.
        text = shown_text(app.screen.query_one(EpisodeTimeline))
        assert text.index("Correction: I live in Porto") < text.index("Thanks, I have updated that")
        sessions.focus()
        await pilot.press("end")
        await settle(pilot)
        assert "vegetarian" in shown_text(app.screen.query_one(EpisodeTimeline))


async def test_sync_says_honestly_that_it_is_not_set_up(mem: Memory) -> None:
    app = app_on(mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        assert "not set up" in shown_text(app.screen.query_one("#sync-state"))


async def test_settings_show_the_models_and_where_the_store_lives(mem: Memory) -> None:
    app = app_on(mem)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        store = shown_text(app.screen.query_one("#settings-store"))
        models = shown_text(app.screen.query_one("#settings-models"))
        assert str(mem.store_path) in store and "passphrase" in store
        assert mem.embedder_name in models and "LLM backend" in models


async def test_help_lists_every_binding_with_its_description_and_closes_with_escape(mem: Memory) -> None:
    app = app_on(mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = shown_text(app.screen.query_one("#help-body Static"))
        for phrase in ("hash-chained record", "Recompute every hash", "Erase this memory", "Command palette"):
            assert phrase.lower() in text.lower(), phrase
        await pilot.press("escape")
        assert isinstance(app.screen, MemoriesScreen)


def test_every_binding_has_an_id_and_a_tooltip() -> None:
    from veramem_desktop.tui.screens import (
        first_run,
        forget,
        help,
        ledger,
        memories,
        memory_detail,
        reject,
        review,
        unlock,
    )

    owners = [
        VeramemApp,
        memories.MemoriesScreen,
        memory_detail.MemoryDetailScreen,
        review.ReviewScreen,
        ledger.LedgerScreen,
        forget.ForgetScreen,
        reject.RejectScreen,
        unlock.UnlockScreen,
        help.HelpScreen,
        first_run.FirstRunScreen,
    ]
    for owner in owners:
        for binding in owner.BINDINGS:
            assert binding.id and binding.tooltip, f"{owner.__name__}: {binding.key}"


async def test_the_command_palette_offers_the_sections_and_runs_one(demo_mem: Memory) -> None:
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"go to epi")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, EpisodesScreen)


async def test_ctrl_t_switches_between_the_dark_and_the_light_theme(mem: Memory) -> None:
    app = app_on(mem)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.theme == DARK
        await pilot.press("ctrl+t")
        assert app.theme == LIGHT
        await pilot.press("ctrl+t")
        assert app.theme == DARK


async def test_a_failing_facade_call_becomes_one_notification_and_the_app_keeps_working(mem: Memory) -> None:
    app = app_on(mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await fill(pilot, "#search", "x" * 3)  # fine
        await settle(pilot)
        mem.close()
        mem.store_path.write_bytes(b"not a database")  # the next call cannot open the store
        await fill(pilot, "#search", "other")
        await settle(pilot)
        titles = [n.title for n in app._notifications]
        assert titles and all(t for t in titles)
        assert not app.screen.query_one("#memory-table").loading
        await pilot.press("escape", "2")
        assert isinstance(app.screen, EpisodesScreen)


async def test_a_passphrase_store_without_the_passphrase_asks_for_it_and_refuses_a_wrong_one(
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    created, _ = Memory.create(
        isolated_home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder()
    )
    created.add("I keep bees on the roof.", session_id="bees")
    created.close()
    monkeypatch.delenv("VERAMEM_PASSPHRASE")
    app = VeramemApp(lambda passphrase: Memory(isolated_home, passphrase=passphrase, embedder=HashEmbedder()))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, UnlockScreen)
        await fill(pilot, "#unlock-passphrase", "not the passphrase")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, UnlockScreen)
        assert any(n.title == "Wrong passphrase or key" for n in app._notifications)
        await fill(pilot, "#unlock-passphrase", PASSPHRASE)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MemoriesScreen)
        assert app.screen.query_one("#memory-table").row_count >= 1
        assert app.memory is not None
        app.memory.close()


def test_start_up_timings_are_plausible_and_leave_the_memory_open(demo_mem: Memory) -> None:
    paint = measure_first_paint(demo_mem)
    content = measure_first_content(demo_mem)
    assert 0 < paint < 30 and 0 < content < 30
    assert len(demo_mem.reading.sessions()) == 5  # still open and usable by the caller


async def test_sync_once_set_up_shows_this_device_the_folder_and_pending_events(
    demo_mem: Memory,
    tmp_path: Path,
) -> None:
    folder = tmp_path / "sync-folder"
    folder.mkdir()
    demo_mem.sync.init(folder, "laptop")
    app = app_on(demo_mem)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        assert "set up" in shown_text(app.screen.query_one("#sync-state"))
        fields = shown_text(app.screen.query_one("#sync-fields"))
        assert "laptop" in fields and str(folder) in fields and "Pending events" in fields
        await pilot.press("r")  # exchange once with the folder
        await settle(pilot)
        assert any(n.title == "Sync exchange" for n in app._notifications)
