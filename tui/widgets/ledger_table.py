"""Ledger entries in a table: sequence number, time, operation, what it touched, and (``show_actor``) who
acted through which surface."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.widgets import DataTable
from veramem_desktop.tui.formatting import short_id, short_time


class LedgerTable(DataTable[Any]):
    """Rows keyed by sequence number; ``bad_seq`` is drawn in the error colour."""

    def __init__(self, *, id: str | None = None, show_actor: bool = False) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.show_actor = show_actor

    def on_mount(self) -> None:
        self.add_column("#", key="seq")
        self.add_column("Time", key="ts")
        self.add_column("Operation", key="op")
        self.add_column("Target", key="target")
        if self.show_actor:
            self.add_column("By", key="by")

    def show(self, entries: Sequence[Any], bad_seq: int | None = None) -> None:
        self.clear()
        for entry in entries:
            style = "bold red" if entry.seq == bad_seq else ""
            cells = [
                Text(str(entry.seq), style=style),
                Text(short_time(entry.ts), style=style),
                Text(entry.op, style=style),
                Text(short_id(entry.target_id), style=style),
            ]
            if self.show_actor:
                cells.append(Text(getattr(entry, "actor_text", "") or "—", style=style))
            self.add_row(*cells, key=str(entry.seq))
        if bad_seq is not None and str(bad_seq) in self.rows:
            self.move_cursor(row=self.get_row_index(str(bad_seq)))
