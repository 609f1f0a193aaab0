"""A table of memories or search hits; Enter opens the highlighted one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable
from veramem_desktop.tui.formatting import cell

#: (key, label, width); the memory text takes what is left
COLUMNS = (("kind", "Kind", 10), ("text", "Memory", 0), ("authority", "Authority", 10), ("trust", "Trust", 9))
STATUS_COLUMN = ("status", "Status", 10)
#: below this many cells the status column is left out (the filter bar still shows it)
WIDE = 110


def text_width_for(total: int) -> int:
    """Cells left for the memory text in a table ``total`` cells wide."""
    fixed = sum(width for _, _, width in COLUMNS) + 2 * (len(COLUMNS) + 1) + 2
    if total >= WIDE:
        fixed += STATUS_COLUMN[2] + 2
    return max(16, total - fixed)


class MemoryTable(DataTable[Text]):
    """Rows keyed by id; posts ``Opened`` when a row is chosen."""

    @dataclass
    class Opened(Message):
        memory_id: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def show(self, rows: Sequence[Any], *, width: int) -> None:
        """Replace the rows with ``rows`` (MemoryItem or search Hit objects), laid out for ``width`` cells."""
        text_width = text_width_for(width)
        columns = [*COLUMNS, STATUS_COLUMN] if width >= WIDE else list(COLUMNS)
        self.clear(columns=True)
        for key, label, col_width in columns:
            self.add_column(label, key=key, width=col_width or text_width)
        for row in rows:
            # Every cell is a Text made visible: a DataTable reads a plain string as markup.
            cells = [
                cell(getattr(row, "kind", ""), 20), cell(getattr(row, "text", ""), text_width),
                cell(getattr(row, "authority", "") or "", 20), cell(getattr(row, "trust", "") or "", 20),
            ]
            if width >= WIDE:
                cells.append(cell(getattr(row, "status", "") or "", 20))
            self.add_row(*cells, key=row.id)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Opened(event.row_key.value))
