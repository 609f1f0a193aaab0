"""Review: approve and reject from the queue; approving a rejected value is refused with the reason shown."""

from __future__ import annotations

import pytest
from tui_support import app_on, fill, settle
from veramem_desktop.tui.screens.memory_detail import MemoryDetailScreen
from veramem_desktop.tui.screens.reject import RejectScreen
from veramem_desktop.tui.screens.review import ReviewScreen
from veramem_desktop.tui.widgets.review_table import ReviewTable

from veramem_desktop.memory import Memory

pytestmark = pytest.mark.anyio


async def test_approving_the_highlighted_item_verifies_it_and_takes_it_off_the_queue(
    demo_mem: Memory,
) -> None:
    queue = demo_mem.review.queue()
    assert queue, "the demo has claims and a conflict waiting for review"
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        table = app.screen.query_one(ReviewTable)
        assert table.row_count == len(queue)
        first = table.current_id()
        assert first is not None
        await pilot.press("a")
        await settle(pilot)
        assert demo_mem.get(first).trust == "verified"
        assert any(n.title == "Review" and n.message.startswith("Approved") for n in app._notifications)
        assert first not in [str(k.value) for k in app.screen.query_one(ReviewTable).rows]


async def test_rejecting_with_a_reason_marks_it_rejected_and_takes_it_off_the_queue(demo_mem: Memory) -> None:
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        table = app.screen.query_one(ReviewTable)
        table.focus()
        await pilot.press("down")
        target = table.current_id()
        assert target is not None
        await pilot.press("x")
        assert isinstance(app.screen, RejectScreen)
        await fill(pilot, "#reject-reason", "the calendar was wrong")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        assert demo_mem.get(target).trust == "rejected"
        assert target not in [str(k.value) for k in app.screen.query_one(ReviewTable).rows]


async def test_approving_a_rejected_memory_is_refused_and_the_reason_is_shown(demo_mem: Memory) -> None:
    target = demo_mem.review.queue()[0].item.id
    demo_mem.review.reject(target, reason="not true")
    app = app_on(demo_mem)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.push_screen(MemoryDetailScreen(target))
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        refused = [n for n in app._notifications if n.title == "Refused"]
        assert refused and "rejected" in refused[0].message
        assert isinstance(app.screen, MemoryDetailScreen)  # still usable
    assert demo_mem.get(target).trust == "rejected"
