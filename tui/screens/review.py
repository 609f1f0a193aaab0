"""Review queue: approve or reject candidates and conflicts (a human act, never an agent's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Static
from veramem_desktop.tui.formatting import one_line, plural
from veramem_desktop.tui.screens.base import SectionScreen
from veramem_desktop.tui.screens.memory_detail import MemoryDetailScreen
from veramem_desktop.tui.screens.reject import RejectScreen
from veramem_desktop.tui.widgets.review_table import ReviewTable

FIXED_COLUMNS_WIDTH = 50


class ReviewScreen(SectionScreen):
    """``mem.review.queue()``; ``a`` approves, ``x`` rejects with a reason, Enter opens."""

    SECTION = "review"
    CSS_PATH = "review.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "a",
            "approve",
            "Approve",
            id="review.approve",
            tooltip="Approve the highlighted memory (refused if its value was rejected before)",
        ),
        Binding(
            "x",
            "reject",
            "Reject",
            id="review.reject",
            tooltip="Reject the highlighted memory with a reason; the value cannot come back",
        ),
        Binding("enter", "open", "Open", show=False, id="review.open", tooltip="See evidence and history"),
    ]

    @dataclass
    class Loaded(Message):
        queue: list[Any]

    @dataclass
    class Approved(Message):
        item: Any

    def compose_body(self) -> ComposeResult:
        yield Static("", id="review-summary")
        yield ReviewTable(id="review-table")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(ReviewTable).loading = True

    def refresh_data(self) -> None:
        self.query_one(ReviewTable).loading = True
        self.load_queue()

    @work(thread=True, exclusive=True, exit_on_error=False, group="review.load")
    def load_queue(self) -> None:
        self.post_result(self.Loaded(list(self.memory.review.queue())))

    @work(thread=True, exclusive=True, exit_on_error=False, group="review.decide")
    def approve(self, memory_id: str) -> None:
        self.post_result(self.Approved(self.memory.review.approve(memory_id)))

    def on_review_screen_loaded(self, message: Loaded) -> None:
        table = self.query_one(ReviewTable)
        table.show(message.queue, text_width=max(16, self.size.width - FIXED_COLUMNS_WIDTH))
        table.loading = False
        summary = (
            f"{plural(len(message.queue), 'item')} waiting for you. a: approve · x: reject · Enter: open"
            if message.queue
            else "Nothing to review: no candidates or conflicts are waiting."
        )
        self.query_one("#review-summary", Static).update(summary)

    def on_review_screen_approved(self, message: Approved) -> None:
        self.notify(f"Approved: {one_line(message.item.text, 200)}", title="Review", markup=False)
        self.vapp.store_changed.publish("approved")

    def action_approve(self) -> None:
        memory_id = self.query_one(ReviewTable).current_id()
        if memory_id:
            self.approve(memory_id)

    def action_reject(self) -> None:
        table = self.query_one(ReviewTable)
        memory_id = table.current_id()
        if memory_id:
            self.app.push_screen(RejectScreen(memory_id, table.items[memory_id].item.text))

    @on(DataTable.RowSelected)
    def action_open(self) -> None:
        memory_id = self.query_one(ReviewTable).current_id()
        if memory_id:
            self.app.push_screen(MemoryDetailScreen(memory_id))
