"""Command palette entries (ctrl+p): every section, and the app-wide actions."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from veramem_desktop.tui.widgets.nav_bar import SECTIONS

if TYPE_CHECKING:
    from veramem_desktop.tui.app import VeramemApp


class VeramemCommands(Provider):
    """Go to a section, verify the ledger, load the demo conversations, switch theme, help."""

    def _commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        app = cast("VeramemApp", self.app)
        found: list[tuple[str, str, Callable[[], Any]]] = [
            (f"Go to {label}", f"Show the {label.lower()} section (key {key})", partial(app.action_go, mode))
            for mode, key, label in SECTIONS
        ]
        found += [
            (
                "Verify the ledger",
                "Recompute the hash chain and name the first bad entry",
                partial(app.run_command, "verify"),
            ),
            (
                "Load the demo conversations",
                "Add a small set of example conversations to look around",
                partial(app.run_command, "demo"),
            ),
            ("Toggle dark / light theme", "Switch the colour theme (ctrl+t)", app.action_toggle_theme),
            ("Help", "Every key, screen by screen (?)", app.action_help),
        ]
        return found

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
