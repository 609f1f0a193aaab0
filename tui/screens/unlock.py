"""Asked when the store is locked with a passphrase and none was given in the environment."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Button, Input, Static
from veramem_desktop.tui.screens.base import FacadeModal

if TYPE_CHECKING:
    from veramem_desktop.memory import Memory


#: the dialog's text: it sits right above its own passphrase field, so it asks for the passphrase there
#: (the command line's message about terminals and VERAMEM_PASSPHRASE would point somewhere else)
UNLOCK_TEXT = (
    "This store's key is kept under a passphrase. Type it below and press Enter to open the store. "
    "Lost it? Quit and run `veramem unlock --recovery-code` with the code shown when the store was made."
)


class UnlockScreen(FacadeModal):
    """Ask for the passphrase; dismisses with an open Memory (or None when cancelled)."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="unlock.cancel", tooltip="Close without unlocking"),
    ]

    @dataclass
    class Unlocked(Message):
        memory: Memory

    def __init__(self, reason: str = UNLOCK_TEXT) -> None:
        super().__init__()
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Unlock the store", classes="dialog-title")
            yield Static(self.reason, classes="dialog-text")
            yield Input(placeholder="Passphrase", password=True, id="unlock-passphrase")
            yield Button("Unlock", id="unlock", variant="primary")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @work(thread=True, exclusive=True, exit_on_error=False, group="unlock")
    def unlock(self, passphrase: str) -> None:
        memory = self.vapp.memory_factory(passphrase)
        memory.reading.sessions()  # opens the store with this passphrase; a wrong one raises WrongKeyError
        self.post_result(self.Unlocked(memory))

    def on_unlock_screen_unlocked(self, message: Unlocked) -> None:
        self.dismiss(message.memory)

    def worker_failed(self, group: str) -> None:
        self.query_one(Input).value = ""
        self.query_one(Input).focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#unlock")
    def _submit(self) -> None:
        value = self.query_one(Input).value
        if value:
            self.unlock(value)

    def action_cancel(self) -> None:
        self.dismiss(None)
