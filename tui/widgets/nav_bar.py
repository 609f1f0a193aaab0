"""The one-line bar of sections at the top of every section screen."""

from __future__ import annotations

from textual.widgets import Static

#: (mode name, key, label) in the order they are shown; the keys are the app's bindings
SECTIONS: tuple[tuple[str, str, str], ...] = (
    ("memories", "1", "Memories"),
    ("episodes", "2", "Episodes"),
    ("review", "3", "Review"),
    ("ledger", "4", "Ledger"),
    ("sync", "5", "Sync"),
    ("settings", "6", "Settings"),
)


def nav_markup(active: str) -> str:
    """Content markup for the bar: each section clickable, the active one highlighted."""
    parts = []
    for mode, key, label in SECTIONS:
        style = "reverse bold" if mode == active else ""
        text = f" {key} {label} "
        link = f"@click=app.go('{mode}')"
        parts.append(f"[{style} {link}]{text}[/]" if style else f"[{link}]{text}[/]")
    return "".join(parts)


class NavBar(Static):
    """Sections with their keys; the current one is highlighted."""

    def __init__(self, active: str) -> None:
        super().__init__(nav_markup(active), id="nav-bar")
        self.active = active
