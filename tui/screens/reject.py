"""Reject a memory with a reason; the value is then refused if it is ever asserted again."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Input, Static
from veramem_desktop.tui.formatting import one_line, short_id
from veramem_desktop.tui.screens.base import FacadeModal


class RejectScreen(FacadeModal):
    """Asks for the reason, calls ``mem.review.reject``; dismisses with the rejected item or None."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="reject.cancel", tooltip="Close without rejecting"),
    ]

    @dataclass
    class Rejected(Message):
        item: Any

    def __init__(self, memory_id: str, text: str = "") -> None:
        super().__init__()
        self.memory_id = memory_id
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="reject-dialog"):
            yield Static(f"Reject {short_id(self.memory_id, 12)}", classes="dialog-title")
            if self.text:
                yield Static(f"“{one_line(self.text, 400)}”", classes="dialog-text", markup=False)
            yield Static(
                "Once rejected, this value is refused whenever an agent asserts it again.",
                classes="dialog-text",
            )
            yield Input(placeholder="Why? (optional, kept with the rejection)", id="reject-reason")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="reject-cancel")
                yield Button("Reject", id="reject-confirm", variant="warning")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @work(thread=True, exclusive=True, exit_on_error=False, group="reject")
    def reject(self, memory_id: str, reason: str) -> None:
        self.post_result(self.Rejected(self.memory.review.reject(memory_id, reason=reason).item))

    def on_reject_screen_rejected(self, message: Rejected) -> None:
        self.notify(f"Rejected: {one_line(message.item.text, 200)}", title="Review", markup=False)
        self.vapp.store_changed.publish("rejected")
        self.dismiss(message.item)

    def worker_failed(self, group: str) -> None:
        self.query_one("#reject-confirm", Button).disabled = False

    @on(Input.Submitted)
    @on(Button.Pressed, "#reject-confirm")
    def _confirm(self) -> None:
        self.query_one("#reject-confirm", Button).disabled = True
        self.reject(self.memory_id, self.query_one(Input).value.strip())

    @on(Button.Pressed, "#reject-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
