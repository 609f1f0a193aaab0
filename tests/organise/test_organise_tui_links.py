"""The memory detail screen lists a memory's links, and hides the section when it has none."""

from __future__ import annotations

import pytest
from support.pilot import settle
from veramem_desktop.tui.app import VeramemApp
from veramem_desktop.tui.screens.memory_detail import MemoryDetailScreen

from veramem_desktop.memory import Memory

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_the_detail_screen_shows_each_link_with_its_type_and_direction(linking_mem: Memory) -> None:
    mem = linking_mem
    first = mem.add("Ann plays tennis on Sundays.").added[0]["id"]
    assert mem.organiser.wait_for_links(10)  # linked alone first, so the pair's edge runs from the second one
    second = mem.add("Ann plays squash on Mondays.").added[0]["id"]
    lonely = mem.add("The boiler pressure is 2 bar.").added[0]["id"]
    assert mem.organiser.wait_for_links(10)
    app = VeramemApp(lambda _passphrase: mem)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(MemoryDetailScreen(second))
        await settle(pilot)
        links = app.screen.query_one("#links")
        assert links.display and app.screen.query_one("#links-title").display
        shown = str(links.render())
        assert "related" in shown and "→" in shown and first[-6:] in shown.replace("…", "")
        app.pop_screen()
        app.push_screen(MemoryDetailScreen(lonely))
        await settle(pilot)
        assert not app.screen.query_one("#links").display
