"""Help: every key, screen by screen, built from the bindings themselves (so it cannot drift)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

INTRO = (
    "VeraMem keeps what your agents learn about you in one encrypted file on this computer. "
    "Every memory points at the words it came from; every change is in a hash-chained ledger."
)


def _bindings(owner: Any) -> list[Binding]:
    return [b for b in getattr(owner, "BINDINGS", []) if isinstance(b, Binding)]


def binding_table(title: str, bindings: Iterable[Binding]) -> Table:
    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        show_header=False,
        box=None,
        padding=(0, 2),
        expand=True,
    )
    table.add_column(style="bold", no_wrap=True, width=10)
    table.add_column(ratio=1)
    for b in bindings:
        table.add_row(b.key_display or b.key.split(",")[0], b.tooltip or b.description)
    return table


def help_renderable() -> Group:
    # Imported here: the screens import this module's siblings, not the other way round.
    from veramem_desktop.tui.app import VeramemApp
    from veramem_desktop.tui.screens.ledger import LedgerScreen
    from veramem_desktop.tui.screens.memories import MemoriesScreen
    from veramem_desktop.tui.screens.memory_detail import MemoryDetailScreen
    from veramem_desktop.tui.screens.review import ReviewScreen

    parts: list[Any] = [Text(INTRO + "\n")]
    parts.append(
        binding_table(
            "Everywhere",
            [*_bindings(VeramemApp), Binding("ctrl+p", "", tooltip="Command palette: every action by name")],
        )
    )
    for title, owner in (
        ("Memories", MemoriesScreen),
        ("A memory", MemoryDetailScreen),
        ("Review", ReviewScreen),
        ("Ledger", LedgerScreen),
    ):
        parts += [Text(""), binding_table(title, _bindings(owner))]
    return Group(*parts)


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape,question_mark,q",
            "close",
            "Close",
            key_display="esc",
            id="help.close",
            tooltip="Close the help",
        ),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="help-dialog"):
            yield Static("VeraMem help", classes="dialog-title")
            with VerticalScroll(id="help-body"):
                yield Static(help_renderable())

    def action_close(self) -> None:
        self.dismiss()
