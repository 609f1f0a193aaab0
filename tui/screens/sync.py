"""Sync: this device, the paired devices, a pairing code, the last exchange, pending events.

Filled from ``Memory.sync_status()`` when the facade has it; until then the screen says
plainly that sync is not set up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static
from veramem_desktop.tui.formatting import short_time
from veramem_desktop.tui.screens.base import SectionScreen
from veramem_desktop.tui.widgets.field_table import FieldTable

NOT_SET_UP = (
    "Sync is not set up on this device.\n\n"
    "When it is, your devices exchange signed, encrypted events through a folder that any file-sync "
    "tool replicates (Syncthing, Dropbox, a USB stick). This screen will list your devices, show a "
    "pairing code for a new one, the last exchange and the events still waiting to go out."
)


def sync_rows(status: dict[str, Any]) -> list[tuple[str, str]]:
    devices = status.get("devices") or []
    names = [d.get("name") or d.get("id", "") if isinstance(d, dict) else str(d) for d in devices]
    return [
        ("Folder", str(status.get("folder") or "")),
        ("This device", str(status.get("device_id") or status.get("device") or "")),
        ("Devices", ", ".join(names) or "only this one"),
        ("Pairing code", str(status.get("pairing_code") or "none (start pairing from the CLI)")),
        ("Last exchange", short_time(status.get("last_exchange")) or "never"),
        ("Pending events", str(status.get("pending", status.get("pending_events", 0)))),
    ]


class SyncScreen(SectionScreen):
    SECTION = "sync"
    CSS_PATH = "sync.tcss"

    @dataclass
    class Loaded(Message):
        status: dict[str, Any] | None

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="sync"):
            yield Static("", id="sync-state")
            yield FieldTable(id="sync-fields")

    def refresh_data(self) -> None:
        self.query_one("#sync").loading = True
        self.load_status()

    @work(thread=True, exclusive=True, exit_on_error=False, group="sync.status")
    def load_status(self) -> None:
        reader = getattr(self.memory, "sync_status", None)
        status = reader() if callable(reader) else None
        self.post_result(self.Loaded(dict(status) if status else None))

    def on_sync_screen_loaded(self, message: Loaded) -> None:
        self.query_one("#sync").loading = False
        status = message.status
        fields = self.query_one(FieldTable)
        if not status or not status.get("enabled", True):
            self.query_one("#sync-state", Static).update(NOT_SET_UP)
            fields.display = False
            return
        self.query_one("#sync-state", Static).update("Sync is on.")
        fields.display = True
        fields.show(sync_rows(status))
