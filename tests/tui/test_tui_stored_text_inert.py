"""Stored text in the terminal app is shown, never obeyed: Rich/Textual markup appears as written,
and terminal escapes, carriage returns and bidi overrides appear as visible stand-ins."""

from __future__ import annotations

import re
from typing import Any

import pytest
from rich.text import Text
from textual.geometry import Region
from tui_support import app_on, fill, settle, shown_text
from veramem_desktop.tui.formatting import QUOTE_STYLE, highlight_spans
from veramem_desktop.tui.screens.memory_detail import MemoryDetailScreen
from veramem_desktop.tui.screens.review import ReviewScreen
from veramem_desktop.tui.widgets.episode_timeline import EpisodeTimeline
from veramem_desktop.tui.widgets.evidence_view import EvidenceView
from veramem_desktop.tui.widgets.memory_table import MemoryTable
from veramem_desktop.tui.widgets.review_table import ReviewTable

from veramem_desktop.memory import Memory

pytestmark = pytest.mark.anyio

MARKUP = "[bold red]LOUD[/bold red] [link=https://evil.example]click[/link]"
HOSTILE = f"The deploy script uses {MARKUP} now.\x1b[2K\r\x1b[1A \u202eevil\u202c"
TERMINAL_ACTIVE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def rendered(widget: Any) -> str:
    """What the widget puts on screen, line by line, as plain characters."""
    lines = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return "\n".join("".join(segment.text for segment in strip) for strip in lines)


@pytest.fixture
def hostile_mem(mem: Memory) -> Memory:
    mem.add([{"role": "tool", "name": "ci", "content": HOSTILE}], session_id="s-[bold]x[/bold]")
    return mem


async def test_markup_in_a_memory_shows_literally_in_the_memory_table(hostile_mem: Memory) -> None:
    app = app_on(hostile_mem)
    async with app.run_test(size=(200, 30)) as pilot:
        await settle(pilot)
        screen_text = rendered(app.screen.query_one(MemoryTable))
        assert "[bold red]LOUD[/bold red]" in screen_text
        assert not TERMINAL_ACTIVE.search(screen_text)


async def test_the_detail_screen_shows_markup_and_escapes_as_written(hostile_mem: Memory) -> None:
    item = next(m for m in hostile_mem.memories(limit=50) if "LOUD" in m.text)
    app = app_on(hostile_mem)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        app.push_screen(MemoryDetailScreen(item.id))
        await settle(pilot)
        text = shown_text(app.screen.query_one("#detail-text"))
        assert "[bold red]LOUD[/bold red]" in text and "[link=https://evil.example]" in text
        evidence = shown_text(app.screen.query_one(EvidenceView))
        assert (
            "[bold red]LOUD[/bold red]" in evidence and "␛[2K␍␛[1A" in evidence and "\\u202eevil" in evidence
        )
        assert not TERMINAL_ACTIVE.search(text + evidence)


async def test_the_review_queue_and_its_notice_show_markup_as_written(hostile_mem: Memory) -> None:
    app = app_on(hostile_mem)
    async with app.run_test(size=(200, 30)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        table = app.screen.query_one(ReviewTable)
        assert "[bold red]LOUD[/bold red]" in rendered(table)
        table.focus()
        while "LOUD" not in table.items[table.current_id() or ""].item.text:
            await pilot.press("down")
        await pilot.press("a")
        await settle(pilot)
        (notice,) = [n for n in app._notifications if n.title == "Review"]
        assert "[bold red]LOUD[/bold red]" in notice.message and notice.markup is False


async def test_the_episode_timeline_shows_escapes_visibly(hostile_mem: Memory) -> None:
    app = app_on(hostile_mem)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        timeline = shown_text(app.screen.query_one(EpisodeTimeline))
        assert "␛[2K␍␛[1A" in timeline and "[bold red]LOUD[/bold red]" in timeline
        assert not TERMINAL_ACTIVE.search(timeline)


async def test_a_search_typed_with_brackets_is_shown_as_typed(hostile_mem: Memory) -> None:
    app = app_on(hostile_mem)
    async with app.run_test(size=(200, 30)) as pilot:
        await settle(pilot)
        await fill(pilot, "#search", "[bold]LOUD[/bold]")
        await settle(pilot)
        assert "“[bold]LOUD[/bold]”" in shown_text(app.screen.query_one("#memories-summary"))


def test_the_quote_highlight_stays_on_the_quote_when_stand_ins_are_longer() -> None:
    content = "a\u202eb QUOTE c"
    start = content.index("QUOTE")
    text: Text = highlight_spans(content, [(start, start + 5)])
    assert text.plain == "a\\u202eb QUOTE c"
    (span,) = [s for s in text.spans if s.style == QUOTE_STYLE]
    assert text.plain[span.start : span.end] == "QUOTE"
