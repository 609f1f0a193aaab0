"""Label/value pairs in two aligned columns."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from textual.widgets import Static
from veramem_desktop.tui.formatting import plain


def field_grid(rows: Sequence[tuple[str, str]]) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for label, value in rows:
        grid.add_row(label, plain(value or "—"))  # values can be stored text: never read as markup
    return grid


class FieldTable(Static):
    """Shows ``(label, value)`` rows; ``show`` replaces them."""

    def show(self, rows: Sequence[tuple[str, str]]) -> None:
        self.update(field_grid(rows))
