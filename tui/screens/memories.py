"""Memories: the list with filters, and hybrid search as you type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input, Static
from veramem_desktop.core.vocabulary import Status, Trust
from veramem_desktop.tui.formatting import one_line, plural
from veramem_desktop.tui.screens.base import SectionScreen
from veramem_desktop.tui.screens.memory_detail import MemoryDetailScreen
from veramem_desktop.tui.widgets.filter_bar import FilterBar, Filters
from veramem_desktop.tui.widgets.memory_table import MemoryTable

PAGE = 200


class MemoriesScreen(SectionScreen):
    """Type to search (no LLM call); with an empty query the list follows the filters."""

    SECTION = "memories"
    CSS_PATH = "memories.tcss"
    AUTO_FOCUS = "#memory-table"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "slash",
            "focus_search",
            "Search",
            key_display="/",
            id="memories.search",
            tooltip="Type to search your memories (hybrid: meaning, words, names)",
        ),
        Binding(
            "f",
            "toggle_filters",
            "Filters",
            id="memories.filters",
            tooltip="Show or hide the kind / status / authority / trust / user / agent filters",
        ),
        Binding(
            "escape",
            "leave_search",
            "List",
            show=False,
            id="memories.leave-search",
            tooltip="Leave the search field and go to the list",
        ),
    ]

    @dataclass
    class Loaded(Message):
        """Rows for the table: MemoryItem objects (list) or Hit objects (search)."""

        rows: list[Any]
        query: str
        route: str | None = None
        #: a listed memory's state by id, as search labels it (search hits carry their own)
        states: dict[str, str] | None = None
        #: the search found nothing close to its question (core/recall/relevance.py): the rows are the nearest
        nothing_close: bool = False

    def __init__(self) -> None:
        super().__init__()
        self.filters = Filters()
        self.query_text = ""

    def compose_body(self) -> ComposeResult:
        yield Input(placeholder="Search memories…  (/ to focus, Esc for the list)", id="search")
        yield FilterBar(self.filters, id="filters")
        yield Static("", id="memories-summary")
        yield MemoryTable(id="memory-table")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(FilterBar).display = False
        self.query_one(MemoryTable).loading = True

    # ------------------------------------------------------------ loading
    def refresh_data(self) -> None:
        self.query_one(MemoryTable).loading = True
        if self.query_text.strip():
            self.search(self.query_text, self.filters)
        else:
            self.list_memories(self.filters)

    @work(thread=True, exclusive=True, exit_on_error=False, group="memories.load")
    def list_memories(self, filters: Filters) -> None:
        items = self.memory.reading.memories(
            user_id=filters.user_id,
            kind=filters.kind,
            status=filters.status,
            authority=filters.authority,
            trust=filters.trust,
            agent_id=filters.agent_id,
            limit=PAGE,
        )
        self.post_result(self.Loaded(list(items), "", states=self.memory.reading.states(items)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="memories.load")
    def search(self, query: str, filters: Filters) -> None:
        result = self.memory.recall.search(
            query,
            user_id=filters.user_id,
            agent_id=filters.agent_id,
            k=50,
            include_archived=filters.status in (Status.ARCHIVED, None),
            include_rejected=filters.trust == Trust.REJECTED,  # a person asking for rejected material
        )
        hits = [hit for hit in result.results if filters.matches(hit)]
        self.post_result(
            self.Loaded(hits, query, getattr(result, "route", None), nothing_close=result.nothing_close)
        )

    def on_memories_screen_loaded(self, message: Loaded) -> None:
        table = self.query_one(MemoryTable)
        table.show(message.rows, width=self.size.width, states=message.states)
        table.loading = False
        self.vapp.mark_first_content()
        if message.query and message.nothing_close:
            # short, so the flag survives a narrow terminal: the summary is one row high
            summary = f"Nothing close to “{one_line(message.query, 60)}”" + (
                f"; the {plural(len(message.rows), 'nearest result')}:" if message.rows else "."
            )
        elif message.query:
            route = f" (route: {message.route})" if message.route else ""
            summary = f"{plural(len(message.rows), 'result')} for “{one_line(message.query, 120)}”{route}"
        elif message.rows:
            summary = f"{plural(len(message.rows), 'memory', 'memories')}"
        else:
            # one line that fits 80 columns: the summary is one row high
            summary = "No memories yet. Try `veramem import PATH` (a chat export) or ctrl+p → demo."
        self.query_one("#memories-summary", Static).update(
            Text(summary)
        )  # the query is typed text, not markup

    # ------------------------------------------------------------ input
    @on(Input.Changed, "#search")
    def _query_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value
        if self.vapp.memory is not None:
            self.refresh_data()

    @on(Input.Submitted, "#search")
    def _query_submitted(self) -> None:
        self.query_one(MemoryTable).focus()

    @on(FilterBar.Changed)
    def _filters_changed(self, event: FilterBar.Changed) -> None:
        self.filters = event.filters
        if self.vapp.memory is not None:
            self.refresh_data()

    @on(MemoryTable.Opened)
    def _open(self, event: MemoryTable.Opened) -> None:
        self.app.push_screen(MemoryDetailScreen(event.memory_id))

    def action_focus_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_leave_search(self) -> None:
        self.query_one(MemoryTable).focus()

    def action_toggle_filters(self) -> None:
        bar = self.query_one(FilterBar)
        bar.display = not bar.display
        if bar.display:
            bar.query_one("#filter-kind").focus()
