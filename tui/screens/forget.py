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
from veramem_desktop.tui.formatting import one_line, plural, short_id
from veramem_desktop.tui.screens.base import FacadeModal

#: items listed by text in the preview; more are counted, not listed (forgetting a user can reach thousands)
MAX_LISTED = 40
TEXT_WIDTH = 52


def preview_texts(memory: Any, preview: Any, limit: int = MAX_LISTED) -> dict[str, str]:
    """The text of each memory and episode the preview names (up to ``limit``), read through the facade."""
    texts: dict[str, str] = {}
    derived = list(getattr(preview, "derived", []) or [])
    for item_id in [*preview.memories, *derived][:limit]:
        try:
            texts[item_id] = memory.reading.get(item_id).text
        except Exception:  # noqa: BLE001 - a text we cannot read is shown by its id alone
            continue
    for episode_id in list(preview.episodes)[:limit]:
        try:
            episode = memory.reading.episode(episode_id)
        except Exception:  # noqa: BLE001 - as above
            episode = None
        if episode is not None:
            texts[episode_id] = f"{episode.role}: {episode.content}"
    return texts


def _listed(title: str, ids: list[str], texts: dict[str, str], limit: int) -> list[str]:
    if not ids:
        return []
    lines = ["", title]
    for item_id in ids[:limit]:
        text = texts.get(item_id)
        lines.append(
            f"  {one_line(text, TEXT_WIDTH)}  {short_id(item_id, 6)}"
            if text
            else f"  {short_id(item_id, 12)}"
        )
    if len(ids) > limit:
        lines.append(f"  … and {len(ids) - limit} more")
    return lines


def preview_summary(preview: Any) -> str:
    """One sentence of counts: 'This will erase 1 memory (every version), 1 piece of evidence and ...'."""
    parts = [
        f"{plural(len(preview.memories), 'memory', 'memories')} (every version)",
        f"{plural(int(preview.evidence), 'piece')} of evidence",
        f"{plural(len(preview.episodes), 'source episode')}",
    ]
    derived = list(getattr(preview, "derived", []) or [])
    if derived:
        parts.append(f"{plural(len(derived), 'derived item')} (summaries, merges, links, shared copies)")
    for name, label, what in (
        ("traces", "trace", " (searches, answers, write decisions)"),  # the CLI's wording too
        ("grants", "access grant", ""),
        ("rejected_values", "rejected value", ""),
    ):
        count = int(getattr(preview, name, 0) or 0)
        if count:
            parts.append(plural(count, label) + what)
    return f"This will erase {', '.join(parts[:-1])} and {parts[-1]}:"


def may_redact(preview: Any) -> bool:
    """Whether a redaction would keep something: a memory's forget that also takes other memories of
    its messages (the full erasure's), offered as "Keep the rest of its message"."""
    return (
        getattr(preview, "kind", "") == "memory"
        and bool(getattr(preview, "derived", None))
        and not getattr(preview, "redactions", None)
    )


def redaction_lines(preview: Any) -> list[str]:
    """What each redacted message keeps (a redacting preview)."""
    cuts = list(getattr(preview, "redactions", []) or [])
    if not cuts:
        return []
    lines = ["", "Messages that keep their other sentences"]
    for cut in cuts[:MAX_LISTED]:
        lines.append(
            f"  {one_line(str(cut.get('kept', '')), TEXT_WIDTH)}  {short_id(str(cut.get('episode')), 6)}"
        )
    return lines


def preview_lines(preview: Any, texts: dict[str, str] | None = None, limit: int = MAX_LISTED) -> list[str]:
    """Every item the preview names, by its (shortened) text where it could be read; what is erased
    because it repeats the forgotten value (an echo, a copy, a summary) in a group of its own."""
    restated = list(getattr(preview, "restatements", []) or [])
    texts = {**(texts or {}), **{r["id"]: _restated_text(r) for r in restated}}
    repeats = [r["id"] for r in restated]
    derived = [i for i in list(getattr(preview, "derived", []) or []) if i not in repeats]
    where = (
        "in every session" if getattr(preview, "reach", "") == "everywhere" else "in the same conversation"
    )
    lines = [
        *_listed(
            "Memories", [i for i in preview.memories if i not in repeats and i not in derived], texts, limit
        ),
        *_listed("Source episodes", [i for i in preview.episodes if i not in repeats], texts, limit),
        *_listed("Built from them", derived, texts, limit),
        *_listed(f"Repeating it {where}", repeats, texts, limit),
        *redaction_lines(preview),
    ]
    return lines[1:]  # no blank line before the first group


def _restated_text(restatement: dict[str, str]) -> str:
    return ("message: " if restatement.get("kind") == "episode" else "") + str(restatement.get("text", ""))


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
        Binding(
            "escape", "cancel", "Cancel", id="forget.cancel", tooltip="Keep everything; close this dialog"
        ),
    ]

    @dataclass
    class Previewed(Message):
        preview: Any
        texts: dict[str, str]

    @dataclass
    class Forgotten(Message):
        report: Any

    def __init__(self, target_id: str) -> None:
        super().__init__()
        self.target_id = target_id
        self.redact = False  # set by "Keep the rest of its message": the confirmed forget redacts

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="forget-dialog"):
            yield Static(f"Forget {short_id(self.target_id, 12)}?", classes="dialog-title danger-title")
            yield Static("Working out what depends on it…", id="forget-summary", classes="dialog-text")
            with VerticalScroll(id="forget-ids"):
                yield Static("", id="forget-list", markup=False)  # memory texts may hold [brackets]
            yield Static(
                "They go for good, here and on your synced devices. The ledger keeps only a tombstone "
                "(an id and a commitment), which cannot confirm what was forgotten.",
                classes="dialog-text",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="forget-cancel")
                yield Button("Keep the rest of its message", id="forget-redact", disabled=True)
                yield Button("Forget", id="forget-confirm", variant="error", disabled=True)

    def on_mount(self) -> None:
        self.query_one("#forget-redact", Button).display = False
        self.query_one("#forget-dialog").loading = True
        self.preview(self.target_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="forget.preview")
    def preview(self, target_id: str, redact: bool = False) -> None:
        memory = self.memory
        preview = memory.reading.forget_preview(target_id, redact=redact)
        self.post_result(self.Previewed(preview, preview_texts(memory, preview)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="forget.erase")
    def erase(self, target_id: str, redact: bool = False) -> None:
        self.post_result(self.Forgotten(self.memory.curation.forget(target_id, redact=redact)))

    def on_forget_screen_previewed(self, message: Previewed) -> None:
        lines = preview_lines(message.preview, message.texts)
        self.query_one("#forget-summary", Static).update(preview_summary(message.preview))
        self.query_one("#forget-list", Static).update("\n".join(lines))
        self.query_one("#forget-dialog").loading = False
        keep = self.query_one("#forget-redact", Button)
        keep.display = may_redact(message.preview)
        keep.disabled = not keep.display
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
        self.erase(self.target_id, self.redact)

    @on(Button.Pressed, "#forget-redact")
    def _keep_the_rest(self) -> None:
        """Preview the redaction instead: only the sentences that state it go; Forget then confirms that."""
        self.redact = True
        self.query_one("#forget-redact", Button).display = False
        self.query_one("#forget-confirm", Button).disabled = True
        self.query_one("#forget-dialog").loading = True
        self.preview(self.target_id, True)

    @on(Button.Pressed, "#forget-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
