"""Ledger: the hash-chained record of every change; verify it and see the first bad entry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import ProgressBar, Static
from veramem_desktop.tui.formatting import plural, progress_label, short_id, short_time
from veramem_desktop.tui.screens.base import SectionScreen
from veramem_desktop.tui.widgets.ledger_table import LedgerTable

SHOWN_ENTRIES = 500
AROUND_BAD = 40  # entries shown before a bad one


def bad_entry_text(report: Any, entry: Any | None) -> str:
    lines = [
        f"✗ The ledger does not verify. First bad entry: #{report.first_bad_seq}.",
        f"  {report.problem}",
    ]
    if entry is not None:
        lines.append(
            f"  #{entry.seq} {entry.op} on {entry.target_kind} {entry.target_id} at "
            f"{short_time(entry.ts)} from {short_id(entry.device)}"
        )
    return "\n".join(lines)


class LedgerScreen(SectionScreen):
    """``v`` verifies with a progress bar; the table lists the entries."""

    SECTION = "ledger"
    CSS_PATH = "ledger.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "v",
            "verify",
            "Verify",
            id="ledger.verify",
            tooltip="Recompute every hash in the chain and name the first entry that does not fit",
        ),
    ]

    @dataclass
    class EntriesLoaded(Message):
        entries: list[Any]
        bad_seq: int | None = None

    @dataclass
    class Progress(Message):
        checked: int
        total: int

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, LedgerScreen.Progress)

    @dataclass
    class Verified(Message):
        report: Any

    def __init__(self) -> None:
        super().__init__()
        self.report: Any | None = None

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="verify-row"):
            yield Static("Press v to verify the ledger.", id="verify-status")
            yield ProgressBar(id="verify-progress", show_eta=False)
        yield Static("", id="verify-result")
        yield LedgerTable(id="ledger-table")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#verify-progress").display = False
        self.query_one(LedgerTable).loading = True

    def refresh_data(self) -> None:
        self.query_one(LedgerTable).loading = True
        self.load_entries()

    @work(thread=True, exclusive=True, exit_on_error=False, group="ledger.entries")
    def load_entries(self, bad_seq: int | None = None) -> None:
        if bad_seq is None:
            entries = self.memory.reading.ledger_entries(limit=SHOWN_ENTRIES)
        else:  # the entries just before the bad one, and the bad one itself
            entries = self.memory.reading.ledger_entries(limit=bad_seq)[-AROUND_BAD:]
        self.post_result(self.EntriesLoaded(list(entries), bad_seq))

    def _progress(self, checked: int, total: int) -> None:
        self.post_message(self.Progress(checked, total))

    @work(thread=True, exclusive=True, exit_on_error=False, group="ledger.verify")
    def verify(self) -> None:
        report = self.memory.reading.verify(progress=self._progress)
        self.post_result(self.Verified(report))

    def on_ledger_screen_entries_loaded(self, message: EntriesLoaded) -> None:
        table = self.query_one(LedgerTable)
        table.show(message.entries, message.bad_seq)
        table.loading = False
        if message.bad_seq is not None and self.report is not None:
            bad = next((e for e in message.entries if e.seq == message.bad_seq), None)
            self.query_one("#verify-result", Static).update(bad_entry_text(self.report, bad))
        elif not message.entries:
            self.query_one("#verify-result", Static).update("The ledger is empty: nothing has changed yet.")

    def on_ledger_screen_progress(self, message: Progress) -> None:
        bar = self.query_one(ProgressBar)
        bar.update(total=max(message.total, 1), progress=message.checked)
        self.query_one("#verify-status", Static).update(progress_label(message.checked, message.total))

    def on_ledger_screen_verified(self, message: Verified) -> None:
        report = self.report = message.report
        self.query_one(ProgressBar).update(total=max(report.total, 1), progress=report.checked)
        self.query_one("#verify-status", Static).update(progress_label(report.checked, report.total))
        result = self.query_one("#verify-result", Static)
        result.set_class(not report.ok, "bad")
        result.set_class(report.ok, "good")
        if report.ok:
            result.update(
                f"✓ The ledger verifies: {plural(report.checked, 'entry', 'entries')} chain correctly."
            )
        else:
            result.update(bad_entry_text(report, None))
            if report.first_bad_seq is not None:
                self.query_one(LedgerTable).loading = True
                self.load_entries(report.first_bad_seq)

    def action_verify(self) -> None:
        if self.vapp.memory is None:
            return
        bar = self.query_one(ProgressBar)
        bar.display = True
        bar.update(total=None, progress=0)
        self.query_one("#verify-status", Static).update("Verifying…")
        self.query_one("#verify-result", Static).update("")
        self.verify()
