"""Approving a joining device from the Sync section: type its code, it becomes one of your devices."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from tui_support import app_on, settle
from veramem_desktop.tui.screens.approve import ApproveDeviceScreen
from veramem_desktop.tui.screens.sync import SyncScreen

from veramem_desktop.memory import Memory

pytestmark = pytest.mark.anyio


def _typed(text: str) -> list[str]:
    return ["minus" if ch == "-" else ch for ch in text]


@pytest.fixture
def laptop_and_phone(tmp_path: Path) -> Iterator[tuple[Memory, Memory, Path]]:
    """Two real stores; the laptop has set up sync in a folder both of them see."""
    folder = tmp_path / "shared"
    folder.mkdir()
    laptop, _ = Memory.create(
        tmp_path / "laptop", passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder()
    )
    phone, _ = Memory.create(
        tmp_path / "phone", passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder()
    )
    laptop.sync.init(folder, "laptop")
    yield laptop, phone, folder
    laptop.close()
    phone.close()


async def test_typing_the_code_a_joining_device_shows_makes_it_one_of_your_devices(
    laptop_and_phone: tuple[Memory, Memory, Path],
) -> None:
    laptop, phone, folder = laptop_and_phone
    code = phone.sync.join_start(folder, "phone")
    joined: dict[str, Any] = {}
    joiner = threading.Thread(target=lambda: joined.update(phone.sync.join_finish(timeout_s=60)), daemon=True)
    joiner.start()
    app = app_on(laptop)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        assert isinstance(app.screen, SyncScreen)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ApproveDeviceScreen)
        await pilot.press(*_typed(code), "enter")
        await settle(pilot)
        assert isinstance(app.screen, SyncScreen)
        assert any("phone is now one of your devices" in n.message for n in app._notifications)
    joiner.join(30)
    assert joined.get("approved_by") == laptop.sync.status()["device"]["id"]
    assert {d["name"] for d in laptop.sync.devices()} == {"laptop", "phone"}


async def test_a_wrong_code_shows_the_pairing_error_and_keeps_the_dialog_open(
    laptop_and_phone: tuple[Memory, Memory, Path],
) -> None:
    laptop, phone, folder = laptop_and_phone
    phone.sync.join_start(folder, "phone")
    app = app_on(laptop)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        await pilot.press("a", *_typed("AB-CDEF-GHJK"), "enter")  # well formed, but no device shows it
        await settle(pilot)
        assert isinstance(app.screen, ApproveDeviceScreen)
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors and "No join request matches this code" in errors[-1].message
        assert app.focused is not None and app.focused.id == "approve-code"
    assert {d["name"] for d in laptop.sync.devices()} == {"laptop"}


async def test_approve_on_a_store_without_sync_says_how_to_set_it_up(mem: Memory) -> None:
    app = app_on(mem)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, SyncScreen)
        assert any("sync init" in n.message for n in app._notifications)
