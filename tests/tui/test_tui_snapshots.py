"""Snapshots of the main screens at 80×24 and 120×40, on the demo conversations with frozen ids and times.

Each test's docstring says what the picture should show. Regenerate after a deliberate change with
``pytest tests/tui/test_tui_snapshots.py --snapshot-update`` and look at the SVGs before committing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support.internals import store_of
from textual.pilot import Pilot
from tui_support import app_on, fill, settle
from veramem_desktop.tui.app import VeramemApp
from veramem_desktop.tui.widgets.memory_table import MemoryTable

from veramem_desktop.memory import Memory

pytestmark = pytest.mark.slow  # 21 headless runs; each is quick, together they take ~30 s

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


@pytest.fixture
def snap_mem(frozen_ids: None, mem: Memory) -> Iterator[Memory]:
    from veramem_desktop.demo import load_demo

    load_demo(mem)
    yield mem


async def _open_row(pilot: Pilot[Any], contains: str) -> None:
    table = pilot.app.screen.query_one(MemoryTable)
    row = next(i for i in range(table.row_count) if contains in str(table.get_row_at(i)[1]))
    table.focus()
    table.move_cursor(row=row)
    await pilot.press("enter")
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_memories_list(snap_mem: Memory, snap_compare: Any, size: tuple[int, int]) -> None:
    """The section bar with "1 Memories" highlighted, an empty search field, "11 memories" and a table
    of the demo memories (kind, text, authority, trust; status too at 120 wide), newest first; the footer
    shows / Search, f Filters, ? Help, q Quit."""
    assert snap_compare(app_on(snap_mem), terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_memories_search(snap_mem: Memory, snap_compare: Any, size: tuple[int, int]) -> None:
    """ "vim" typed in the search field; the summary says how many results and the route; the memory
    "User uses Vim for everything…" (or its source episode) is in the first rows."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await fill(pilot, "#search", "vim")
        await settle(pilot)
        pilot.app.screen.query_one(MemoryTable).focus()
        await pilot.pause()

    assert snap_compare(app_on(snap_mem), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_search_shows_each_hits_state(
    snap_mem: Memory, snap_compare: Any, size: tuple[int, int]
) -> None:
    """ "where do I live" typed in the search field: the first row is "User lives in Porto now, not Lisbon.",
    badged "current" (green) in the State column; the Vim/Emacs memories are badged "in conflict" (yellow);
    messages are trust "raw", never "verified"."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await fill(pilot, "#search", "where do I live")
        await settle(pilot)
        pilot.app.screen.query_one(MemoryTable).focus()
        await pilot.pause()

    assert snap_compare(app_on(snap_mem), terminal_size=size, run_before=run_before)


def test_search_rows_carry_a_state_badge_and_raw_trust(snap_mem: Memory) -> None:
    """The table's State column says what recall knows: the current home first, the replaced one superseded."""
    import asyncio

    async def run() -> list[tuple[str, str, str]]:
        app = app_on(snap_mem)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await fill(pilot, "#search", "where do I live")
            await settle(pilot)
            table = pilot.app.screen.query_one(MemoryTable)
            rows = [table.get_row_at(i) for i in range(table.row_count)]
            return [(str(r[1]), str(r[3]), str(r[4])) for r in rows]  # text, trust, state (120 wide)

    rows = asyncio.run(run())
    assert rows[0][2] == "current" and "Porto" in rows[0][0], rows[:3]
    assert {"current", "in conflict"} <= {state for _, _, state in rows}
    messages = [trust for text, trust, _ in rows if not text.startswith(("User", "According"))]
    assert messages and set(messages) == {"raw"}


def test_the_list_badges_each_memory_with_the_state_search_gives_it(snap_mem: Memory) -> None:
    """Listed or searched, a memory has one state: the demo's Vim preference and the assistant's Emacs claim
    are in an open conflict, so the list says "in conflict" for both, as search does, and not "current"."""
    import asyncio

    async def rows(query: str) -> dict[str, str]:
        app = app_on(snap_mem)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            if query:
                await fill(pilot, "#search", query)
                await settle(pilot)
            table = pilot.app.screen.query_one(MemoryTable)
            return {str(table.get_row_at(i)[1]): str(table.get_row_at(i)[4]) for i in range(table.row_count)}

    listed, searched = asyncio.run(rows("")), asyncio.run(rows("favourite editor"))
    editors = {text: state for text, state in listed.items() if "favourite editor" in text}
    assert len(editors) == 2 and set(editors.values()) == {"in conflict"}, listed
    assert all(searched[text] == state for text, state in listed.items() if text in searched), (
        listed,
        searched,
    )
    assert "current" in listed.values()


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_memories_filters(snap_mem: Memory, snap_compare: Any, size: tuple[int, int]) -> None:
    """The filter bar open under the search field: kind, status (set to "active"), authority, trust,
    user id and agent id, above the list."""
    assert snap_compare(app_on(snap_mem), terminal_size=size, press=["f"], run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_memory_detail(snap_mem: Memory, snap_compare: Any, size: tuple[int, int]) -> None:
    """The memory "User uses Vim for everything, including email." in bold, then kind fact, authority
    authorized, trust candidate, status active, state in conflict, confidence, validity, outcomes and the id; below it the
    Evidence section with the source message and the quoted words in reverse video; at 120×40 also the
    versions and the ledger entry that added it. Footer: esc Back, d Forget, a Approve, x Reject."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await _open_row(pilot, "Vim")

    assert snap_compare(app_on(snap_mem), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_episodes(snap_mem: Memory, snap_compare: Any, size: tuple[int, int]) -> None:
    """ "2 Episodes" highlighted; on the left the five demo sessions, newest (demo-correction) first with
    message counts and dates; on the right its two messages: the user's correction about Porto and the
    assistant's reply, each with time and role."""
    assert snap_compare(app_on(snap_mem), terminal_size=size, press=["2"], run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_ledger_verified(snap_mem: Memory, snap_compare: Any, size: tuple[int, int]) -> None:
    """ "4 Ledger" highlighted; "N of N entries checked" with a full progress bar, a green line saying
    the ledger verifies, and the entries (number, time, operation, target)."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)

    assert snap_compare(app_on(snap_mem), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_ledger_tampered(snap_mem: Memory, snap_compare: Any, size: tuple[int, int]) -> None:
    """After entry 5 was edited in the file: a red, bold "The ledger does not verify. First bad entry:
    #5." with the reason ("altered after it was written") and the entry's operation and target; the
    table shows entries up to #5, with #5 in red under the cursor."""
    with store_of(snap_mem).atomic() as conn:
        conn.execute("UPDATE ledger SET details = '{\"forged\": true}' WHERE seq = 5")

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)

    assert snap_compare(app_on(snap_mem), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_sync_not_set_up(snap_mem: Memory, snap_compare: Any, size: tuple[int, int]) -> None:
    """ "5 Sync" highlighted and a plain statement that sync is not set up on this device, with what
    this screen will show once it is."""
    assert snap_compare(app_on(snap_mem), terminal_size=size, press=["5"], run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_help(snap_mem: Memory, snap_compare: Any, size: tuple[int, int]) -> None:
    """A centred dialog "VeraMem help": one sentence on what VeraMem is, then the keys that work
    everywhere (1–6 sections, ? help, ctrl+t theme, q quit, ctrl+p palette) and those of the Memories
    screen, each with its description."""
    assert snap_compare(app_on(snap_mem), terminal_size=size, press=["question_mark"], run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_first_run(snap_compare: Any, size: tuple[int, int]) -> None:
    """ "Welcome to VeraMem", the path of the store to be created (/nonexistent/veramem-snapshot/…),
    the choice of key keeping (OS keyring greyed out as none was found, Passphrase selected), two
    passphrase fields and a "Create the store" button."""
    app = VeramemApp(lambda _p: Memory("/nonexistent/veramem-snapshot"))

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        from textual.widgets import Input

        for field in pilot.app.screen.query(Input):  # the focused field's cursor shown steadily, not blinking
            field.cursor_blink = False
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_snapshot_memories_list_light_theme(snap_mem: Memory, snap_compare: Any) -> None:
    """The memories list of the first snapshot in the light theme: dark text on a light background,
    the active section still highlighted."""
    assert snap_compare(app_on(snap_mem, dark=False), terminal_size=(80, 24), run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_review_queue(snap_mem: Memory, snap_compare: Any, size: tuple[int, int]) -> None:
    """ "3 Review" highlighted; "4 items waiting for you" and the queue: the assistant's claim that
    conflicts with the user's own statement first, then the tool's calendar claim and the assistant's
    unendorsed/attested claims, each with why it waits. Footer: a Approve, x Reject."""
    assert snap_compare(app_on(snap_mem), terminal_size=size, press=["3"], run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_forget_preview(snap_mem: Memory, snap_compare: Any, size: tuple[int, int]) -> None:
    """Over the memory's detail, a dialog "Forget mem_…?": one sentence counting what will be erased
    (memories with every version, pieces of evidence, source episodes), then each memory and source
    episode by its shortened text and short id, a warning that only a tombstone stays in the ledger,
    and Cancel / Forget buttons (Forget focused)."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await _open_row(pilot, "Vim")
        await pilot.press("d")
        await settle(pilot)

    assert snap_compare(app_on(snap_mem), terminal_size=size, run_before=run_before)
