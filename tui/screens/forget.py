"""Forget: a preview of exactly what will be erased, a confirmation, then the tombstone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Static
from veramem_desktop.tui.formatting import plural, short_id
from veramem_desktop.tui.screens.base import FacadeModal


def preview_lines(preview: Any) -> list[str]:
    """What a ForgetPreview says will go, one line per kind of thing, then the ids."""
    lines = [
        f"• {plural(len(preview.memories), 'memory', 'memories')} (every version)",
        f"• {plural(int(preview.evidence), 'piece')} of evidence",
        f"• {plural(len(preview.episodes), 'source episode')}",
    ]
    derived = list(getattr(preview, "derived", []) or [])
    if derived:
        lines.append(f"• {plural(len(derived), 'derived item')} (summaries, merges, links, shared copies)")
    for name, label in (("traces", "search trace"), ("grants", "access grant"),
                        ("rejected_values", "rejected value")):
        count = int(getattr(preview, name, 0) or 0)
        if count:
            lines.append(f"• {plural(count, label)}")
    ids = [*preview.memories, *preview.episodes, *derived]
    if ids:
        lines.append("")
        lines += [f"  {short_id(i, 12)}" for i in ids]
    return lines


def _count(value: Any) -> int:
    return value if isinstance(value, int) else len(value or [])


def forget_summary(report: Any) -> str:
    """'Erased 2 memories and 1 episode; ledger tombstone #31.' from a ForgetReport."""
    tombstones = getattr(report, "tombstones", None)
    if tombstones is None:
        tombstones = [report.tombstone_seq] if getattr(report, "tombstone_seq", None) is not None else []
    marks = ", ".join(f"#{t}" for t in tombstones)
    return (
        f"Erased {plural(_count(report.erased_memories), 'memory', 'memories')} and "
        f"{plural(_count(report.erased_episodes), 'episode')}"
        + (f"; ledger {'tombstone' if len(tombstones) == 1 else 'tombstones'} {marks}." if marks else ".")
    )


class ForgetScreen(FacadeModal):
    """Dismisses with the ForgetReport, or None when cancelled."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="forget.cancel", tooltip="Keep everything; close this dialog"),
    ]

    @dataclass
    class Previewed(Message):
        preview: Any

    @dataclass
    class Forgotten(Message):
        report: Any

    def __init__(self, target_id: str) -> None:
        super().__init__()
        self.target_id = target_id

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="forget-dialog"):
            yield Static(f"Forget {short_id(self.target_id, 12)}?", classes="dialog-title danger-title")
            yield Static("Working out what depends on it…", id="forget-summary", classes="dialog-text")
            with VerticalScroll(id="forget-ids"):
                yield Static("", id="forget-list")
            yield Static(
                "This erases them for good, here and on your synced devices. The ledger keeps only a "
                "tombstone (an id and a commitment), which cannot confirm what was forgotten.",
                classes="dialog-text",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="forget-cancel")
                yield Button("Forget", id="forget-confirm", variant="error", disabled=True)

    def on_mount(self) -> None:
        self.query_one("#forget-dialog").loading = True
        self.preview(self.target_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="forget.preview")
    def preview(self, target_id: str) -> None:
        self.post_result(self.Previewed(self.memory.forget_preview(target_id)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="forget.erase")
    def erase(self, target_id: str) -> None:
        self.post_result(self.Forgotten(self.memory.forget(target_id)))

    def on_forget_screen_previewed(self, message: Previewed) -> None:
        lines = preview_lines(message.preview)
        self.query_one("#forget-summary", Static).update("This will erase:")
        self.query_one("#forget-list", Static).update("\n".join(lines))
        self.query_one("#forget-dialog").loading = False
        confirm = self.query_one("#forget-confirm", Button)
        confirm.disabled = False
        confirm.focus()

    def on_forget_screen_forgotten(self, message: Forgotten) -> None:
        self.notify(forget_summary(message.report), title="Forgotten")
        self.vapp.store_changed.publish("forgotten")
        self.dismiss(message.report)

    def worker_failed(self, group: str) -> None:
        if group == "forget.preview":
            self.dismiss(None)
        else:
            self.query_one("#forget-confirm", Button).disabled = False

    @on(Button.Pressed, "#forget-confirm")
    def _confirm(self) -> None:
        self.query_one("#forget-confirm", Button).disabled = True
        self.query_one("#forget-dialog").loading = True
        self.erase(self.target_id)

    @on(Button.Pressed, "#forget-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
