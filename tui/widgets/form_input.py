"""An Input for a form filled from the keyboard, robust to keys typed ahead of the screen.

Textual queues keys on the focused widget as they arrive and moves the focus later, when
the Enter or Tab reaches the screen. Typed quickly (or pasted, or sent by tmux), the
second passphrase then lands in the first field. Here Enter and Tab move the focus at once,
and a key still queued on this field after the focus has left is handed to the widget
that has it now.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class FormInput(Input):
    """An Input whose Enter moves on to ``next_on_enter`` (a selector) before anything else runs."""

    def __init__(self, *, next_on_enter: str | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.next_on_enter = next_on_enter

    async def _on_key(self, event: events.Key) -> None:
        focused = self.screen.focused
        if focused is not None and focused is not self:
            event.stop()
            event.prevent_default()
            follow = events.Key(event.key, event.character)
            follow._set_forwarded()  # already routed once: the app must not route it again
            focused.post_message(follow)
            return
        if event.key in ("tab", "shift+tab"):
            event.stop()
            event.prevent_default()
            if event.key == "tab":
                self.screen.focus_next()
            else:
                self.screen.focus_previous()
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            if self.next_on_enter is not None:
                self.screen.set_focus(self.screen.query_one(self.next_on_enter))  # now, not after a refresh
            await self.action_submit()
            return
        await super()._on_key(event)
