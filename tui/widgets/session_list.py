"""Sessions, newest first, each with its message count; posts ``Chosen`` on highlight."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option
from veramem_desktop.tui.formatting import one_line, short_time

NO_SESSION = "\x00none"  # option id for episodes stored without a session


class SessionList(OptionList):
    @dataclass
    class Chosen(Message):
        session_id: str | None

    def show(self, sessions: Sequence[dict[str, Any]]) -> None:
        self.clear_options()
        for s in sessions:
            label = Text(one_line(s["session_id"] or "(no session)", 60), style="bold")
            withheld = f" ({s['withheld']} withheld)" if s.get("withheld") else ""
            label.append(f"\n{s['episodes']} msg{withheld} · {short_time(s['last'])[:10]}", style="dim")
            self.add_option(Option(label, id=s["session_id"] or NO_SESSION))
        if sessions:
            self.highlighted = 0

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        option_id = event.option.id
        self.post_message(self.Chosen(None if option_id == NO_SESSION else option_id))
