"""Approve a device: type the one-time code a joining device shows, hand it the sync key.

Approving is a human act (the facade offers it to the CLI and this dialog only): the code
is read off the new device's screen, so whoever types it is holding both devices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.widgets import Button, Static
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.trust.display import visible
from veramem_desktop.tui.screens.base import FacadeModal
from veramem_desktop.tui.widgets.form_input import FormInput

#: seconds the approval waits for the new device's confirmation before leaving it to the next exchange
APPROVE_WAIT_S = 30.0

EXPLAIN = (
    "On the new device, `veramem sync join FOLDER` shows a one-time code. Type it here to give that "
    "device the sync key. Approve only a device you are holding: it will read every memory."
)


def approval_summary(info: dict[str, Any]) -> tuple[str, SeverityLevel]:
    """(message, severity) for what ``mem.sync.approve`` returned."""
    name = info.get("name") or str(info.get("device") or "the new device")
    status = str(info.get("status") or "")
    if status == "added":
        return f"{name} is now one of your devices.", "information"
    if status == "failed":
        return (
            f"{name} was not added: {info.get('message') or info.get('reason') or 'pairing failed'}",
            "error",
        )
    return f"{name} approved; {status or 'waiting for it to confirm'}.", "warning"


class ApproveDeviceScreen(FacadeModal):
    """Asks for the code, calls ``mem.sync.approve``; dismisses with its result (None when cancelled)."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="approve.cancel", tooltip="Close without approving"),
    ]

    @dataclass
    class Approved(Message):
        info: dict[str, Any]

    def __init__(self, wait_s: float = APPROVE_WAIT_S) -> None:
        super().__init__()
        self.wait_s = wait_s
        self.approving = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="approve-dialog"):
            yield Static("Approve a device", classes="dialog-title")
            yield Static(EXPLAIN, classes="dialog-text")
            yield FormInput(placeholder="The code on the new device, e.g. AB-CDEF-GHJK", id="approve-code")
            yield Static("", id="approve-status", classes="dialog-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="approve-cancel")
                yield Button("Approve", id="approve-confirm", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#approve-status").display = False
        self.query_one("#approve-code", FormInput).focus()

    @work(thread=True, exclusive=True, exit_on_error=False, group="sync.approve")
    def approve(self, code: str) -> None:
        self.post_result(self.Approved(dict(self.memory.sync.approve(code, wait_s=self.wait_s))))

    def on_approve_device_screen_approved(self, message: Approved) -> None:
        text, severity = approval_summary(message.info)
        self.notify(visible(text), title="Approve a device", severity=severity, timeout=10, markup=False)
        self.vapp.store_changed.publish("device approved")
        self.dismiss(message.info)

    def worker_failed(self, group: str) -> None:
        self.approving = False
        self.query_one("#approve-status").display = False
        self.query_one("#approve-confirm", Button).disabled = False
        field = self.query_one("#approve-code", FormInput)
        field.disabled = False
        field.focus()

    @on(FormInput.Submitted)
    @on(Button.Pressed, "#approve-confirm")
    def _confirm(self) -> None:
        if self.approving:
            return
        field = self.query_one("#approve-code", FormInput)
        code = field.value.strip()
        if not code:
            error = InvalidInputError("Type the code the new device shows.")
            self.notify(error.message, title=error.title, severity="warning")
            return
        self.approving = True
        status = self.query_one("#approve-status", Static)
        status.update(f"Approving; waiting up to {self.wait_s:.0f} s for the new device to confirm…")
        status.display = True
        self.query_one("#approve-confirm", Button).disabled = True
        field.disabled = True
        self.approve(code)

    @on(Button.Pressed, "#approve-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
