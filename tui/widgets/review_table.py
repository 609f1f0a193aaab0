"""The review queue: candidates and conflicts, with the reason each one is waiting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.widgets import DataTable
from veramem_desktop.tui.formatting import one_line


class ReviewTable(DataTable[str]):
    """Rows keyed by memory id."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.items: dict[str, Any] = {}

    def on_mount(self) -> None:
        self.add_column("Kind", key="kind")
        self.add_column("Memory", key="text")
        self.add_column("Authority", key="authority")
        self.add_column("Why it waits", key="reason")

    def show(self, queue: Sequence[Any], text_width: int = 40) -> None:
        self.clear()
        self.items = {}
        for entry in queue:
            item = entry.item
            self.items[item.id] = entry
            reason = entry.reason + (f" ({len(entry.conflicts_with)} conflicting)" if entry.conflicts_with else "")
            self.add_row(item.kind, one_line(item.text, text_width), item.authority,
                         one_line(reason, 28), key=item.id)

    def current_id(self) -> str | None:
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return row_key.value
