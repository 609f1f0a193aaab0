"""The review queue: candidates and conflicts, with the reason each one is waiting."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.widgets import DataTable
from veramem_desktop.tui.formatting import cell, one_line, short_id

_ID = re.compile(r"\b(?:mem|ep)_[0-9A-Z]{20,}\b")
REASON_WIDTH = 24


def reason_text(reason: str) -> str:
    """The facade's reason with ids shortened so it fits a column."""
    return one_line(_ID.sub(lambda m: short_id(m.group(0), 6), reason), REASON_WIDTH)


class ReviewTable(DataTable[Text]):
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
            # Text cells: a DataTable reads a plain string as markup.
            self.add_row(
                cell(item.kind, 20),
                cell(item.text, text_width),
                cell(item.authority, 20),
                Text(reason_text(entry.reason)),
                key=item.id,
            )

    def current_id(self) -> str | None:
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return row_key.value
