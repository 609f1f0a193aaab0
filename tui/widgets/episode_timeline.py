"""The raw conversation of one session, in order: time, role, and the words as stored."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group
from rich.text import Text
from textual.widgets import Static
from veramem_desktop.tui.formatting import one_line, plain, short_time

ROLE_STYLES = {
    "user": "bold green",
    "assistant": "bold cyan",
    "system": "bold magenta",
    "tool": "bold yellow",
    "document": "bold blue",
    "shared": "bold red",
}


def timeline_renderable(episodes: Sequence[Any]) -> Group:
    blocks: list[Text] = []
    for ep in episodes:
        head = Text(short_time(ep.event_time) + "  ", style="dim")
        head.append(
            one_line(ep.role + (f" ({ep.source_name})" if ep.source_name else ""), 80),
            style=ROLE_STYLES.get(ep.role, "bold"),
        )
        blocks.append(head)
        blocks.append(plain(ep.content + "\n"))
    return Group(*blocks)


class EpisodeTimeline(Static):
    def show(self, episodes: Sequence[Any]) -> None:
        if episodes:
            self.update(timeline_renderable(episodes))
        else:
            self.update("No messages in this session.")
