"""A table of memories or search hits; Enter opens the highlighted one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable
from veramem_desktop.core.vocabulary import State
from veramem_desktop.tui.formatting import cell

#: (key, label, width); the memory text takes what is left. The trust column shows from ``WIDE`` cells
#: on; the state badge always: whether a row is current, history, in conflict or rejected matters most
COLUMNS = (
    ("kind", "Kind", 10),
    ("text", "Memory", 0),
    ("authority", "Authority", 10),
    ("state", "State", 11),
)
TRUST_COLUMN = ("trust", "Trust", 9)
WIDE = 110
#: badge styles: what holds now green, history dim, conflicts and rejections marked
_BADGE_STYLE: dict[str, str] = {
    State.CURRENT: "green",
    State.IN_CONFLICT: "bold yellow",
    State.SUPERSEDED: "dim",
    State.PROBABLY_SUPERSEDED: "dim italic",
    State.RETRACTED: "dim",
    State.ARCHIVED: "dim",
    State.REJECTED: "bold red",
    State.HELD: "yellow",
    State.RAW: "",
}


def state_of(row: Any, states: Mapping[str, str] | None = None) -> str:
    """A search hit's state as recall's truth stage found it; a listed memory's as ``Memory.states`` gives it."""
    state = getattr(row, "state", None)
    if state is None:
        state = (states or {}).get(row.id, "")
    return str(state)


def badge(state: str) -> Text:
    return Text(state.replace("_", " "), style=_BADGE_STYLE.get(state, ""))


def _columns(total: int, state_width: int = COLUMNS[3][2]) -> list[tuple[str, str, int]]:
    """The columns for a table ``total`` cells wide, the State column ``state_width`` cells wide."""
    state = (*COLUMNS[3][:2], state_width)
    return [*COLUMNS[:3], TRUST_COLUMN, state] if total >= WIDE else [*COLUMNS[:3], state]


def text_width_for(total: int, state_width: int = COLUMNS[3][2]) -> int:
    """Cells left for the memory text in a table ``total`` cells wide."""
    columns = _columns(total, state_width)
    fixed = sum(width for _, _, width in columns) + 2 * len(columns) + 2
    return max(16, total - fixed)


class MemoryTable(DataTable[Text]):
    """Rows keyed by id; posts ``Opened`` when a row is chosen."""

    @dataclass
    class Opened(Message):
        memory_id: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def show(self, rows: Sequence[Any], *, width: int, states: Mapping[str, str] | None = None) -> None:
        """Replace the rows with ``rows`` (MemoryItem or search Hit objects), laid out for ``width`` cells;
        ``states``: the listed memories' states by id (search hits carry their own)."""
        # the State column widens for a badge longer than its width ("probably superseded"), never narrows
        badges = [badge(state_of(row, states)) for row in rows]
        state_width = max([COLUMNS[3][2], *(b.cell_len for b in badges)])
        text_width = text_width_for(width, state_width)
        columns = _columns(width, state_width)
        self.clear(columns=True)
        for key, label, col_width in columns:
            self.add_column(label, key=key, width=col_width or text_width)
        for row, state in zip(rows, badges, strict=True):
            # Every cell is a Text made visible: a DataTable reads a plain string as markup.
            values = {
                "kind": cell(getattr(row, "kind", ""), 20),
                "text": cell(getattr(row, "text", ""), text_width),
                "authority": cell(getattr(row, "authority", "") or "", 20),
                "trust": cell(getattr(row, "trust", "") or "", 20),
                "state": state,
            }
            self.add_row(*(values[key] for key, _, _ in columns), key=row.id)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Opened(event.row_key.value))
