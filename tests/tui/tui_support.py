"""Helpers for driving the terminal app headless on a real store in a temporary home."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support.fake_embedder import HashEmbedder
from support.pilot import settle  # noqa: F401  (re-exported for the TUI tests)
from textual.pilot import Pilot
from veramem_desktop.tui.app import VeramemApp
from veramem_desktop.tui.types import InitRequest

from veramem_desktop.memory import Memory


def app_on(memory: Memory, **kwargs: Any) -> VeramemApp:
    """The app as the CLI builds it, but around an already-created memory."""
    return VeramemApp(lambda _passphrase: memory, **kwargs)


def fresh_app(home: Path, **kwargs: Any) -> VeramemApp:
    """The app on an empty home: opens on the first-run screen and creates a real store."""

    def factory(passphrase: str | None) -> Memory:
        return Memory(home, passphrase=passphrase, embedder=HashEmbedder())

    def create(request: InitRequest) -> Any:
        return Memory.create(
            home, passphrase=request.passphrase, use_keyring=request.use_keyring, embedder=HashEmbedder()
        )

    return VeramemApp(factory, create_memory=create, **kwargs)


async def fill(pilot: Pilot[Any], selector: str, text: str) -> None:
    """Put ``text`` in an Input and focus it (typing long text key by key is slow on a busy machine)."""
    from textual.widgets import Input

    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    field.value = text
    await pilot.pause()


def shown_text(widget: Any, width: int = 200) -> str:
    """The plain text a Static shows (strings, markup, Rich tables and groups alike)."""
    from rich.console import Console
    from textual.content import Content

    content = widget.content
    if isinstance(content, str | Content):
        return str(Content.from_markup(content) if isinstance(content, str) else content)
    console = Console(width=width, record=True, color_system=None, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(content)
    return console.export_text()
