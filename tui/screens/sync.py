"""Sync: this device, the paired devices, a pairing code, the last exchange, pending events.

Filled from ``mem.sync.status()``; a store where sync was never set up says so plainly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static
from veramem_desktop.tui.formatting import plural, short_id, short_time
from veramem_desktop.tui.screens.approve import ApproveDeviceScreen
from veramem_desktop.tui.screens.base import SectionScreen
from veramem_desktop.tui.widgets.field_table import FieldTable

NOT_SET_UP = (
    "Sync is not set up on this device.\n\n"
    "With sync, your devices exchange signed, encrypted events through a folder that any file-sync "
    "tool replicates (Syncthing, Dropbox, a USB stick). Set it up from the command line "
    "(`veramem sync --help`); this screen then lists your devices, the pairing code of a device "
    "joining, the last exchange and the events still waiting to go out."
)


def _device_line(device: dict[str, Any]) -> str:
    name = device.get("name") or "(unnamed)"
    parts = [f"{name} {short_id(device.get('id'))}"]
    if device.get("this_device"):
        parts.append("this device")
    if device.get("removed"):
        parts.append("removed")
    if device.get("batches_applied"):
        parts.append(f"{plural(int(device['batches_applied']), 'batch', 'batches')} applied")
    return " · ".join(parts)


def sync_rows(status: dict[str, Any], pairing_code: str | None) -> list[tuple[str, str]]:
    """Label/value rows for a ``sync_status()`` dict."""
    device = status.get("device") or {}
    rows = [
        ("This device", f"{device.get('name') or '(unnamed)'} {short_id(device.get('id'))}"),
        ("Folder", str(status.get("folder") or "")),
        ("Devices", "\n".join(_device_line(d) for d in status.get("devices") or []) or "only this one"),
        ("Pairing code", pairing_code or "none (a joining device shows one)"),
        ("Last exchange", short_time(status.get("last_exchange")) or "never"),
        ("Pending events", str(status.get("pending_events", 0))),
        ("Approvals waiting", str(status.get("pending_approvals", 0))),
    ]
    refused = status.get("refused") or []
    if refused:
        reasons = "\n".join(str(r.get("reason") or r) for r in refused[:5] if isinstance(r, dict))
        rows.append(("Refused files", f"{len(refused)}" + (f"\n{reasons}" if reasons else "")))
    broken = [c for c in status.get("chains") or [] if c.get("problem")]
    if broken:
        rows.append(("Broken chains", "\n".join(f"{short_id(c['device'])}: {c['problem']}" for c in broken)))
    return rows


class SyncScreen(SectionScreen):
    SECTION = "sync"
    CSS_PATH = "sync.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "r",
            "exchange",
            "Exchange now",
            id="sync.exchange",
            tooltip="Send and receive pending events through the sync folder once",
        ),
        Binding(
            "a",
            "approve",
            "Approve a device",
            id="sync.approve",
            tooltip="Type the code a joining device shows and give it the sync key",
        ),
    ]

    @dataclass
    class Loaded(Message):
        status: dict[str, Any]
        pairing_code: str | None

    @dataclass
    class Exchanged(Message):
        report: Any

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="sync"):
            yield Static("", id="sync-state")
            yield FieldTable(id="sync-fields")

    def refresh_data(self) -> None:
        self.query_one("#sync").loading = True
        self.load_status()

    @work(thread=True, exclusive=True, exit_on_error=False, group="sync.status")
    def load_status(self) -> None:
        sync = getattr(self.memory, "sync", None)  # a memory without sync shows it is not set up
        status = dict(sync.status()) if sync is not None else {"set_up": False}
        self.post_result(self.Loaded(status, sync.pairing_code() if sync is not None else None))

    @work(thread=True, exclusive=True, exit_on_error=False, group="sync.run")
    def exchange(self) -> None:
        self.post_result(self.Exchanged(self.memory.sync.run()))

    def on_sync_screen_loaded(self, message: Loaded) -> None:
        self.query_one("#sync").loading = False
        status = message.status
        fields = self.query_one(FieldTable)
        self.set_up = bool(status.get("set_up"))
        if not self.set_up:
            self.query_one("#sync-state", Static).update(NOT_SET_UP)
            fields.display = False
            return
        self.query_one("#sync-state", Static).update(
            "Sync is set up. r: exchange now · a: approve a device joining with a code."
        )
        fields.display = True
        fields.show(sync_rows(status, message.pairing_code))

    def on_sync_screen_exchanged(self, message: Exchanged) -> None:
        report = message.report
        summary = report.to_dict() if hasattr(report, "to_dict") else {}
        counts = ", ".join(f"{k} {v}" for k, v in summary.items() if isinstance(v, int)) or "done"
        self.notify(counts, title="Sync exchange")
        self.vapp.store_changed.publish("synced")

    def action_exchange(self) -> None:
        if getattr(self, "set_up", False):
            self.query_one("#sync").loading = True
            self.exchange()
        else:
            self.notify("Sync is not set up on this device.", severity="warning")

    def action_approve(self) -> None:
        if getattr(self, "set_up", False):
            self.app.push_screen(ApproveDeviceScreen())
        else:
            self.notify(
                "Sync is not set up on this device: run `veramem sync init FOLDER` first, "
                "or join an account with `veramem sync join FOLDER`.",
                severity="warning",
            )
